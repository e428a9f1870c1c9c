import { type AddressInfo, connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { PAST_THE_BUFFERS, writeAllThenRead } from '../../core/test/fixtures/write-then-read.js';
import { type SnodoFastifyOptions, snodo } from '../src/index.js';
import { Probe, testServer, toolCall } from './helpers.js';

// A body the plugin refuses (413) is read and discarded after the answer, within maxDrainBytes
// and drainTimeout, so the client reads the answer even while it is still sending, and the
// connection stays in step for the next request. Answering and closing at once resets the
// connection, and the client's stack throws away the answer it has not read (EPIPE).

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.server.closeAllConnections();
    await app.close();
  }
});

async function serve(
  options: Omit<SnodoFastifyOptions, 'runtime'> = {},
  probe = new Probe(),
): Promise<number> {
  const app = Fastify();
  apps.push(app);
  await app.register(snodo, { runtime: testServer(probe), ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

/** The status lines in `text`, in order, and whether each answer said `Connection: close`. */
function statuses(text: string): { status: number; close: boolean }[] {
  return text
    .split(/(?=HTTP\/1\.1 \d{3} )/)
    .filter((part) => part.startsWith('HTTP/1.1 '))
    .map((part) => {
      const head = part.slice(0, part.indexOf('\r\n\r\n')).toLowerCase();
      return { status: Number(head.slice(9, 12)), close: head.includes('connection: close') };
    });
}

const HEAD =
  'POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
  'accept: application/json, text/event-stream\r\n';

function post(size: number): Buffer {
  return Buffer.concat([Buffer.from(`${HEAD}content-length: ${size}\r\n\r\n`), Buffer.alloc(size, 0x20)]);
}

function chunked(size: number): Buffer {
  const body = Buffer.alloc(size, 0x20);
  return Buffer.concat([
    Buffer.from(`${HEAD}transfer-encoding: chunked\r\n\r\n${size.toString(16)}\r\n`),
    body,
    Buffer.from('\r\n0\r\n\r\n'),
  ]);
}

/** A correct request that ends the exchange (the server closes after answering it). */
function lastRequest(): Buffer {
  const { body, headers } = toolCall('whoami');
  const head = Object.entries({ ...headers, host: '127.0.0.1', connection: 'close' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.from(
    `POST /mcp HTTP/1.1\r\n${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

describe('the one body policy: chunked accepted up to maxBodyBytes', () => {
  it('a chunked POST within maxBodyBytes is read and answered 200, as the listener does (was 411)', async () => {
    const port = await serve();
    const { body, headers } = toolCall('whoami');
    // This client half-closes once it has written. Node's HTTP server (Fastify's) drops a request
    // whose client half-closed before its answer was written, so the server is warmed first: its
    // first request waits for @opentelemetry/api to load. The body policy is what is tested here.
    expect((await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers, body })).status).toBe(200);
    const head = Object.entries({ ...headers, host: '127.0.0.1', connection: 'close' })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const size = Buffer.byteLength(body).toString(16);
    const outcome = await writeAllThenRead(
      port,
      Buffer.from(
        `POST /mcp HTTP/1.1\r\n${head}transfer-encoding: chunked\r\n\r\n${size}\r\n${body}\r\n0\r\n\r\n`,
      ),
    );
    expect(statuses(outcome.text)).toEqual([{ status: 200, close: true }]);
    expect(outcome.text).toContain('"text":"anonymous"');
  });
});

describe('a refused body the client is still sending', () => {
  it('an oversized POST written in full gets its 413, and the next request on the connection is served', async () => {
    const probe = new Probe();
    const port = await serve({ maxDrainBytes: 2 * PAST_THE_BUFFERS }, probe);
    const outcome = await writeAllThenRead(port, Buffer.concat([post(PAST_THE_BUFFERS), lastRequest()]));
    expect(outcome.error).toBeUndefined();
    expect(statuses(outcome.text)).toEqual([
      { status: 413, close: false },
      { status: 200, close: true },
    ]);
    expect(outcome.text).toContain('"text":"anonymous"');
    expect(probe.calls).toBe(1);
  });

  it('an oversized POST that asks for Connection: close gets its 413 before the connection closes', async () => {
    const port = await serve({ maxDrainBytes: 2 * PAST_THE_BUFFERS });
    const head = `${HEAD}connection: close\r\ncontent-length: ${PAST_THE_BUFFERS}\r\n\r\n`;
    const outcome = await writeAllThenRead(
      port,
      Buffer.concat([Buffer.from(head), Buffer.alloc(PAST_THE_BUFFERS)]),
    );
    expect(outcome.error).toBeUndefined();
    expect(statuses(outcome.text)).toEqual([{ status: 413, close: true }]);
  });

  it('a chunked POST past maxBodyBytes written in full gets its 413, and the next request on the connection is served', async () => {
    const port = await serve({ maxDrainBytes: 2 * PAST_THE_BUFFERS });
    const outcome = await writeAllThenRead(port, Buffer.concat([chunked(PAST_THE_BUFFERS), lastRequest()]));
    expect(outcome.error).toBeUndefined();
    expect(statuses(outcome.text)).toEqual([
      { status: 413, close: false },
      { status: 200, close: true },
    ]);
  });
});

describe('the drain bounds', () => {
  const limits = { maxBodyBytes: 1_000, maxDrainBytes: 64 * 1024, drainTimeout: 600_000 };

  it('maxDrainBytes: a declared body of exactly that size is drained and the connection kept', async () => {
    const port = await serve(limits);
    const outcome = await writeAllThenRead(port, Buffer.concat([post(limits.maxDrainBytes), lastRequest()]));
    expect(statuses(outcome.text)).toEqual([
      { status: 413, close: false },
      { status: 200, close: true },
    ]);
  });

  it('maxDrainBytes: a declared body one byte larger is refused with Connection: close, unread', async () => {
    const port = await serve(limits);
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // The head only: the answer and the close come without a byte of the body.
    socket.write(`${HEAD}content-length: ${limits.maxDrainBytes + 1}\r\n\r\n`);
    await closed;
    expect(statuses(text)).toEqual([{ status: 413, close: true }]);
  });

  it('maxDrainBytes: a chunked body far past it is cut while it is drained (its 413 was read up to maxBodyBytes first)', async () => {
    const port = await serve(limits);
    const outcome = await writeAllThenRead(
      port,
      Buffer.concat([chunked(4 * limits.maxDrainBytes), lastRequest()]),
    );
    expect(statuses(outcome.text).map((answer) => answer.status)).toEqual([413]);
  });

  it('maxDrainBytes: a chunked body of exactly that size is drained and the connection kept', async () => {
    const port = await serve(limits);
    const outcome = await writeAllThenRead(
      port,
      Buffer.concat([chunked(limits.maxDrainBytes), lastRequest()]),
    );
    expect(statuses(outcome.text).map((answer) => answer.status)).toEqual([413, 200]);
  });

  it('drainTimeout: a client that stops sending the refused body is cut when it runs out', async () => {
    const port = await serve({ ...limits, drainTimeout: 200 });
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => {});
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(`${HEAD}content-length: 2000\r\n\r\n${' '.repeat(1_500)}`); // 500 bytes never come
    await closed;
    expect(statuses(text)).toEqual([{ status: 413, close: false }]);
  });

  it.each([
    ['maxDrainBytes', 0],
    ['maxDrainBytes', 1.5],
    ['drainTimeout', 0],
    ['drainTimeout', -1],
  ])('refuses %s = %s at registration, naming the option', async (name, value) => {
    const app = Fastify();
    apps.push(app);
    await expect(app.register(snodo, { runtime: testServer(), [name]: value }).ready()).rejects.toThrow(
      new RegExp(
        `${name} must be (a positive integer|an integer number of milliseconds from 1 to 2147483647), got`,
      ),
    );
  });
});
