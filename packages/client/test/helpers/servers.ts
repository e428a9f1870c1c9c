import { type ChildProcess, spawn } from 'node:child_process';
import { ANNOUNCE_PRELOAD, DEMO_MAIN, EVERYTHING_ENTRY } from './paths.js';

export interface Started {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Waits for a line of the child's output matching `pattern` (the server says where it listens). */
function waitFor(
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
    const onExit = (code: number | null) =>
      reject(new Error(`server exited (${code}) before listening:\n${text}`));
    source?.on('data', onData);
    child.once('exit', onExit);
  });
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
}

/** The demo server over Streamable HTTP (`--port 0`; it prints its URL). */
export async function startDemoHttp(): Promise<Started> {
  const child = spawn(process.execPath, [DEMO_MAIN, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const [url] = await waitFor(child, 'stdout', /http:\/\/\S+/);
  return { url, child, stop: stopper(child) };
}

/** A Node script that listens on PORT=0 under the loopback preload, which announces the port. */
export async function startPinned(
  args: string[],
  path = '/mcp',
  env: Record<string, string> = {},
): Promise<Started> {
  const child = spawn(process.execPath, ['-r', ANNOUNCE_PRELOAD, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: '0', ...env },
  });
  child.stdout?.resume();
  const match = await waitFor(child, 'stderr', /LISTENING (\d+)/);
  return { url: `http://127.0.0.1:${match[1]}${path}`, child, stop: stopper(child) };
}

/** server-everything's Streamable HTTP transport, pinned to 127.0.0.1. */
export function startEverythingHttp(): Promise<Started> {
  return startPinned([EVERYTHING_ENTRY, 'streamableHttp']);
}
