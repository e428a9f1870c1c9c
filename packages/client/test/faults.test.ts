// Servers that misbehave: garbage, a stream closed midway, no answer, an exit, a refused
// connection, an HTTP status without a JSON-RPC body. Each call fails with a clear transport error
// within its timeout, and the client stays usable (except after a stdio server exits).
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, connect, StdioTransport, TimeoutError, TransportError } from '../src/index.js';
import { FIXTURES } from './helpers/paths.js';

const BAD_STDIO = join(FIXTURES, 'bad-stdio.mjs');

describe('a misbehaving stdio server', () => {
  let client: Client;
  const warnings: string[] = [];
  let onWarning: ((message: string) => void) | undefined;
  beforeAll(async () => {
    client = await connect(
      { stdio: { command: process.execPath, args: [BAD_STDIO] } },
      {
        onWarning: (message) => {
          warnings.push(message);
          onWarning?.(message);
        },
      },
    );
  });
  afterAll(async () => {
    await client?.close();
  });

  it('garbage instead of an answer: the call times out naming the bad output; the next call works', async () => {
    const error = await client.callTool('garbage', {}, { timeout: 300 }).catch((e: unknown) => e);
    expect(TimeoutError.is(error)).toBe(true);
    expect(error).toMatchObject({ code: 'SNODO_ERR_TIMEOUT', message: /this is not json/ });
    expect(warnings.some((w) => /not a JSON-RPC message/.test(w))).toBe(true);
    expect((await client.callTool('echo', { text: 'ok' })).content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it('no answer: the call times out; the next call works', async () => {
    await expect(client.callTool('silent', {}, { timeout: 200 })).rejects.toMatchObject({
      code: 'SNODO_ERR_TIMEOUT',
    });
    expect((await client.callTool('echo', { text: 'again' })).content[0]).toMatchObject({ text: 'again' });
  });

  it('a cancelled call sends notifications/cancelled and drops the late response', async () => {
    const dropped = new Promise<string>((resolve) => {
      onWarning = (message) => {
        if (/dropped a response/.test(message)) resolve(message);
      };
    });
    const controller = new AbortController();
    const call = client.callTool('late', {}, { signal: controller.signal });
    controller.abort(new Error('not needed'));
    await expect(call).rejects.toMatchObject({ code: 'SNODO_ERR_ABORTED' });
    expect(await dropped).toMatch(/no pending request/);
    expect((await client.callTool('echo', { text: 'after' })).content[0]).toMatchObject({ text: 'after' });
  });

  it('the process exits mid-call: a transport error with the exit code and stderr; later calls fail the same way', async () => {
    const error = await client.callTool('exit').catch((e: unknown) => e);
    expect(TransportError.is(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'SNODO_ERR_CONNECTION_CLOSED',
      exitCode: 3,
      message: /exiting on purpose/,
    });
    await expect(client.callTool('echo', { text: 'x' })).rejects.toMatchObject({
      code: 'SNODO_ERR_CONNECTION_CLOSED',
    });
  });

  it('a command that cannot start: SNODO_ERR_SPAWN', async () => {
    await expect(connect({ stdio: { command: '/nonexistent/mcp-server' } })).rejects.toMatchObject({
      code: 'SNODO_ERR_SPAWN',
    });
  });
});

describe('stdio lines longer than maxLineBytes', () => {
  const LIMIT = 10_000;
  let client: Client;
  const warnings: string[] = [];
  beforeAll(async () => {
    client = await connect(
      { stdio: { command: process.execPath, args: [BAD_STDIO] } },
      { maxLineBytes: LIMIT, onWarning: (message) => warnings.push(message) },
    );
  });
  afterAll(async () => {
    await client?.close();
  });

  // A deadline far longer than the test needs: an answer that was dropped would show as a timeout.
  const patient = { timeout: 20_000 };

  it('an oversized answer fails its own call at once, whether its id comes first or last; a concurrent call is answered', async () => {
    for (const name of ['huge', 'huge-id-last']) {
      const [big, echo] = await Promise.allSettled([
        client.callTool(name, { bytes: 3 * LIMIT }, patient),
        client.callTool('echo', { text: `beside ${name}` }, patient),
      ]);
      expect(big.status).toBe('rejected');
      const error = (big as PromiseRejectedResult).reason;
      expect(TransportError.is(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'SNODO_ERR_MESSAGE_TOO_LARGE',
        limit: LIMIT,
        message: /longer than maxLineBytes \(10000\)/,
      });
      expect(echo).toMatchObject({ status: 'fulfilled', value: { content: [{ text: `beside ${name}` }] } });
    }
    expect((await client.callTool('echo', { text: 'still here' })).content[0]).toMatchObject({
      text: 'still here',
    });
  });

  it('a line of exactly maxLineBytes is read; one byte more is too large', async () => {
    const exact = await client.callTool('exact', { bytes: LIMIT }, patient);
    expect((exact.content[0] as { text: string }).text).toMatch(/^x+$/);
    await expect(client.callTool('exact', { bytes: LIMIT + 1 }, patient)).rejects.toMatchObject({
      code: 'SNODO_ERR_MESSAGE_TOO_LARGE',
    });
  });

  it('an oversized notification names no request: a warning, and the call gets its own answer', async () => {
    warnings.length = 0;
    const result = await client.callTool('huge-notice', { bytes: 3 * LIMIT }, patient);
    expect(result.content).toEqual([{ type: 'text', text: 'after the notice' }]);
    expect(warnings).toEqual([expect.stringMatching(/skipped a notification longer than maxLineBytes/)]);
  });

  it('an oversized server-initiated request is answered with -32600 naming the limit', async () => {
    const result = await client.callTool('huge-request', { bytes: 3 * LIMIT }, patient);
    expect(result.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^error -32600: .*longer than maxLineBytes \(10000\)/) },
    ]);
  });
});

