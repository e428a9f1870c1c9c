import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Served, Wire } from './adapters.js';

/** What came back for one message sent raw: an HTTP status where there is one, and the JSON-RPC body. */
export interface Answer {
  readonly status?: number;
  readonly body: unknown;
}

/**
 * A peer that speaks an adapter's wire by hand, for what `@snodo/client` never sends (a batch) or
 * never does (stop reading). It opens a session first on the initialize-based revisions.
 */
export interface RawPeer {
  /** Sends one message (a batch is an array) and resolves with the answer to it. */
  send(message: unknown): Promise<Answer>;
  /** Ends the peer's side (stdio: EOF, then the child's exit). Idempotent. */
  close(): Promise<void>;
}

const INIT_PARAMS = (revision: string) => ({
  protocolVersion: revision,
  capabilities: {},
  clientInfo: { name: 'contract-raw', version: '1.0.0' },
});

/** JSON-RPC messages of an HTTP body: JSON, or the `data:` lines of an SSE stream. */
function bodyMessages(contentType: string | null, text: string): unknown {
  if (!contentType?.startsWith('text/event-stream')) return text === '' ? undefined : JSON.parse(text);
  const messages = text
    .split('\n')
    .filter((line) => line.startsWith('data:') && line.length > 5)
    .map((line) => JSON.parse(line.slice(5)) as unknown);
  return messages.at(-1);
}

export class HttpPeer implements RawPeer {
  #session: string | undefined;
  constructor(
    readonly url: string,
    readonly revision: string,
  ) {}

  headers(): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': this.revision,
      ...(this.#session === undefined ? {} : { 'mcp-session-id': this.#session }),
    };
  }

  async open(): Promise<this> {
    if (this.revision === '2026-07-28') return this;
    const response = await fetch(this.url, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: INIT_PARAMS(this.revision),
      }),
    });
    await response.text();
    this.#session = response.headers.get('mcp-session-id') ?? undefined;
    await this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return this;
  }

  async send(message: unknown): Promise<Answer> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify(message),
    });
    return {
      status: response.status,
      body: bodyMessages(response.headers.get('content-type'), await response.text()),
    };
  }

  /** The session's standalone GET stream (initialize-based revisions). */
  stream(): Promise<Response> {
    return fetch(this.url, { method: 'GET', headers: { ...this.headers(), accept: 'text/event-stream' } });
  }

  async delete(): Promise<number> {
    const response = await fetch(this.url, { method: 'DELETE', headers: this.headers() });
    await response.text();
    return response.status;
  }

  async close(): Promise<void> {}
}

export class StdioPeer implements RawPeer {
  readonly #child: ChildProcess;
  readonly #lines: AsyncIterator<string>;

  constructor(
    target: { command: string; args?: readonly string[]; env?: Readonly<Record<string, string | undefined>> },
    readonly revision: string,
    onStderr: (text: string) => void = () => {},
  ) {
    this.#child = spawn(target.command, [...(target.args ?? [])], {
      env: target.env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#child.stderr?.setEncoding('utf8').on('data', onStderr);
    this.#lines = createInterface({ input: this.#child.stdout as NodeJS.ReadableStream })[
      Symbol.asyncIterator
    ]();
  }

  async open(): Promise<this> {
    if (this.revision === '2026-07-28') return this;
    await this.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS(this.revision) });
    this.#child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    return this;
  }

  /** Writes one line and resolves with the next line that answers something (notifications are passed over). */
  async send(message: unknown): Promise<Answer> {
    this.#child.stdin?.write(`${JSON.stringify(message)}\n`);
    for (;;) {
      const next = await this.#lines.next();
      if (next.done) throw new Error('the stdio child closed its output');
      const body = JSON.parse(next.value) as unknown;
      if (Array.isArray(body) || (typeof body === 'object' && body !== null && 'id' in body)) return { body };
    }
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.#child.once('exit', resolve));
    this.#child.stdin?.end();
    if (this.#child.exitCode === null && this.#child.signalCode === null) await exited;
  }
}

/** A raw peer for `target` over `wire`, with its session open; undefined for the in-process wire (no bytes). */
export async function rawPeer(wire: Wire, served: Served, revision: string): Promise<RawPeer | undefined> {
  const { target } = served;
  if (wire === 'http' && 'http' in target) return new HttpPeer(String(target.http), revision).open();
  if (wire === 'stdio' && 'stdio' in target)
    return new StdioPeer(target.stdio, revision, served.connectOptions?.onStderr).open();
  return undefined;
}
