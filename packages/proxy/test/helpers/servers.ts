import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Target } from '@snodo/client';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/** The Snodo demo server (examples/everything), built before these tests run (turbo, or `globalSetup`). */
export const DEMO_MAIN = join(dirname(require.resolve('everything/package.json')), 'dist', 'main.js');
/** `@modelcontextprotocol/server-everything`: a server built by someone else (the official v1 SDK). */
export const EVERYTHING_MAIN = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
export const LOOPBACK = join(here, 'loopback.cjs');

export const demoStdio = (): Target => ({
  stdio: { command: process.execPath, args: [DEMO_MAIN, '--stdio'] },
});
export const everythingStdio = (): Target => ({
  stdio: { command: process.execPath, args: [EVERYTHING_MAIN, 'stdio'] },
});

export interface Started {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** SIGTERM, resolved once it exited. */
  stop(): Promise<void>;
  /** SIGKILL, resolved once it exited. */
  kill(): Promise<void>;
}

/** Resolves with the first match of `pattern` in the child's output (where it says it listens). */
export function waitForOutput(
  child: ChildProcess,
  stream: 'stdout' | 'stderr',
  pattern: RegExp,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const source = child[stream];
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = text.match(pattern);
      if (match) {
        source?.off('data', onData);
        child.off('exit', onExit);
        resolve(match);
      }
    };
    const onExit = (code: number | null) => reject(new Error(`exited (${code}) before ${pattern}:\n${text}`));
    source?.on('data', onData);
    child.once('exit', onExit);
  });
}

function ender(child: ChildProcess, signal: NodeJS.Signals): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
}

function started(child: ChildProcess, port: number, path = '/mcp'): Started {
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    child,
    stop: ender(child, 'SIGTERM'),
    kill: ender(child, 'SIGKILL'),
  };
}

/** The demo server over Streamable HTTP on 127.0.0.1 (`port` 0: any free one). */
export async function startDemoHttp(port = 0): Promise<Started> {
  const child = spawn(process.execPath, [DEMO_MAIN, '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [url] = await waitForOutput(child, 'stdout', /http:\/\/127\.0\.0\.1:(\d+)\/mcp/);
  return started(child, Number(new URL(url).port));
}

/** server-everything's (stateful, 2025-era) Streamable HTTP transport, pinned to 127.0.0.1. */
export async function startEverythingHttp(port = 0): Promise<Started> {
  const child = spawn(process.execPath, ['-r', LOOPBACK, EVERYTHING_MAIN, 'streamableHttp'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: String(port) },
  });
  const match = await waitForOutput(child, 'stderr', /LISTENING (\d+)/);
  return started(child, Number(match[1]));
}