describe('stdio shutdown', () => {
  async function openAndClose(script: string) {
    let ready!: () => void;
    const started = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const transport = new StdioTransport(
      { command: process.execPath, args: ['-e', script] },
      { exitTimeout: 100, termTimeout: 100, onStderr: (text) => text.includes('ready') && ready() },
    );
    await transport.open({ message() {}, closed() {}, warning() {} });
    await started;
    await transport.close();
    return transport.exit;
  }

  it('closes stdin and the server exits by itself', async () => {
    expect(
      await openAndClose(
        "process.stdin.on('end', () => process.exit(0)); process.stdin.resume(); console.error('ready')",
      ),
    ).toEqual({
      code: 0,
      signal: null,
    });
  });

  it('sends SIGTERM to a server that ignores the end of stdin', async () => {
    expect(await openAndClose("setInterval(() => {}, 1000); console.error('ready')")).toEqual({
      code: null,
      signal: 'SIGTERM',
    });
  });

  it('sends SIGKILL to a server that ignores SIGTERM too', async () => {
    expect(
      await openAndClose(
        "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.error('ready')",
      ),
    ).toEqual({ code: null, signal: 'SIGKILL' });
  });
});

/** Text whose UTF-8 form has 2-, 3- and 4-byte characters, so 7-byte reads split some of them. */
const TRICKLED = 'héllo wörld ✓ 𝄞 '.repeat(40);

