import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';

/** A child process of the cluster: `stop` asks it to end (SIGTERM), `kill` does not ask (SIGKILL). */
export interface Child {
  readonly name: string;
  readonly pid: number;
  /** Settles when the process has exited, with its exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export interface Listening extends Child {
  readonly port: number;
}

const require = createRequire(import.meta.url);
const DEMO = join(dirname(require.resolve('everything/package.json')), 'dist', 'main.js');

/** Installs Debian's package for `binary` when it is not on PATH (apt-get, as root). */
export function ensureInstalled(binary: string, debianPackage: string): void {
  try {
    execFileSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' });
  } catch {
    console.error(`cluster: ${binary} is missing; installing Debian's ${debianPackage}`);
    execFileSync(
      'sh',
      [
        '-c',
        `apt-get install -y ${debianPackage} || (apt-get update && apt-get install -y ${debianPackage})`,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
  }
}

/** A port free now on 127.0.0.1, for a program that cannot pick one and report it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** redis-server on 127.0.0.1:`port` (a free one by default), without persistence. */
export async function startRedis(port?: number): Promise<Listening & { readonly url: string }> {
  ensureInstalled('redis-server', 'redis-server');
  const chosen = port ?? (await freePort());
  const child = spawn(
    'redis-server',
    ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const handle = track('redis', child);
  await waitForLine(handle, child.stdout as Readable, /Ready to accept connections/);
  return { ...handle, port: chosen, url: `redis://127.0.0.1:${chosen}` };
}

/**
 * One demo server (examples/everything) on a port of its choosing, a member of the cluster that
 * `redisUrl` holds: `secret` is its SNODO_MRTR_SECRET (one secret, or several comma-separated);
 * `args` go to the demo's command line after `--redis` (e.g. `--tasks`).
 */
export async function startInstance(
  name: string,
  options: { redisUrl: string; secret: string; args?: readonly string[] },
): Promise<Listening & { readonly url: string }> {
  const args = [DEMO, '--port', '0', '--redis', options.redisUrl, ...(options.args ?? [])];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, SNODO_MRTR_SECRET: options.secret },
  });
  const handle = track(name, child);
  const [url] = await waitForLine(handle, child.stdout as Readable, /http:\/\/\S+/);
  return { ...handle, url: url as string, port: Number(new URL(url as string).port) };
}

/**
 * HAProxy on `host:port` in front of `servers`, round robin per request with no affinity:
 * `http-server-close` ends the server side after each response, so a client's keep-alive
 * connection does not pin it to one instance. Each response names its instance in
 * `x-snodo-instance`. A server that refuses connections is retried on another (`redispatch`) and
 * taken out by the health check; a request already sent is never sent again.
 */
export async function startBalancer(options: {
  port: number;
  host?: string;
  servers: readonly { name: string; port: number }[];
}): Promise<Listening & { readonly url: string }> {
  ensureInstalled('haproxy', 'haproxy');
  const host = options.host ?? '127.0.0.1';
  const dir = mkdtempSync(join(tmpdir(), 'snodo-cluster-'));
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'global',
      '  maxconn 4096',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      // Long enough for SSE streams between the servers' 15 s keepalives.
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout http-keep-alive 10s',
      '  option http-server-close',
      '  retries 2',
      '  option redispatch 1',
      'frontend mcp',
      `  bind ${host}:${options.port}`,
      '  default_backend instances',
      'backend instances',
      '  balance roundrobin',
      '  http-response set-header x-snodo-instance %s',
      ...options.servers.map(
        (server) => `  server ${server.name} 127.0.0.1:${server.port} check inter 500 fall 1 rise 2`,
      ),
      '',
    ].join('\n'),
  );
  const child = spawn('haproxy', ['-f', config, '-db'], { stdio: ['ignore', 'inherit', 'inherit'] });
  const handle = track('haproxy', child);
  handle.exited.finally(() => rmSync(dir, { recursive: true, force: true }));
  await waitForPort(handle, host, options.port);
  return { ...handle, port: options.port, url: `http://${host}:${options.port}/mcp` };
}

function track(name: string, child: ChildProcess): Child {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const signal = async (kind: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(kind);
    await exited;
  };
  return {
    name,
    pid: child.pid as number,
    exited,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
  };
}

/** Resolves with the first match of `pattern` on `stream`; rejects if the child exits first. */
function waitForLine(child: Child, stream: Readable, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = text.match(pattern);
      if (match) {
        stream.off('data', onData);
        stream.resume();
        resolve(match);
      }
    };
    stream.on('data', onData);
    child.exited.then((code) =>
      reject(new Error(`${child.name} exited (${code}) before it was ready:\n${text}`)),
    );
  });
}

/** Resolves once `host:port` accepts a connection (HAProxy says nothing when it is ready). */
async function waitForPort(child: Child, host: string, port: number): Promise<void> {
  let exited = false;
  child.exited.then(() => {
    exited = true;
  });
  for (;;) {
    if (exited) throw new Error(`${child.name} exited before it listened on ${host}:${port}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, host, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
