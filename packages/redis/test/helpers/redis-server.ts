import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A real redis-server child on 127.0.0.1 (no persistence), which a test can kill and restart on the same port. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** SIGKILL: connections drop at once, data is gone (no persistence). Resolves when it exited. */
  kill(): Promise<void>;
  /** Starts it again on the same port; resolves when it accepts connections. */
  restart(): Promise<void>;
  /** Sends a command with redis-cli, for what a test checks behind the package's back. */
  cli(...args: string[]): string;
  stop(): Promise<void>;
}

/** Installs Debian's redis-server when it is missing (we are root on the test machines). */
export function ensureRedisServer(): void {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    execFileSync(
      'sh',
      ['-c', 'apt-get install -y redis-server || (apt-get update && apt-get install -y redis-server)'],
      {
        stdio: 'inherit',
      },
    );
  }
}

/** A port free now on 127.0.0.1 (redis-server cannot be told to pick one and report it). */
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

export async function startRedis(): Promise<RedisServer> {
  ensureRedisServer();
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const process = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      child = process;
      let output = '';
      process.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          process.stdout?.removeAllListeners('data');
          process.stdout?.resume();
          resolve();
        }
      });
      process.once('exit', (code) =>
        reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)),
      );
    });
  const exit = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill: exit,
    restart: start,
    cli: (...args) => execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).trim(),
    stop: exit,
  };
}
