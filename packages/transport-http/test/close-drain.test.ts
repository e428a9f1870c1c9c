import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PAST_THE_BUFFERS, writeAllThenRead } from '../../core/test/fixtures/write-then-read.js';
import { DEFAULT_MAX_REQUESTS_PER_CONNECTION, type McpHttpServer } from '../src/index.js';
import { closeAll, modern, rawRequest, start } from './helpers.js';

// When the listener closes a connection the client is still writing to, the answers it already
// sent must reach the client: it answers, half-closes, reads and discards what the client still
// sends (up to maxDrainBytes, for up to drainTimeout), then closes. Closing at once resets the
// connection, and the client's stack throws away the answers it has not read (EPIPE).

afterEach(closeAll);

/** The answers in `text`: status, Connection header and JSON-RPC body, in order. */
function answers(text: string): { status: number; close: boolean; body: any }[] {
  const out: { status: number; close: boolean; body: any }[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const head = rest.slice(0, end).toLowerCase();
    const length = Number(/content-length: (\d+)/.exec(head)?.[1] ?? 0);
    const body = rest.slice(end + 4, end + 4 + length);
    out.push({
      status: Number(head.slice(9, 12)),
      close: head.includes('connection: close'),
      body: body === '' ? undefined : JSON.parse(body),
    });
    rest = rest.slice(end + 4 + length);
  }
  expect(rest).toBe('');
  return out;
}

function oversizedPost(size: number): Buffer {
  const head =
    'POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
    `accept: application/json, text/event-stream\r\ncontent-length: ${size}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), Buffer.alloc(size, 0x20)]);
}

describe('closing a connection the client is still writing to', () => {
  it('an oversized POST written in full gets its 413, not EPIPE', async () => {
    const server = await start({ maxDrainBytes: 2 * PAST_THE_BUFFERS });
    const outcome = await writeAllThenRead(server.address().port, oversizedPost(PAST_THE_BUFFERS));
    expect(outcome.error).toBeUndefined();
    const [answer, ...more] = answers(outcome.text);
    expect(answer).toMatchObject({ status: 413, close: true, body: { error: { code: -32600 } } });
    expect(more).toEqual([]);
    expect(server.stats().drainCut).toBe(0);
  });

  it(`answers pipelined requests up to maxRequestsPerConnection (${DEFAULT_MAX_REQUESTS_PER_CONNECTION}) in order, runs none after`, async () => {
    const server = await start({ maxDrainBytes: 2 * PAST_THE_BUFFERS });
    const sent = DEFAULT_MAX_REQUESTS_PER_CONNECTION + 200;
    const requests = Array.from({ length: sent }, (_, i) =>
      rawRequest({ ...modern('tools/call', { name: 'echo', arguments: { text: String(i) } }), id: i }),
    );
    const bytes = Buffer.concat([Buffer.from(requests.join('')), oversizedPost(PAST_THE_BUFFERS)]);
    const outcome = await writeAllThenRead(server.address().port, bytes);
    expect(outcome.error).toBeUndefined();
    const got = answers(outcome.text);
    expect(got).toHaveLength(DEFAULT_MAX_REQUESTS_PER_CONNECTION);
    // Each answer is its request's (a result, or the executor's overload error), in the order sent.
    expect(got.map((answer) => answer.body.id)).toEqual(
      Array.from({ length: DEFAULT_MAX_REQUESTS_PER_CONNECTION }, (_, i) => i),
    );
    expect(got.findIndex((answer) => answer.close)).toBe(DEFAULT_MAX_REQUESTS_PER_CONNECTION - 1);
    expect(server.stats().requests).toBe(DEFAULT_MAX_REQUESTS_PER_CONNECTION);
  });

  it('a malformed request (two Content-Length) gets its 400 before the rest is drained', async () => {
    const server = await start({ maxDrainBytes: 2 * PAST_THE_BUFFERS });
    const head =
      'POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
      `content-length: ${PAST_THE_BUFFERS}\r\ncontent-length: ${PAST_THE_BUFFERS}\r\n\r\n`;
    const bytes = Buffer.concat([Buffer.from(head), Buffer.alloc(PAST_THE_BUFFERS, 0x20)]);
    const outcome = await writeAllThenRead(server.address().port, bytes);
    expect(outcome.error).toBeUndefined();
    expect(answers(outcome.text)).toMatchObject([
      { status: 400, close: true, body: { id: null, error: { code: -32600, message: /Content-Length/ } } },
    ]);
  });
});

/**
 * One request on a connection that closes after it (maxRequestsPerConnection 1). Once the answer
 * and the server's FIN are in, the client writes `after` more bytes and half-closes, or stays
 * silent (`after` undefined). Resolves with what it received once the server is closed: `close()`
 * waits for a connection that is draining, so the server has done with this one by then.
 */
async function afterTheAnswer(server: McpHttpServer, after: number | undefined): Promise<string> {
  const socket: Socket = connect({ port: server.address().port, host: '127.0.0.1', allowHalfOpen: true });
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.on('error', () => {});
  const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
  socket.write(rawRequest(modern('tools/list')));
  await ended;
  if (after !== undefined) socket.end(Buffer.alloc(after, 0x20));
  await server.close();
  socket.destroy();
  return text;
}

describe('the drain bounds', () => {
  const max = 64 * 1024;

  it('maxDrainBytes: exactly that many bytes after the answer, then the client closes: a clean close', async () => {
    const server = await start({ maxRequestsPerConnection: 1, maxDrainBytes: max, drainTimeout: 600_000 });
    expect(await afterTheAnswer(server, max)).toMatch(/^HTTP\/1\.1 200 /);
    expect(server.stats().drainCut).toBe(0);
  });

  it('maxDrainBytes: one byte more and the server cuts the connection', async () => {
    const server = await start({ maxRequestsPerConnection: 1, maxDrainBytes: max, drainTimeout: 600_000 });
    expect(await afterTheAnswer(server, max + 1)).toMatch(/^HTTP\/1\.1 200 /);
    expect(server.stats().drainCut).toBe(1);
  });

  it('drainTimeout: a client that never closes its side is cut when it runs out', async () => {
    const server = await start({ maxRequestsPerConnection: 1, drainTimeout: 200 });
    expect(await afterTheAnswer(server, undefined)).toMatch(/^HTTP\/1\.1 200 /);
    expect(server.stats().drainCut).toBe(1);
  });

  it.each([
    ['maxDrainBytes', 0],
    ['maxDrainBytes', 1.5],
    ['drainTimeout', 0],
    ['drainTimeout', 2 ** 31],
  ])('refuses %s = %s, naming the option', async (name, value) => {
    await expect(start({ [name]: value })).rejects.toThrow(
      new RegExp(
        `^Invalid option: ${name} must be (a positive integer|an integer number of milliseconds from 1 to 2147483647), got`,
      ),
    );
  });
});
