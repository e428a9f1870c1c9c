// How many answers a client loses when the server closes a connection it still has bytes for.
// A raw TCP client writes everything first and reads afterwards (issue 16, item 4):
//
//   node src/close-drain.mjs SERVER SCENARIO [TRIES]
//     SERVER    listener | fastify | fastify-limit | bare
//     SCENARIO  pipeline  1,200 `tools/call echo` pipelined on one connection (the server closes
//                         after 1,000, its maxRequestsPerConnection): answers lost among the first
//                         1,000. PAD_BYTES=N adds N bytes the tool ignores to each, TAIL_BYTES=N
//                         one more POST of N body bytes after them (defaults 0)
//               oversized one POST of OVERSIZED bytes (default 3,000,000, over the 2,000,000
//                         limit), written in full: how often the client sees EPIPE/ECONNRESET
//                         instead of reading the 413
//
// `fastify-limit` is Fastify with its own `maxRequestsPerSocket: 1000`; `fastify` has Fastify's
// defaults (no per-connection limit). `bare` is plain node:http with `maxRequestsPerSocket: 1000`
// answering a fixed body. The server runs in a child process. Loopback only. Prints one JSON line.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import process from 'node:process';

const HOST = '127.0.0.1';
const PIPELINED = 1_200;
const LIMIT = 1_000;
const OVERSIZED = Number(process.env.OVERSIZED ?? 3_000_000);
// Characters of an argument the echo tool ignores: with 10,000, the 1,200 requests (12 MB) outgrow
// loopback's socket buffers (about 4 MB here), so the client is still writing when the server
// answers the 1,000th; the answers stay small (large ones would fill the buffers the other way).
const PAD = 'x'.repeat(Number(process.env.PAD_BYTES ?? 0));
// Bytes of one more (oversized) POST after the 1,200: a client still writing past the limit.
const TAIL = Number(process.env.TAIL_BYTES ?? 0);

const [kind, scenario, triesText = '20'] = process.argv.slice(2);

if (scenario === '--serve') await serve(kind);
else await measure(kind, scenario, Number(triesText));

async function serve(kind) {
  let port;
  if (kind === 'listener') {
    const { listen } = await import('@snodo/transport-http');
    const server = await listen({ runtime: await runtime(), port: 0, host: HOST });
    port = server.address().port;
  } else if (kind === 'fastify' || kind === 'fastify-limit') {
    const { default: Fastify } = await import('fastify');
    const { snodo } = await import('@snodo/fastify');
    const app = Fastify(kind === 'fastify-limit' ? { maxRequestsPerSocket: LIMIT } : {});
    await app.register(snodo, { runtime: await runtime(), path: '/mcp' });
    await app.listen({ host: HOST, port: 0 });
    port = app.server.address().port;
  } else if (kind === 'bare') {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'hi' }] },
    });
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(body));
    });
    server.maxRequestsPerSocket = LIMIT;
    await new Promise((resolve) => server.listen(0, HOST, resolve));
    port = server.address().port;
  } else {
    throw new Error(`unknown server ${kind}`);
  }
  process.send({ port });
}

async function runtime() {
  const { createServer: createMcpServer } = await import('@snodo/core');
  return createMcpServer({
    name: 'close-drain',
    version: '1.0.0',
    tools: [
      {
        name: 'echo',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        handler: ({ text }) => text,
      },
    ],
  });
}

function request(body) {
  return (
    'POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
    'accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n' +
    `mcp-method: tools/call\r\nmcp-name: echo\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** One POST of `size` body bytes, over the default maxBodyBytes when `size` is. */
function oversized(size) {
  const head =
    'POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
    `accept: application/json, text/event-stream\r\ncontent-length: ${size}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), Buffer.alloc(size, 0x20)]);
}

function echo(id) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'echo',
      arguments: { text: 'hi', pad: PAD },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

/**
 * Writes `bytes`, then (write done or failed) reads until the server closes, or until `answers`
 * status lines have arrived (a server that keeps the connection open: Fastify without a
 * per-connection limit, or after draining a refused body).
 */
function exchange(port, bytes, answers = Number.POSITIVE_INFINITY) {
  return new Promise((resolve) => {
    const socket = connect(port, HOST);
    let text = '';
    let error;
    socket.pause();
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (text.split('HTTP/1.1 ').length - 1 >= answers) socket.destroy();
    });
    socket.on('error', (e) => {
      error ??= e.code;
    });
    socket.on('close', () => resolve({ text, error }));
    socket.write(bytes, () => socket.resume());
  });
}

async function measure(kind, scenario, tries) {
  const child = fork(new URL(import.meta.url), [kind, '--serve'], { stdio: 'inherit' });
  const { port } = await new Promise((resolve) => child.once('message', resolve));
  const rows = [];
  try {
    for (let i = 0; i < tries; i++) {
      if (scenario === 'pipeline') {
        const requests = Array.from({ length: PIPELINED }, (_, n) => request(echo(n + 1))).join('');
        const all = TAIL > 0 ? Buffer.concat([Buffer.from(requests), oversized(TAIL)]) : requests;
        const { text, error } = await exchange(port, all, PIPELINED);
        const answers = text.split('HTTP/1.1 ').length - 1;
        const overloaded = text.split('HTTP/1.1 503').length - 1;
        rows.push({ answers, overloaded, lostOfFirst: Math.max(0, LIMIT - answers), error });
      } else if (scenario === 'oversized') {
        const { text, error } = await exchange(port, oversized(OVERSIZED), 1);
        rows.push({ got413: text.startsWith('HTTP/1.1 413'), error });
      } else {
        throw new Error(`unknown scenario ${scenario}`);
      }
    }
  } finally {
    child.kill();
  }
  const summary = { server: kind, scenario, tries };
  if (scenario === 'pipeline') {
    const lost = rows.map((row) => row.lostOfFirst);
    Object.assign(summary, {
      triesLosingAnswers: lost.filter((n) => n > 0).length,
      lostMin: Math.min(...lost),
      lostMax: Math.max(...lost),
      answersMax: Math.max(...rows.map((row) => row.answers)),
      overloadedMax: Math.max(...rows.map((row) => row.overloaded)),
      errors: count(rows.map((row) => row.error)),
    });
  } else {
    Object.assign(summary, {
      got413: rows.filter((row) => row.got413).length,
      resetWithout413: rows.filter((row) => !row.got413 && row.error !== undefined).length,
      errors: count(rows.map((row) => row.error)),
    });
  }
  console.log(JSON.stringify(summary));
}

function count(values) {
  const out = {};
  for (const value of values) if (value !== undefined) out[value] = (out[value] ?? 0) + 1;
  return out;
}
