// In-process core path (no sockets, no pipes): one tools/call echo request at a time through a
// layer of core, in its own process so the runner's heap does not disturb it.
//   node core-path.mjs --path floor|dispatch|executor|handle --calls N
//     floor     JSON.parse the line, JSON.stringify a fixed echo result: no MCP work at all
//     dispatch  decodeMessage → dispatch(runtime) → encodeJson (what a stdio connection does per line)
//     executor  the same with dispatch run by an Executor (admission, deadline, signal)
//     handle    core's HTTP path, createHttpHandler(runtime).handle(request) with a neutral request (prepare,
//               execute, encode), the host's AbortController included
// prints { usPerCall, allocKbPerCall, calls } as JSON: CPU time (process.cpuUsage) and bytes
// allocated on the JS heap (v8.GCProfiler: used after − used before + what each GC freed) over
// the timed calls, after a warm-up of the same calls.
//   --ab PATH   an A/B in one process: the same path from the checkout at PATH (the base) and from
//               this one, loaded side by side and timed in alternating batches, so that both see
//               the same machine load; prints both, and `ratio`, the median of per-pair ratios
//               (this / base). The table of what each change bought in BENCHMARKS.md uses it.
import process from 'node:process';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { importSnodo, resolveIn, THIS_ROOT } from '../lib/checkout.mjs';
import { echo, stdioEcho } from '../lib/requests.mjs';

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
  let server;
  try {
    core =
      root === undefined ? await importSnodo('@snodo/core') : await import(resolveIn(root, '@snodo/core'));
    server =
      root === undefined
        ? await importSnodo('everything/server')
        : await import(resolveIn(root, 'everything/server'));
  } catch (error) {
    console.log(JSON.stringify({ unavailable: error.message.split('\n')[0] }));
    process.exit(0);
  }
  const runtime = server.createEverythingServer();
  let handler;
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
        signal: new AbortController().signal,
      };
      const response = await handler.handle(request);
      return response.body;
    },
  };
  if (paths[path] === undefined) throw new Error(`unknown --path ${path}`);
  const call = path === 'executor' ? paths.executor() : paths[path];
  const first = await call();
  if (typeof first !== 'string' || !first.includes('"text":"hi"') || first.includes('"error"')) {
    throw new Error(`${path}: not the echo result: ${String(first).slice(0, 300)}`);
  }
  return call;
}

/** CPU µs per call and KB allocated per call over `n` calls. */
async function measure(call, n) {
  const profiler = new v8.GCProfiler();
  profiler.start();
  const usedBefore = v8.getHeapStatistics().used_heap_size;
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < n; i++) await call();
  const cpu = process.cpuUsage(cpuBefore);
  let allocated = v8.getHeapStatistics().used_heap_size - usedBefore;
  for (const gc of profiler.stop().statistics) {
    allocated += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
  }
  return { usPerCall: (cpu.user + cpu.system) / n, allocKbPerCall: allocated / n / 1024 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

if (values.ab === undefined) {
  const call = await load(values.path);
  for (let i = 0; i < calls / 2; i++) await call();
  console.log(JSON.stringify({ ...(await measure(call, calls)), calls }));
} else {
  const base = await load(values.path, values.ab);
  const ours = await load(values.path, THIS_ROOT);
  const batch = 2_000;
  for (let i = 0; i < calls / 2; i++) {
    await base();
    await ours();
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
