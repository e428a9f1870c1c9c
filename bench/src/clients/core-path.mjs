// In-process core path (no sockets, no pipes): one tools/call echo request at a time through a
// layer of core, in its own process so the runner's heap does not disturb it.
//   node core-path.mjs --path floor|dispatch|executor|engine|handle|session|stdio|client --calls N
//     floor     JSON.parse the line, JSON.stringify a fixed echo result: no MCP work at all
//     dispatch  decodeMessage → dispatch(runtime) → encodeJson (what a stdio connection does per line)
//     executor  the same with dispatch run by an Executor (admission, deadline, signal), through its
//               public submit(task(signal)): the task gets a real AbortSignal
//     engine    the connection engine a stdio connection runs on (@snodo/core/internal's Connection,
//               with an Executor), fed decoded lines, its output encoded: core's own executor path
//     client    @snodo/client's callTool through its in-process transport (connect({ direct: runtime })):
//               the client's per-call work plus the engine without an executor
//     session   the same as handle in a 2025-06-18 session (initialize once, then tools/call with
//               Mcp-Session-Id): the session lookup and the per-request registration of its requests
//     handle    core's HTTP path, createHttpHandler(runtime).handle(request) with a neutral request (prepare,
//               execute, encode), the host's disconnect signal included (the checkout's LazySignal when
//               it has one, as its listener makes; an AbortController before)
//     stdio     @snodo/transport-stdio's serve(): batches of 100 pipelined lines written to its input (a
//               PassThrough) as one chunk, each batch awaited until its 100 answer lines came out of its
//               output (a Unix socket, read in this process): line framing, the connection engine, the
//               executor, encoding, the writer and node's native write path; figures per line
// prints { usPerCall, allocKbPerCall, calls } as JSON: CPU time (process.cpuUsage) and bytes
// allocated on the JS heap (lib/allocated.mjs: used after − used before + what each GC freed) over
// the timed calls, after a warm-up of the same calls.
//   --ab PATH   an A/B in one process: the same path from the checkout at PATH (the base) and from
//               this one, loaded side by side and timed in alternating batches, so that both see
//               the same machine load; prints both, and `ratio`, the median of per-pair ratios
//               (this / base). The table of what each change bought in BENCHMARKS.md uses it.

import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { countAllocation } from '../lib/allocated.mjs';
import { importSnodo, resolveIn, THIS_ROOT } from '../lib/checkout.mjs';
import { echo, initialize, initialized, stdioEcho } from '../lib/requests.mjs';

const { values } = parseArgs({
  options: {
    path: { type: 'string', default: 'dispatch' },
    calls: { type: 'string', default: '20000' },
    ab: { type: 'string' },
  },
});
const calls = Number(values.calls);
const line = stdioEcho('modern', 1, 'hi').trim();
const http = echo('modern', 'hi');
const body = new TextEncoder().encode(http.body);
const headers = { ...http.headers, host: '127.0.0.1:3000', 'content-length': String(body.length) };

/** The call of `path` with core and the demo server from `root` (undefined: SNODO_BENCH_ROOT or this checkout). */
async function load(path, root) {
  let core;
  let internal;
  let server;
  let stdio;
  let clientPackage;
  const from = (specifier) =>
    root === undefined ? importSnodo(specifier) : import(resolveIn(root, specifier));
  try {
    core = await from('@snodo/core');
    internal = await from('@snodo/core/internal');
    server = await from('everything/server');
    if (path === 'stdio') stdio = await from('@snodo/transport-stdio');
    if (path === 'client') clientPackage = await from('@snodo/client');
  } catch (error) {
    console.log(JSON.stringify({ unavailable: error.message.split('\n')[0] }));
    process.exit(0);
  }
  const runtime = server.createEverythingServer();
  let handler;
  let sessionId;
  let sessionCall;
  const paths = {
    floor: async () => {
      const message = JSON.parse(line);
      return JSON.stringify({
        jsonrpc: '2.0',
        id: message.id,
        result: { content: [{ type: 'text', text: message.params.arguments.text }] },
      });
    },
    dispatch: async () => {
      const outcome = await core.dispatch(runtime, core.decodeMessage(line), {});
      return core.encodeJson(outcome.message);
    },
    executor: () => {
      const executor = new core.Executor();
      return async () => {
        const decoded = core.decodeMessage(line);
        const outcome = await executor.submit((signal) => core.dispatch(runtime, decoded, { signal }));
        return core.encodeJson(outcome.message);
      };
    },
    engine: () => {
      // One connection for the run, as a stdio server has; each call waits for its answer.
      let answer;
      const connection = new internal.Connection(runtime, {
        output: {
          write: (message) => {
            answer(core.encodeJson(message));
            return true;
          },
          ready: () => Promise.resolve(),
          blocked: false,
        },
        executor: new core.Executor(),
        maxBatchItems: 100,
        onError: (error) => {
          throw error;
        },
      });
      return () =>
        new Promise((resolve) => {
          answer = resolve;
          connection.receive(core.decodeMessage(line));
        });
    },
    client: async () => {
      const client = await clientPackage.connect({ direct: runtime });
      return async () => JSON.stringify(await client.callTool('echo', { text: 'hi' }));
    },
    session: async () => {
      // A 2025-06-18 session opened once (initialize, notifications/initialized), then tools/call in it.
      handler ??= core.createHttpHandler(runtime);
      const post = async (message) => {
        const body = new TextEncoder().encode(message.body);
        const headers = { ...message.headers, host: '127.0.0.1:3000', 'content-length': String(body.length) };
        if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
        const signal = new internal.LazySignal();
        return handler.handle({
          method: 'POST',
          path: '/mcp',
          headers,
          body,
          remoteAddress: '127.0.0.1',
          signal,
        });
      };
      if (sessionId === undefined) {
        sessionId = (await post(initialize())).headers['mcp-session-id'];
        await post(initialized(sessionId));
        sessionCall = echo('session', 'hi');
      }
      return (await post(sessionCall)).body;
    },
    handle: async () => {
      // One handler for the run (createHttpHandler); a checkout from before it has handle(runtime, request).
      handler ??= core.createHttpHandler
        ? core.createHttpHandler(runtime)
        : { handle: (r) => core.handle(runtime, r) };
      const request = {
        method: 'POST',
        path: '/mcp',
        headers,
        body,
        remoteAddress: '127.0.0.1',
        signal: internal.LazySignal ? new internal.LazySignal() : new AbortController().signal,
      };
      const response = await handler.handle(request);
      return response.body;
    },
  };
  if (path === 'stdio') paths.stdio = await stdioBatches(stdio, runtime);
  if (paths[path] === undefined) throw new Error(`unknown --path ${path}`);
  const call =
    path === 'executor' || path === 'engine'
      ? paths[path]()
      : path === 'client'
        ? await paths.client()
        : paths[path];
  const first = await call();
  if (typeof first !== 'string' || !first.includes('"text":"hi"') || first.includes('"error"')) {
    throw new Error(`${path}: not the echo result: ${String(first).slice(0, 300)}`);
  }
  return { call, lines: path === 'stdio' ? STDIO_BATCH : 1 };
}

