// The floor of the proxy goal: what the cheapest forwarder costs on this machine. A bare node:http
// server that forwards each POST body to a backend with undici (a Pool with snodo-proxy's settings:
// 16 keep-alive connections, no headers/body timeouts) and returns the backend's body unchanged,
// set against snodo-proxy itself, all served from this process and loaded in turn by one
// autocannon child, in the same run:
//   direct-snodo    the backend (Snodo's listener with the demo server, the proxy row's set-up) alone
//   direct-bare     bench's bare node:http backend (a fixed echo answer) alone
//   floor-snodo     the bare forwarder in front of the Snodo backend
//   floor-bare      the bare forwarder in front of the bare backend
//   request-snodo   the same forwarder through undici's `pool.request()` (a body stream) instead of
//                   `dispatch` with a small handler
//   listener-snodo  Snodo's listener (this checkout) serving one tool `echo` whose handler sends
//                   the call with the bare forwarder's undici dispatch and returns the backend's
//                   result (JSON.parse): a proxy on Snodo's listener with nothing of its own, the
//                   floor for snodo-proxy's architecture
//   proxy-snodo     snodo-proxy (createProxy + the HTTP listener of this checkout) in front of the
//                   Snodo backend
// Each batch's forwarder CPU per call is this process's (process.cpuUsage), the backend's from /proc
// over the same calls (lib/proxy.mjs `servedBatch`); the forwarder's KB allocated per call does not
// depend on the load. Per side: medians (min–max over the pairs) of forwarder µs/call, backend
// µs/call, forwarder / backend, and the p50 at 4 connections (a second batch), with what it adds
// to the direct p50 of its backend.
//   node bench/src/clients/proxy-floor.mjs [--pairs 6] [--seconds 2] [--warmup 6] [--connections 32]
//     [--sides direct-snodo,floor-snodo,...]   (after `pnpm build`)
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { startServer, Worker } from '../lib/child.mjs';
import { proxyPass, servedBatch } from '../lib/proxy.mjs';
import { echo } from '../lib/requests.mjs';
import { serverSpec } from '../lib/servers.mjs';
import { spread } from '../lib/stats.mjs';

const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '6' },
    connections: { type: 'string', default: '32' },
    sides: {
      type: 'string',
      default: 'direct-snodo,direct-bare,floor-snodo,floor-bare,request-snodo,listener-snodo,proxy-snodo',
    },
  },
});

const request = echo('modern', 'hi');
const expect = { contains: '"text":"hi"' };
/** The request headers a forwarder passes on (what snodo's client sends on 2026-07-28). */
const FORWARDED = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];

/** The forwarded request's headers as undici's flat array: name, value, name, value… */
function forwardedHeaders(req) {
  const headers = [];
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (value !== undefined) headers.push(name, value);
  }
  return headers;
}

/** Reads a request body whole. */
function body(req, then) {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => then(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
}

/** The bare forwarder: `dispatch` with a handler that collects the answer, then one `end()`. */
function dispatchForwarder(pool, path) {
  return (req, res) =>
    body(req, (payload) => {
      let status = 0;
      let type;
      const chunks = [];
      pool.dispatch(
        { path, method: 'POST', headers: forwardedHeaders(req), body: payload },
        {
          onRequestStart() {},
          onResponseStart(_controller, statusCode, headers) {
            status = statusCode;
            type = headers['content-type'];
          },
          onResponseData(_controller, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            const answer = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
            res.writeHead(status, { 'content-type': type, 'content-length': answer.length });
            res.end(answer);
          },
          onResponseError(_controller, error) {
            res.writeHead(502);
            res.end(String(error));
          },
        },
      );
    });
}

/** The same through `pool.request()` (undici's body stream, read with `arrayBuffer()`). */
function requestForwarder(pool, path) {
  return (req, res) =>
    body(req, async (payload) => {
      try {
        const answer = await pool.request({
          path,
          method: 'POST',
          headers: forwardedHeaders(req),
          body: payload,
        });
        const bytes = Buffer.from(await answer.body.arrayBuffer());
        res.writeHead(answer.statusCode, {
          'content-type': answer.headers['content-type'],
          'content-length': bytes.length,
        });
        res.end(bytes);
      } catch (error) {
        res.writeHead(502);
        res.end(String(error));
      }
    });
}

/** An undici pool to `url`'s origin with snodo-proxy's settings for an HTTP backend. */
function proxyPool(url) {
  return new Pool(url.origin, { connections: 16, headersTimeout: 0, bodyTimeout: 0, autoSelectFamily: true });
}

/** A bare forwarder to `target` on its own port; resolves to its URL and a close(). */
async function forwarder(target, make) {
  const url = new URL(target);
  const pool = proxyPool(url);
  const server = createServer(make(pool, url.pathname));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    close: async () => {
      server.close();
      await pool.close();
    },
  };
}

