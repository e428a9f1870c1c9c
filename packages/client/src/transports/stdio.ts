import { type ChildProcess, spawn } from 'node:child_process';
import {
  type DecodeLimits,
  decodeMessage,
  encodeJson,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '@snodo/core';
import {
  DEFAULT_EXIT_TIMEOUT,
  DEFAULT_MAX_LINE_BYTES,
  DEFAULT_TERM_TIMEOUT,
  STDERR_TAIL_CHARS,
} from '../defaults.js';
import { transportError } from '../errors.js';
import {
  type ClientTransport,
  type OwnSendOptions,
  TAKES_SIGNAL_LIKE,
  type TransportSink,
} from '../transport.js';
import type { OversizedLine } from './id-scanner.js';
import { LineSplitter } from './lines.js';
import { PendingRequests } from './pending.js';

export interface StdioTarget {
  command: string;
  args?: readonly string[];
  /** The child's whole environment. Default: PATH, HOME, USER, LOGNAME, SHELL, TERM, TMPDIR, LANG of this process. */
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
}

export interface StdioOptions {
  /** Receives the server's stderr, decoded as UTF-8 (it is free-form logging, never an error signal). */
  onStderr?: (text: string) => void;
  /**
   * Bytes of one stdout line (newline excluded). A longer one is never held: an answer fails its
   * request with SNODO_ERR_MESSAGE_TOO_LARGE, anything else is skipped with a warning. Default 2,000,000.
   */
  maxLineBytes?: number;
  /** JSON decoding bounds, as the server applies them (`decodeMessage`). */
  decodeLimits?: DecodeLimits;
  /** Shutdown: ms to wait for the server to exit after stdin closes, before SIGTERM. Default 2,000. */
  exitTimeout?: number;
  /** Shutdown: ms to wait after SIGTERM before SIGKILL. Default 2,000. */
  termTimeout?: number;
}

const INHERITED_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'TMPDIR', 'LANG', 'SYSTEMROOT'];

function defaultEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return env;
}

/**
 * Spawns an MCP server and speaks newline-delimited JSON-RPC on its stdin/stdout. Lines are decoded
 * with core's `decodeMessage` under the same bounds the server side applies. Lines that are not
 * JSON-RPC are skipped with a warning (the call they were meant to answer then times out, and the
 * error names the last bad line); the process exiting fails every pending call.
 */
export class StdioTransport implements ClientTransport {
  readonly kind = 'stdio';
  readonly [TAKES_SIGNAL_LIKE] = true;
  readonly probeNeedsTimeout = true;
  readonly #target: StdioTarget;
  readonly #options: StdioOptions;
  readonly #pending = new PendingRequests();
  readonly #maxLineBytes: number;
  #child: ChildProcess | undefined;
  #sink: TransportSink | undefined;
  #stderrTail = '';
  #lastInvalid: string | undefined;
  #exited: Promise<void> | undefined;
  #failure: Error | undefined;
  #closing = false;

  constructor(target: StdioTarget, options: StdioOptions = {}) {
    this.#target = target;
    this.#options = options;
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  /** The server's process id (undefined before `open`). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the server process ended: `{ code, signal }`, or undefined while it runs. */
  get exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    const child = this.#child;
    if (!child || (child.exitCode === null && child.signalCode === null)) return undefined;
    return { code: child.exitCode, signal: child.signalCode };
  }

  /** The last stdout line that was not JSON-RPC, for error messages. */
  get lastInvalidOutput(): string | undefined {
    return this.#lastInvalid;
  }

