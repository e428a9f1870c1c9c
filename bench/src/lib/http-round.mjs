// One HTTP load round: a fresh server child, one checked request, a discarded warm-up, then the
// measured run from the autocannon child. Server CPU time and peak RSS come from /proc.

import { startServer } from './child.mjs';
import { serverSpec } from './servers.mjs';

/**
 * @param ctx        the scenario context (`ctx.load` is the autocannon worker)
 * @param server     a key of SERVERS, or a spec `{ program, args }`
 * @param request    `{ headers, body }` (lib/requests.mjs)
 * @param url        optional: load this URL instead of the server's (the proxy row)
 */
export async function httpRound(
  ctx,
  { server, args = [], request, session = false, expect, connections, warmup, duration },
) {
  const spec = typeof server === 'string' ? serverSpec(server, ctx.root) : server;
  const child = await startServer({ ...spec, args: [...(spec.args ?? []), ...args] });
  try {
    return await loadRound(ctx, {
      child,
      url: child.url,
      request,
      session,
      expect,
      connections,
      warmup,
      duration,
    });
  } finally {
    await child.kill();
  }
}

/**
 * The load part of a round against a running server (`child` is measured, `url` is loaded);
 * `observe`, another child (the proxy's backend), has its CPU per request measured over the same
 * run (`observedCpuUsPerRequest`).
 */
export async function loadRound(
  ctx,
  { child, url, request, session, expect, connections, warmup, duration, observe },
) {
  const timeout = (warmup + duration) * 1000 + 30_000;
  const prepared = await ctx.load.call({ type: 'prepare', url, request, session, expect }, 30_000);
  const job = {
    type: 'run',
    url,
    headers: prepared.headers,
    body: request.body,
    connections,
    idToken: session,
  };
  const idleRss = child.memory()?.rss;
  if (warmup > 0) await ctx.load.call({ ...job, duration: warmup }, timeout);
  await child.allocation('start');
  const cpuBefore = child.cpuMs();
  const observedBefore = observe?.cpuMs();
  const run = await ctx.load.call({ ...job, duration }, timeout);
  const cpuMs = child.cpuMs() - cpuBefore;
  const observedMs = observe === undefined ? undefined : observe.cpuMs() - observedBefore;
  const allocated = await child.allocation('stop');
  const memory = child.memory();
  return {
    rps: run.rps,
    p50: run.p50,
    p99: run.p99,
    cpuUsPerRequest: run.ok > 0 ? (cpuMs * 1000) / run.ok : undefined,
    observedCpuUsPerRequest:
      run.ok > 0 && observedMs !== undefined ? (observedMs * 1000) / run.ok : undefined,
    allocKbPerRequest: run.ok > 0 && allocated !== undefined ? allocated.bytes / run.ok / 1024 : undefined,
    peakRss: memory?.peakRss,
    idleRss,
    failures: run.errors + run.non2xx + run.timeouts,
    requests: run.ok,
  };
}