describe('a misbehaving HTTP server (2026-07-28)', () => {
  let server: http.Server;
  let url: string;
  const seen: { method: string; name?: string; id?: unknown; headers: http.IncomingHttpHeaders }[] = [];
  let neverClosed: Promise<void> | undefined;
  let stalledClosed: Promise<void> | undefined;

  beforeAll(async () => {
    server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      seen.push({ method: body.method, name: body.params?.name, id: body.id, headers: req.headers });
      const reply = (result: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
      };
      if (req.headers.authorization !== 'Bearer t0ken') {
        res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
        return;
      }
      if (body.method === 'server/discover') {
        return reply({
          resultType: 'complete',
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: {} },
          ttlMs: 0,
          cacheScope: 'public',
        });
      }
      switch (body.params?.name) {
        case 'garbage':
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc": "2.0", "id": ');
          return;
        case 'status':
          res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>');
          return;
        case 'midstream': {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const token = body.params._meta.progressToken;
          res.write(
            `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1 } })}\n\n`,
          );
          res.once('finish', () => {});
          setImmediate(() => res.socket?.destroy());
          return;
        }
        case 'sse': {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const token = body.params._meta.progressToken;
          res.write(': keep-alive\n\n');
          res.write(
            `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } })}\n\n`,
          );
          res.end(
            `data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { resultType: 'complete', content: [{ type: 'text', text: 'streamed' }] } })}\n\n`,
          );
          return;
        }
        case 'huge':
          return reply({ resultType: 'complete', content: [{ type: 'text', text: 'x'.repeat(20_000) }] });
        case 'huge-sse':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(
            `data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { resultType: 'complete', content: [{ type: 'text', text: 'x'.repeat(20_000) }] } })}\n\n`,
          );
          return;
        case 'never':
          neverClosed = once(res, 'close').then(() => {});
          return;
        case 'sized': {
          // A JSON body of exactly `bytes` bytes (the padding is ASCII: one byte per character).
          const bytes = Number(body.params.arguments.bytes);
          const frame = (pad: string) =>
            JSON.stringify({
              jsonrpc: '2.0',
              id: body.id,
              result: { resultType: 'complete', content: [{ type: 'text', text: pad }] },
            });
          const text = frame('x'.repeat(bytes - Buffer.byteLength(frame(''))));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(text);
          return;
        }
        case 'trickle': {
          // A body in 7-byte pieces, each on its own turn: multi-byte characters split across reads.
          const bytes = Buffer.from(
            JSON.stringify({
              jsonrpc: '2.0',
              id: body.id,
              result: { resultType: 'complete', content: [{ type: 'text', text: TRICKLED }] },
            }),
          );
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
          const next = (at: number) => {
            if (at >= bytes.length) return void res.end();
            res.write(bytes.subarray(at, at + 7));
            setImmediate(() => next(at + 7));
          };
          next(0);
          return;
        }
        case 'stall-body':
          // The head and half a body, then nothing: the call's deadline must end it.
          stalledClosed = once(res, 'close').then(() => {});
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1_000 });
          res.write('{"jsonrpc":"2.0","id":');
          return;
        default:
          return reply({
            resultType: 'complete',
            content: [{ type: 'text', text: String(body.params?.arguments?.text) }],
          });
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
  });

  const open = () => connect({ http: url }, { authorization: async () => 't0ken' });

  it('sends the 2026-07-28 headers and the bearer token from the authorization hook', async () => {
    const client = await open();
    try {
      await client.callTool('echo', { text: 'héllo' });
      const call = seen.findLast((s) => s.method === 'tools/call');
      expect(call?.headers).toMatchObject({
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
        authorization: 'Bearer t0ken',
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      });
    } finally {
      await client.close();
    }
  });

  it('each failure is a clear transport error and the next call works', async () => {
    const client = await open();
    try {
      const check = async (name: string, expected: Record<string, unknown>, options = {}) => {
        const error = await client.callTool(name, {}, options).catch((e: unknown) => e);
        expect(error).toMatchObject(expected);
        expect((await client.callTool('echo', { text: name })).content[0]).toMatchObject({ text: name });
        return error;
      };
      const garbage = await check('garbage', { code: 'SNODO_ERR_INVALID_MESSAGE' });
      expect(TransportError.is(garbage)).toBe(true);
      await check('status', { code: 'SNODO_ERR_HTTP_STATUS', status: 502, body: '<h1>Bad gateway</h1>' });
      const before = seen.filter((s) => s.method === 'tools/call').length;
      await check('midstream', { code: 'SNODO_ERR_CONNECTION_CLOSED' }, { onProgress: () => {} });
      // A broken 2026-07-28 stream loses the request: it was re-issued once, with a new id.
      const calls = seen.filter((s) => s.method === 'tools/call').slice(before);
      expect(calls.map((c) => c.name)).toEqual(['midstream', 'midstream', 'echo']);
      expect(new Set(calls.slice(0, 2).map((c) => c.id)).size).toBe(2);
      await check('never', { code: 'SNODO_ERR_TIMEOUT' }, { timeout: 200 });
      // Closing the stream is the cancellation on 2026-07-28 HTTP: the server sees the request go.
      await neverClosed;
    } finally {
      await client.close();
    }
  });

  it('an answer over maxMessageBytes (JSON body or SSE event) fails that call as too large; the next call works', async () => {
    const client = await connect(
      { http: url },
      { authorization: async () => 't0ken', maxMessageBytes: 10_000 },
    );
    try {
      for (const name of ['huge', 'huge-sse']) {
        const error = await client.callTool(name).catch((e: unknown) => e);
        expect(TransportError.is(error)).toBe(true);
        expect(error).toMatchObject({
          code: 'SNODO_ERR_MESSAGE_TOO_LARGE',
          limit: 10_000,
          message: /maxMessageBytes \(10000\)/,
        });
        expect((await client.callTool('echo', { text: name })).content[0]).toMatchObject({ text: name });
      }
    } finally {
      await client.close();
    }
  });

  it('a JSON answer of exactly maxMessageBytes is read; one byte more fails as too large', async () => {
    const client = await connect(
      { http: url },
      { authorization: async () => 't0ken', maxMessageBytes: 10_000 },
    );
    try {
      const exact = await client.callTool('sized', { bytes: 10_000 });
      expect((exact.content[0] as { text: string }).text).toMatch(/^x+$/);
      const over = await client.callTool('sized', { bytes: 10_001 }).catch((e: unknown) => e);
      expect(over).toMatchObject({ code: 'SNODO_ERR_MESSAGE_TOO_LARGE', limit: 10_000 });
      expect((await client.callTool('echo', { text: 'after' })).content[0]).toMatchObject({ text: 'after' });
    } finally {
      await client.close();
    }
  });

  it('a JSON answer arriving in many small reads, multi-byte characters split between them, is decoded intact', async () => {
    const client = await open();
    try {
      const result = await client.callTool('trickle');
      expect(result.content).toEqual([{ type: 'text', text: TRICKLED }]);
    } finally {
      await client.close();
    }
  });

  it('a body that stalls after its head: the deadline ends the call and closes the response; the next call works', async () => {
    const client = await open();
    try {
      const error = await client.callTool('stall-body', {}, { timeout: 200 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'SNODO_ERR_TIMEOUT' });
      await stalledClosed;
      expect((await client.callTool('echo', { text: 'next' })).content[0]).toMatchObject({ text: 'next' });
    } finally {
      await client.close();
    }
  });

  it('reads SSE responses, skipping comments, with progress before the result', async () => {
    const client = await open();
    try {
      const progress: unknown[] = [];
      const result = await client.callTool('sse', {}, { onProgress: (p) => progress.push(p) });
      expect(result.content).toEqual([{ type: 'text', text: 'streamed' }]);
      expect(progress).toEqual([{ progress: 1, total: 2 }]);
    } finally {
      await client.close();
    }
  });

  it('an HTTP status without a JSON-RPC body (401) fails connect with SNODO_ERR_HTTP_STATUS', async () => {
    const error = await connect({ http: url }).catch((e: unknown) => e);
    expect(TransportError.is(error)).toBe(true);
    expect(error).toMatchObject({ code: 'SNODO_ERR_HTTP_STATUS', status: 401 });
  });

  it('a refused connection: SNODO_ERR_CONNECTION_REFUSED', async () => {
    const closed = http.createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    await expect(connect({ http: `http://127.0.0.1:${port}/mcp` })).rejects.toMatchObject({
      code: 'SNODO_ERR_CONNECTION_REFUSED',
    });
  });
});