  async open(sink: TransportSink): Promise<void> {
    this.#sink = sink;
    const { command, args = [], env, cwd } = this.#target;
    const child = spawn(command, [...args], {
      env: env === undefined ? defaultEnv() : (env as NodeJS.ProcessEnv),
      ...(cwd === undefined ? {} : { cwd }),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.#child = child;
    const splitter = new LineSplitter(
      this.#maxLineBytes,
      (line) => this.#onLine(line),
      (line) => this.#onOversized(line),
    );
    child.stdout?.on('data', (chunk: Buffer) => splitter.push(chunk));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL_CHARS);
      this.#options.onStderr?.(text);
    });
    // EPIPE after the child died is reported through 'exit'; nothing to do here.
    child.stdin?.on('error', () => {});
    let spawnFailed!: () => void;
    this.#exited = new Promise<void>((resolve) => {
      spawnFailed = resolve;
      child.once('exit', (code, signal) => {
        const error = transportError(
          this.#closing ? 'SNODO_ERR_CLOSED' : 'SNODO_ERR_CONNECTION_CLOSED',
          `the stdio server exited (${signal ? `signal ${signal}` : `code ${code}`})${this.#stderrHint()}`,
          { exitCode: code, signal, stderr: this.#stderrTail },
        );
        this.#failure = error;
        this.#pending.failAll(error);
        sink.closed(this.#closing ? undefined : error);
        resolve();
      });
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (cause) => {
        const error = transportError('SNODO_ERR_SPAWN', `${command}: ${cause.message}`, { cause });
        this.#failure = error;
        this.#pending.failAll(error);
        // No process, so no 'exit' will come: close() has nothing to wait for.
        spawnFailed();
        reject(error);
      });
    });
  }

  #stderrHint(): string {
    const tail = this.#stderrTail.trim().split('\n').slice(-3).join(' | ');
    return tail === '' ? '' : `; stderr: ${tail.slice(-500)}`;
  }

  #onLine(line: Buffer): void {
    const decoded = decodeMessage(line, this.#options.decodeLimits);
    if (decoded.kind === 'response') {
      const response = decoded.message as unknown as JsonRpcResponse;
      if (!this.#pending.settle(response)) {
        this.#sink?.warning(`stdio: dropped a response to no pending request (id ${String(decoded.id)})`);
      }
      return;
    }
    if (decoded.kind === 'request' || decoded.kind === 'notification') {
      this.#sink?.message(decoded.message as unknown as JsonRpcRequest | JsonRpcNotification);
      return;
    }
    const text = line.toString('utf8');
    this.#lastInvalid = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    this.#sink?.warning(
      `stdio: skipped output that is not a JSON-RPC message (${decoded.kind === 'invalid' ? decoded.error.message : 'a batch'}): ${this.#lastInvalid}`,
    );
  }

  /**
   * A line longer than maxLineBytes was skipped. An answer fails the request it names, at once; a
   * server request is refused (-32600, as the stdio server refuses an oversized line); anything
   * else (a notification, or output that names no request) is a warning, and a call it was meant
   * to answer ends at its own deadline, whose error quotes this.
   */
  #onOversized(line: OversizedLine): void {
    const what = `a line of ${line.bytes} bytes, longer than maxLineBytes (${this.#maxLineBytes})`;
    if (line.kind === 'response' && line.id !== undefined) {
      const error = transportError('SNODO_ERR_MESSAGE_TOO_LARGE', `the answer is ${what}`, {
        limit: this.#maxLineBytes,
      });
      if (this.#pending.fail(line.id, error)) return;
    }
    if (line.kind === 'request' && line.id !== undefined) {
      this.#sink?.warning(`stdio: refused a server request (id ${String(line.id)}): ${what}`);
      try {
        this.#write({
          jsonrpc: '2.0',
          id: line.id,
          error: {
            code: -32600,
            message: `Invalid Request: ${what}`,
            data: { maxLineBytes: this.#maxLineBytes },
          },
        });
      } catch {
        // The process is gone.
      }
      return;
    }
    this.#lastInvalid = `(${what})`;
    this.#sink?.warning(
      line.kind === 'notification'
        ? `stdio: skipped a notification longer than maxLineBytes (${line.bytes} bytes)`
        : `stdio: skipped ${what} that names no pending request`,
    );
  }

  #write(message: JsonRpcRequest | JsonRpcNotification | JsonRpcResponse): void {
    if (this.#failure) throw this.#failure;
    const stdin = this.#child?.stdin;
    if (!stdin || stdin.destroyed || stdin.writableEnded) {
      throw transportError('SNODO_ERR_CLOSED', 'stdin of the stdio server is closed');
    }
    // Core's encoder keeps big-integer ids exact; JSON never contains a raw newline.
    stdin.write(`${encodeJson(message)}\n`);
  }

  request(request: JsonRpcRequest, options: OwnSendOptions): Promise<JsonRpcResponse> {
    if (this.#failure) return Promise.reject(this.#failure);
    const response = this.#pending.wait(request.id, options.signal, () => {
      // Late responses are dropped by the pending table; tell the server to stop (not for initialize).
      if (request.method === 'initialize') return;
      const reason = options.signal.reason;
      try {
        this.#write({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: {
            requestId: request.id,
            ...(reason instanceof Error ? { reason: reason.message } : {}),
          },
        });
      } catch {
        // The process is gone: nothing to cancel.
      }
    });
    try {
      this.#write(request);
    } catch (error) {
      this.#pending.fail(request.id, error);
    }
    return response;
  }

  async notify(notification: JsonRpcNotification): Promise<void> {
    this.#write(notification);
  }

  async respond(response: JsonRpcResponse): Promise<void> {
    this.#write(response);
  }

  /** Closes stdin, waits `exitTimeout`, then SIGTERM, waits `termTimeout`, then SIGKILL. Idempotent. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || !this.#exited) return;
    this.#closing = true;
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return this.#exited;
    child.stdin?.end();
    const exitTimeout = this.#options.exitTimeout ?? DEFAULT_EXIT_TIMEOUT;
    const termTimeout = this.#options.termTimeout ?? DEFAULT_TERM_TIMEOUT;
    if (await exitsWithin(this.#exited, exitTimeout)) return;
    child.kill('SIGTERM');
    if (await exitsWithin(this.#exited, termTimeout)) return;
    child.kill('SIGKILL');
    await this.#exited;
  }
}

function exitsWithin(exited: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    exited.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
