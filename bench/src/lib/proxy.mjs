// The proxy row: a backend (Snodo's listener with the demo server), snodo-proxy in front of it from
// a config written for the run (port 0, one HTTP backend, empty prefix so the tool keeps its name
// `echo`), and the load sent to the proxy. The proxy process is the one measured (CPU, peak RSS).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './child.mjs';
import { loadRound } from './http-round.mjs';
import { echo } from './requests.mjs';
import { SERVERS } from './servers.mjs';

export async function proxyRound(ctx, { cli, load }) {
  const backend = await startServer(SERVERS.snodo);
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
      readyLine: /listening on (http:\/\/\S+)/,
    });
    const backendCpu = backend.cpuMs();
    const values = await loadRound(ctx, {
      child: proxy,
      url: proxy.url,
      request: echo('modern', 'hi'),
      ...load,
    });
    return { ...values, backendCpuMs: backend.cpuMs() - backendCpu };
  } finally {
    await proxy?.kill();
    await backend.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
