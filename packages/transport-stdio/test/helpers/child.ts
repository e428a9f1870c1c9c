import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { DEMO_MAIN } from './paths.js';

export const MODERN = '2026-07-28';

/** Any JSON-RPC message the server wrote. */
export type Message = Record<string, any>;

interface Waiter {
  match: (message: Message) => boolean;
  resolve: (message: Message) => void;
}

/**
 * The demo server as a real child process (`node examples/everything/dist/main.js --stdio`),
 * spoken to over its pipes. Every stdout line is kept, raw and parsed, so tests can check the
 * bytes, count responses per id, and wait for a specific message (never for a duration).
 */
export class DemoChild {
  readonly process: ChildProcessWithoutNullStreams;
  /** Every line written to stdout, in order, without its newline. */
  readonly lines: string[] = [];
  readonly messages: Message[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #partial = '';
  #waiters: Waiter[] = [];
  #nextId = 1;

  constructor(args: string[] = []) {
    this.process = spawn(process.execPath, [DEMO_MAIN, '--stdio', ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.process.stdout.setEncoding('utf8');
    this.process.stdout.on('data', (text: string) => this.#onStdout(text));
    this.process.stderr.setEncoding('utf8');
    this.process.stderr.on('data', (text: string) => {
      this.stderr += text;
    });
    // A server that exits early must not crash the test with EPIPE: the assertions report it.
    this.process.stdin.on('error', () => {});
    this.exited = once(this.process, 'exit').then(([code, signal]) => ({ code, signal }));
  }

  get pid(): number {
    return this.process.pid as number;
  }

  /** Writes one message (an object is encoded; a string is sent as is) and its newline. */
  send(message: object | string): Promise<void> {
    const line = typeof message === 'string' ? message : JSON.stringify(message);
    return this.write(`${line}\n`);
  }

  /** Writes raw bytes; settles when the pipe accepted them (so the child has read all but the pipe's buffer). */
  write(data: string | Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      this.process.stdin.write(data, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Sends a request and resolves with its response. */
  async request(method: string, params?: Record<string, unknown>): Promise<Message> {
    const id = this.#nextId++;
    const response = this.next((m) => m.id === id && !('method' in m));
    await this.send(
      params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
    );
    return response;
  }

  /** The first message (already received or still to come) matching `match`. */
  next(match: (message: Message) => boolean): Promise<Message> {
    const seen = this.messages.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  /** Resolves once `count` messages match. */
  async count(match: (message: Message) => boolean, count: number): Promise<Message[]> {
    for (;;) {
      const found = this.messages.filter(match);
      if (found.length >= count) return found;
      await this.next((m) => match(m) && !found.includes(m));
    }
  }

  /** Closes stdin (EOF) and waits for the exit. */
  async end(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.process.stdin.end();
    return this.exited;
  }

  kill(): void {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill('SIGKILL');
  }

  /** A field of /proc/<pid>/status in KiB (VmRSS, VmHWM). */
  procStatus(field: 'VmRSS' | 'VmHWM'): number {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const found = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!found) throw new Error(`no ${field} in /proc/${this.pid}/status`);
    return Number(found[1]);
  }

  /** The executor counters the demo prints with --stats when serving ends. */
  stats(): Record<string, number> {
    const found = /executor stats (\{.*\})/.exec(this.stderr);
    if (!found) throw new Error(`no executor stats on stderr:\n${this.stderr}`);
    return JSON.parse(found[1] as string);
  }

  #onStdout(text: string): void {
    const parts = (this.#partial + text).split('\n');
    this.#partial = parts.pop() ?? '';
    for (const line of parts) {
      this.lines.push(line);
      const message = JSON.parse(line) as Message;
      this.messages.push(message);
      this.#waiters = this.#waiters.filter((waiter) => {
        if (!waiter.match(message)) return true;
        waiter.resolve(message);
        return false;
      });
    }
  }
}

/** A 2026-07-28 request (stateless: the revision and capabilities travel in `_meta`). */
export function modern(
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
) {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'stdio-test', version: '0' },
        ...meta,
      },
    },
  };
}

export function callTool(
  id: number | string,
  name: string,
  args: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
) {
  return modern(id, 'tools/call', { name, arguments: args }, meta);
}

export function cancelled(requestId: number | string) {
  return { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'test' } };
}

export const isResponseTo =
  (id: unknown) =>
  (message: Message): boolean =>
    message.id === id && !('method' in message);
