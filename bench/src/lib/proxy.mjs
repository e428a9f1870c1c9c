// The proxy row: a backend (Snodo's listener with the demo server), snodo-proxy in front of it from
// a config written for the run (port 0, one HTTP backend, empty prefix so the tool keeps its name
// `echo`), and the load sent to the proxy. The proxy process is the one measured (CPU, peak RSS);
// the backend's CPU over the same calls is measured too, so the proxy's cost per forwarded call
// can be set against the backend's own.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './child.mjs';
import { loadRound } from './http-round.mjs';
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