/** Lines per call of the stdio path: written as one chunk, answered before the next batch. */
const STDIO_BATCH = 100;

/**
 * One serve() for the run on a PassThrough input and, as its output, one end of a Unix socket
 * pair (a real stream handle, so node's native write path is measured); the other end counts
 * answer lines. Each call writes STDIO_BATCH echo lines (ids 1..STDIO_BATCH) as one chunk and
 * resolves with the last answer line once all of them came out.
 */
async function stdioBatches(stdio, runtime) {
  const input = new PassThrough();
  const path = join(tmpdir(), `snodo-core-path-${process.pid}-${++sockets}.sock`);
  const server = createServer();
  await new Promise((resolve) => server.listen(path, resolve));
  const accepted = new Promise((resolve) => server.once('connection', resolve));
  const output = connect(path);
  const reader = await accepted;
  server.close();
  let waiting = 0;
  let last = '';
  let done = () => {};
  reader.setEncoding('latin1');
  reader.on('data', (text) => {
    let lines = 0;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
    if (lines === 0) return;
    last = text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
    waiting -= lines;
    if (waiting === 0) done(last);
  });
  stdio.serve(runtime, { input, output }).catch((error) => {
    console.error(error);
    process.exit(1);
  });
  let text = '';
  for (let id = 1; id <= STDIO_BATCH; id++) text += stdioEcho('modern', id, 'hi');
  const batch = Buffer.from(text);
  return () =>
    new Promise((resolve) => {
      waiting = STDIO_BATCH;
      done = resolve;
      input.write(batch);
    });
}
let sockets = 0;

/** CPU µs and KB allocated per line over `n` lines (`call` handles `lines` of them). */
async function measure({ call, lines }, n) {
  const counting = countAllocation();
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < n; i += lines) await call();
  const cpu = process.cpuUsage(cpuBefore);
  const { bytes } = counting.stop();
  return { usPerCall: (cpu.user + cpu.system) / n, allocKbPerCall: bytes / n / 1024 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

if (values.ab === undefined) {
  const path = await load(values.path);
  for (let i = 0; i < calls / 2; i += path.lines) await path.call();
  console.log(JSON.stringify({ ...(await measure(path, calls)), calls }));
} else {
  const base = await load(values.path, values.ab);
  const ours = await load(values.path, THIS_ROOT);
  const batch = 2_000;
  for (let i = 0; i < calls / 2; i += ours.lines) {
    await base.call();
    await ours.call();
  }
  const pairs = [];
  for (let pair = 0; pair < Math.max(1, Math.round(calls / batch)); pair++) {
    // Alternate which goes first, so that neither always runs on the other's garbage.
    const [b, o] =
      pair % 2 === 0
        ? [await measure(base, batch), await measure(ours, batch)]
        : [await measure(ours, batch), await measure(base, batch)].reverse();
    pairs.push({ b, o });
  }
  const of = (side, key) => median(pairs.map((p) => p[side][key]));
  console.log(
    JSON.stringify({
      path: values.path,
      base: { usPerCall: of('b', 'usPerCall'), allocKbPerCall: of('b', 'allocKbPerCall') },
      this: { usPerCall: of('o', 'usPerCall'), allocKbPerCall: of('o', 'allocKbPerCall') },
      ratio: median(pairs.map((p) => p.o.usPerCall / p.b.usPerCall)),
      allocRatio: median(pairs.map((p) => p.o.allocKbPerCall / p.b.allocKbPerCall)),
      pairs: pairs.length,
      batch,
    }),
  );
}
// The stdio path's serve() never sees the end of its input: leave without waiting for it.
process.exit(0);