/** One POST of `body` to `target` with `dispatch`; resolves with the answer's text. */
function post(pool, path, headers, body) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    pool.dispatch(
      { path, method: 'POST', headers, body },
      {
        onRequestStart() {},
        onResponseStart() {},
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          resolve((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8'));
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      },
    );
  });
}

/** Snodo's listener with one tool `echo` that forwards its call with undici and returns the result. */
async function listenerForwarder(target) {
  const { createServer } = await import('@snodo/core');
  const { listen } = await import('@snodo/transport-http');
  const url = new URL(target);
  const pool = proxyPool(url);
  const headers = Object.entries(request.headers).flat();
  const { _meta } = JSON.parse(request.body).params;
  let id = 0;
  const echoTool = {
    name: 'echo',
    inputSchema: { type: 'object' },
    handler: async (args) => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: { name: 'echo', arguments: args, _meta },
      });
      return JSON.parse(await post(pool, url.pathname, headers, body)).result;
    },
  };
  const runtime = createServer({ name: 'floor', version: '0', tools: [echoTool] });
  const server = await listen({ runtime, host: '127.0.0.1', port: 0, path: '/mcp' });
  return {
    url: server.url(),
    close: async () => {
      await server.close();
      await pool.close();
    },
  };
}

/** snodo-proxy of this checkout in front of `target`, on its own port in this process. */
async function snodoProxy(target) {
  const { createProxy } = await import('@snodo/proxy');
  const { listen } = await import('@snodo/transport-http');
  const proxy = await createProxy({ backends: [{ id: 'backend', target: { http: target }, prefix: '' }] });
  const server = await listen({ runtime: proxy.runtime(), host: '127.0.0.1', port: 0, path: '/mcp' });
  return {
    url: server.url(),
    close: async () => {
      await server.close();
      await proxy.close();
    },
  };
}

const snodo = await startServer(serverSpec('snodo'));
const bare = await startServer(serverSpec('bare'));
const load = new Worker(new URL('./autocannon.mjs', import.meta.url));
const opened = [];

const SIDES = {
  'direct-snodo': async () => ({ url: snodo.url, backend: snodo, direct: true }),
  'direct-bare': async () => ({ url: bare.url, backend: bare, direct: true }),
  'floor-snodo': async () => ({ ...(await forwarder(snodo.url, dispatchForwarder)), backend: snodo }),
  'floor-bare': async () => ({ ...(await forwarder(bare.url, dispatchForwarder)), backend: bare }),
  'request-snodo': async () => ({ ...(await forwarder(snodo.url, requestForwarder)), backend: snodo }),
  'listener-snodo': async () => ({ ...(await listenerForwarder(snodo.url)), backend: snodo }),
  'proxy-snodo': async () => ({ ...(await snodoProxy(snodo.url)), backend: snodo }),
};

async function side(label) {
  const make = SIDES[label];
  if (make === undefined) throw new Error(`unknown side ${label} (${Object.keys(SIDES).join(', ')})`);
  const s = await make();
  if (s.close) opened.push(s);
  const { headers } = await load.call({ type: 'prepare', url: s.url, request, expect }, 30_000);
  return { label, ...s, headers, rows: [] };
}

async function batch(s, connections, seconds) {
  const { us, kb, ...rest } = await servedBatch(load, {
    url: s.url,
    headers: s.headers,
    body: request.body,
    backendPid: s.backend.pid,
    connections,
    seconds,
  });
  return { forwarderUs: s.direct ? 0 : us, forwarderKb: s.direct ? 0 : kb, ...rest };
}

try {
  const sides = [];
  for (const label of values.sides.split(',')) sides.push(await side(label));
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  for (const s of sides) await batch(s, connections, Number(values.warmup));
  for (let pair = 0; pair < Number(values.pairs); pair++) {
    // Each pass starts one side later, so no side always runs first.
    const order = sides.map((_, i) => sides[(i + pair) % sides.length]);
    await proxyPass(order, batch, { connections, seconds, cpuKey: 'forwarderUs' });
    // What each side adds to the p50 of its backend called directly, in the same pass.
    for (const s of sides) {
      const direct = sides.find((d) => d.direct && d.backend === s.backend);
      if (direct !== undefined) s.rows.at(-1).addedP50At4 = s.rows.at(-1).p50At4 - direct.rows.at(-1).p50At4;
    }
  }
  const keys = ['forwarderUs', 'backendUs', 'ratio', 'forwarderKb', 'p50At4', 'addedP50At4', 'calls'];
  const report = {};
  for (const s of sides) {
    report[s.label] = Object.fromEntries(
      keys
        .filter((k) => s.rows.every((r) => r[k] !== undefined))
        .map((k) => [k, spread(s.rows.map((r) => r[k]))]),
    );
  }
  console.log(
    JSON.stringify({ connections, pairs: Number(values.pairs), seconds, report }, (_k, v) =>
      typeof v === 'number' ? Number(v.toFixed(3)) : v,
    ),
  );
} finally {
  for (const s of opened) await s.close();
  await load.close();
  await snodo.kill();
  await bare.kill();
}
