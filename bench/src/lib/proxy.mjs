// The proxy row: a backend (Snodo's listener with the demo server), snodo-proxy in front of it from
// a config written for the run (port 0, one HTTP backend, empty prefix so the tool keeps its name
// `echo`), and the load sent to the proxy. The proxy process is the one measured (CPU, peak RSS);
// the backend's CPU over the same calls is measured too, so the proxy's cost per forwarded call
// can be set against the backend's own.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { allocated } from './allocated.mjs';
import { startServer } from './child.mjs';
import { loadRound } from './http-round.mjs';
import { cpuMsOf } from './proc.mjs';
import { echo } from './requests.mjs';
import { serverSpec } from './servers.mjs';

/**
 * Runs `measure(child, url, backend)` against a running proxy in front of a fresh backend; `root`
 * picks the checkout both come from, `execArgv` goes to the proxy's node (e.g. `--cpu-prof`).
 */
export async function withProxy({ cli, root, execArgv = [] }, measure) {
  const backend = await startServer(serverSpec('snodo', root));
  const dir = mkdtempSync(join(tmpdir(), 'snodo-bench-proxy-'));
  let proxy;
  try {
    const config = join(dir, 'proxy.json');
    writeFileSync(
      config,
      JSON.stringify({
        listen: { host: '127.0.0.1', port: 0, path: '/mcp' },
        backends: [{ id: 'backend', target: { http: backend.url }, prefix: '' }],
      }),
    );
    proxy = await startServer({
      program: cli,
      args: ['--config', config],
      execArgv,
      readyLine: /listening on (http:\/\/\S+)/,
    });
    return await measure(proxy, proxy.url, backend);
  } finally {
    await proxy?.kill();
    await backend.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One load run through the proxy, with the backend's CPU per call over the same calls. */
export function proxiedRun(ctx, proxy, backend, load) {
  return loadRound(ctx, {
    child: proxy,
    url: proxy.url,
    request: echo('modern', 'hi'),
    observe: backend,
    ...load,
  });
}

/**
 * One batch of load from the autocannon worker `load` against a forwarder this process serves at
 * `url`: this process's CPU µs and JS-heap KB allocated per call, the backend child's CPU µs per
 * call over the same calls (`/proc`), and the p50 (the in-process A/B clients: proxy-ab, proxy-floor).
 */
export async function servedBatch(load, { url, headers, body, backendPid, connections, seconds }) {
  const cpu = process.cpuUsage();
  const backendMs = cpuMsOf(backendPid);
  const { value: run, bytes } = await allocated(() =>
    load.call({ type: 'run', url, headers, body, connections, duration: seconds }, seconds * 1000 + 60_000),
  );
  const used = process.cpuUsage(cpu);
  const calls = run.ok;
  return {
    us: (used.user + used.system) / calls,
    kb: bytes / 1024 / calls,
    backendUs: ((cpuMsOf(backendPid) - backendMs) * 1000) / calls,
    p50: run.p50,
    calls,
  };
}

/**
 * One pass of proxy-ab or proxy-floor: every side in `order` loaded at `connections`, then each
 * again at 4 connections for its p50 when not saturated; each side's row gets `ratio`, its
 * forwarder's CPU per call (`row[cpuKey]`) over its backend's, and joins the side's `rows`.
 * `batch(side, connections, seconds)` is the client's own servedBatch call.
 */
export async function proxyPass(order, batch, { connections, seconds, cpuKey }) {
  const rows = new Map();
  for (const s of order) rows.set(s, await batch(s, connections, seconds));
  for (const s of order) rows.get(s).p50At4 = (await batch(s, 4, seconds)).p50;
  for (const s of order) {
    const row = rows.get(s);
    row.ratio = row[cpuKey] / row.backendUs;
    s.rows.push(row);
  }
}
