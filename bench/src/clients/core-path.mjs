// In-process core path (no sockets, no pipes): one tools/call echo request at a time through a
// layer of core, in its own process so the runner's heap does not disturb it.
//   node core-path.mjs --path floor|dispatch|executor|handle --calls N
//     floor     JSON.parse the line, JSON.stringify a fixed echo result: no MCP work at all
//     dispatch  decodeMessage → dispatch(runtime) → encodeJson (what a stdio connection does per line)
//     executor  the same with dispatch run by an Executor (admission, deadline, signal)
//     handle    core's HTTP path, handle(runtime, request) with a neutral request (prepare,
//               execute, encode), the host's AbortController included
// prints { usPerCall, allocKbPerCall, calls } as JSON: CPU time (process.cpuUsage) and bytes
// allocated on the JS heap (v8.GCProfiler: used after − used before + what each GC freed) over
// the timed calls, after a warm-up of the same calls.
import process from 'node:process';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { importSnodo } from '../lib/checkout.mjs';
import { echo, stdioEcho } from '../lib/requests.mjs';

const { values } = parseArgs({
  options: { path: { type: 'string', default: 'dispatch' }, calls: { type: 'string', default: '20000' } },
});
const calls = Number(values.calls);

let core;
let server;
try {
  core = await importSnodo('@snodo/core');
  server = await importSnodo('everything/server');
} catch (error) {
  console.log(JSON.stringify({ unavailable: error.message.split('\n')[0] }));
  process.exit(0);
}
const runtime = server.createEverythingServer();
const line = stdioEcho('modern', 1, 'hi').trim();
const http = echo('modern', 'hi');
const body = new TextEncoder().encode(http.body);
const headers = { ...http.headers, host: '127.0.0.1:3000', 'content-length': String(body.length) };

const PATHS = {
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
  executor: await (async () => {
    const executor = new core.Executor();
    return async () => {
      const decoded = core.decodeMessage(line);
      const outcome = await executor.submit((signal) => core.dispatch(runtime, decoded, { signal }));
      return core.encodeJson(outcome.message);
    };
  })(),
  handle: async () => {
    const request = {
      method: 'POST',
      path: '/mcp',
      headers,
      body,
      remoteAddress: '127.0.0.1',
      signal: new AbortController().signal,
    };
    const response = await core.handle(runtime, request);
    return response.body;
  },
};
const call = PATHS[values.path];
if (call === undefined) throw new Error(`unknown --path ${values.path}`);

const first = await call();
if (typeof first !== 'string' || !first.includes('"text":"hi"') || first.includes('"error"')) {
  throw new Error(`${values.path}: not the echo result: ${String(first).slice(0, 300)}`);
}
for (let i = 0; i < calls / 2; i++) await call();

const profiler = new v8.GCProfiler();
profiler.start();
const usedBefore = v8.getHeapStatistics().used_heap_size;
const cpuBefore = process.cpuUsage();
for (let i = 0; i < calls; i++) await call();
const cpu = process.cpuUsage(cpuBefore);
const usedAfter = v8.getHeapStatistics().used_heap_size;
let allocated = usedAfter - usedBefore;
for (const gc of profiler.stop().statistics) {
  allocated += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
}
console.log(
  JSON.stringify({
    usPerCall: (cpu.user + cpu.system) / calls,
    allocKbPerCall: allocated / calls / 1024,
    calls,
  }),
);
