// What one backend session per principal costs: the memory of a stdio backend's process (RSS and
// PSS from /proc), the memory an HTTP backend spends per session, and the time to open a session
// (spawn + initialize for stdio; initialize for HTTP). N principals (in-process frontends, one
// connection each) each call a tool twice through the proxy: the first call opens the session.
// Then one principal with N calls in flight at once (each started once the one before waits for
// its elicitation answer): on a stdio backend each takes a session of its own (the first and N - 1 more).
//   node bench/sessions.mjs [--principals 10]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { connect } from '@snodo/client';
import { createProxy } from '../dist/index.js';

const { values } = parseArgs({ options: { principals: { type: 'string', default: '10' } } });
const N = Number(values.principals);
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const launcher = join(here, '..', 'test', 'fixtures', 'pid-launcher.mjs');
const loopback = join(here, '..', 'test', 'helpers', 'loopback.cjs');
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const demo = join(dirname(require.resolve('everything/package.json')), 'dist', 'main.js');

const proc = (pid, file, field) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'))[1]) / 1024;
const rss = (pid) => proc(pid, 'status', 'VmRSS');
const pss = (pid) => proc(pid, 'smaps_rollup', 'Pss');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs, digits = 0) =>
  `median ${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

/** N principals call `tool` twice each; returns the time to open each session and to call. */
async function principals(target, tool, args) {
  const opened = [];
  const proxy = await createProxy({
    maxBackendSessions: N,
    backends: [{ id: 'b', target, clientOptions: { protocolVersions: ['2025-11-25'] } }],
    onSessionChange: (change) => change.change === 'opened' && opened.push(performance.now()),
  });
  const runtime = proxy.runtime();
  const open = [];
  const first = [];
  const later = [];
  for (let i = 0; i < N; i++) {
    const client = await connect({ direct: runtime });
    const t0 = performance.now();
    await client.callTool(`b.${tool}`, args);
    const t1 = performance.now();
    await client.callTool(`b.${tool}`, args);
    later.push(performance.now() - t1);
    first.push(t1 - t0);
    open.push(opened[i] - t0);
  }
  return { proxy, open, first, later };
}

async function stdio(name, script, args, tool, toolArgs) {
  const log = join(mkdtempSync(join(tmpdir(), 'snodo-sessions-')), 'pids');
  const target = {
    stdio: {
      command: process.execPath,
      args: [launcher, script, ...args],
      env: { PID_LOG: log, PATH: process.env.PATH ?? '' },
    },
  };
  const { proxy, open, first, later } = await principals(target, tool, toolArgs);
  // The first pid is the probing session's; one more per principal.
  const pids = readFileSync(log, 'utf8').trim().split('\n').map(Number).slice(1);
  console.log(`${name}, stdio, ${N} sessions:`);
  console.log(
    `  memory per session process: RSS ${range(pids.map(rss), 1)} MB, PSS ${range(pids.map(pss), 1)} MB`,
  );
  console.log(`  open a session (spawn + initialize): ${range(open)} ms; first call ${range(first)} ms`);
  console.log(`  a later call: ${range(later, 1)} ms`);
  await proxy.close();
}

async function http(name) {
  const child = spawn(process.execPath, ['-r', loopback, everything, 'streamableHttp'], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const port = await new Promise((resolve) => {
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const match = /LISTENING (\d+)/.exec(text);
      if (match) resolve(match[1]);
    });
  });
  const before = rss(child.pid);
  const { proxy, open, first, later } = await principals({ http: `http://127.0.0.1:${port}/mcp` }, 'echo', {
    message: 'x',
  });
  const after = rss(child.pid);
  console.log(`${name}, HTTP, ${N} sessions:`);
  console.log(
    `  memory: backend process RSS ${before.toFixed(1)} → ${after.toFixed(1)} MB (${((after - before) / N).toFixed(2)} MB per session)`,
  );
  console.log(
    `  open a session (initialize + initialized): ${range(open)} ms; first call ${range(first)} ms`,
  );
  console.log(`  a later call: ${range(later, 1)} ms`);
  await proxy.close();
  child.kill();
}

/** One principal, N elicitation calls in flight at once on server-everything over stdio: N sessions. */
async function concurrent(name, script, args) {
  const log = join(mkdtempSync(join(tmpdir(), 'snodo-sessions-')), 'pids');
  const target = {
    stdio: {
      command: process.execPath,
      args: [launcher, script, ...args],
      env: { PID_LOG: log, PATH: process.env.PATH ?? '' },
    },
  };
  const opened = [];
  const proxy = await createProxy({
    maxBackendSessions: N,
    backends: [{ id: 'b', target, clientOptions: { protocolVersions: ['2025-11-25'] } }],
    onSessionChange: (change) => change.change === 'opened' && opened.push(performance.now()),
  });
  let release;
  const held = new Promise((resolve) => {
    release = resolve;
  });
  // Resolved by the elicitation of each call in turn: the next call starts once the last one waits.
  let onAsked = () => {};
  const client = await connect(
    { direct: proxy.runtime() },
    {
      onElicit: async () => {
        onAsked();
        await held;
        return { action: 'accept', content: { name: 'x', check: true, integer: 1, email: 'x@example.com' } };
      },
    },
  );
  const starts = [];
  const calls = [];
  for (let i = 0; i < N; i++) {
    const asked = new Promise((resolve) => {
      onAsked = resolve;
    });
    starts.push(performance.now());
    calls.push(client.callTool('b.trigger-elicitation-request', {}));
    await asked;
  }
  const pids = readFileSync(log, 'utf8').trim().split('\n').map(Number).slice(1);
  const lanes = pids.slice(1);
  console.log(
    `${name}, stdio, one principal with ${N} calls in flight (started one after another): ${pids.length} sessions`,
  );
  console.log(
    `  memory per further session process: RSS ${range(lanes.map(rss), 1)} MB, PSS ${range(lanes.map(pss), 1)} MB`,
  );
  console.log(
    `  open one (spawn + initialize): ${range(opened.slice(1).map((t, i) => t - starts[i + 1]))} ms`,
  );
  release();
  await Promise.all(calls);
  await client.close();
  await proxy.close();
}

await stdio('@modelcontextprotocol/server-everything', everything, ['stdio'], 'echo', { message: 'x' });
await concurrent('@modelcontextprotocol/server-everything', everything, ['stdio']);
await stdio('the demo server (examples/everything)', demo, ['--stdio'], 'echo', { text: 'x' });
await http('@modelcontextprotocol/server-everything');
