import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createInterface, type Interface } from 'node:readline';
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

/** A subscription whose reader does not read: the server's writes back up to it. */
export interface SlowSubscription {
  /** Reads what the stream still holds until the server ends it; resolves with the messages read. */
  drain(): Promise<unknown[]>;
}

/** A call whose answer stream this peer leaves unread until `drain`. */
export interface SlowCall {
  /** Reads the answer stream to its end; resolves with its messages, in order. */
  drain(): Promise<unknown[]>;
}

/** The `_meta` a 2026-07-28 request carries (it has no session to hold them). */
export const modernMeta = (revision: string) => ({
  'io.modelcontextprotocol/protocolVersion': revision,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'contract-raw', version: '1.0.0' },
});

/** The JSON-RPC messages of SSE text (its `data:` lines). */
function sseMessages(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:') && line.length > 5)
    .map((line) => JSON.parse(line.slice(5)) as unknown);
}

/** JSON-RPC messages of an HTTP body: JSON, or the `data:` lines of an SSE stream. */
function bodyMessages(contentType: string | null, text: string): unknown {
  if (!contentType?.startsWith('text/event-stream')) return text === '' ? undefined : JSON.parse(text);
  return sseMessages(text).at(-1);
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

  /**
   * A subscription to `uri` on a stream this peer leaves unread: 2026-07-28 a `subscriptions/listen`
   * POST, before it `resources/subscribe` and the session's GET stream. node:http's client stops
   * reading the socket once its small buffer is full, so the server's writes back up.
   */
  async slowSubscription(uri: string): Promise<SlowSubscription> {
    const modern = this.revision === '2026-07-28';
    if (!modern) {
      const subscribed = await this.send({
        jsonrpc: '2.0',
        id: 'sub',
        method: 'resources/subscribe',
        params: { uri },
      });
      if (subscribed.status !== 200) throw new Error(`resources/subscribe: ${JSON.stringify(subscribed)}`);
    }
    const body = modern
      ? JSON.stringify({
          jsonrpc: '2.0',
          id: 'slow',
          method: 'subscriptions/listen',
          params: { notifications: { resourceSubscriptions: [uri] }, _meta: modernMeta(this.revision) },
        })
      : undefined;
    const response = await unread(
      this.url,
      modern
        ? { ...this.headers(), 'mcp-method': 'subscriptions/listen' }
        : { ...this.headers(), accept: 'text/event-stream' },
      body,
    );
    return {
      async drain() {
        const text = await readAll(response);
        // The server may cut the stream instead of ending it: the events that arrived whole count.
        return sseMessages(text.slice(0, text.lastIndexOf('\n\n') + 1));
      },
    };
  }

  /**
   * A `tools/call` of `name` asking for progress (token `id`), whose answer stream this peer
   * leaves unread: the server's writes back up to it.
   */
  async slowCall(id: string, name: string, args: Record<string, unknown>): Promise<SlowCall> {
    const modern = this.revision === '2026-07-28';
    const meta = modern ? { ...modernMeta(this.revision), progressToken: id } : { progressToken: id };
    const response = await unread(
      this.url,
      modern ? { ...this.headers(), 'mcp-method': 'tools/call', 'mcp-name': name } : this.headers(),
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: args, _meta: meta },
      }),
    );
    if (!String(response.headers['content-type']).startsWith('text/event-stream'))
      throw new Error(`the slow call got ${response.headers['content-type']}: ${await readAll(response)}`);
    return { drain: async () => sseMessages(await readAll(response)) };
  }

  async delete(): Promise<number> {
    const response = await fetch(this.url, { method: 'DELETE', headers: this.headers() });
    await response.text();
    return response.status;
  }

  async close(): Promise<void> {}
}

/**
 * Sends one request with node:http, whose client stops reading the socket once its small buffer is
 * full (until the body is read), and resolves with the response once its head arrived (200 only).
 */
async function unread(
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<IncomingMessage> {
  const request = httpRequest(url, { method: body === undefined ? 'GET' : 'POST', headers });
  request.end(body);
  const [response] = (await once(request, 'response')) as [IncomingMessage];
  if (response.statusCode !== 200)
    throw new Error(`the slow stream got ${response.statusCode}: ${await readAll(response)}`);
  return response;
}

/** The body's text until it ends, or until the server cuts it. */
async function readAll(response: IncomingMessage): Promise<string> {
  let text = '';
  response.setEncoding('utf8');
  try {
    for await (const chunk of response) text += chunk;
  } catch {
    // Cut by the server: what arrived is the text.
  }
  return text;
}

export class StdioPeer implements RawPeer {
  readonly #child: ChildProcess;
  readonly #reader: Interface;
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
    // Writing to a child that already exited (a scenario that ends serving) is not this peer's failure.
    this.#child.stdin?.on('error', () => {});
    this.#reader = createInterface({ input: this.#child.stdout as NodeJS.ReadableStream });
    this.#lines = this.#reader[Symbol.asyncIterator]();
  }

  /** Writes one message line without waiting for anything. */
  write(message: unknown): void {
    this.#child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  /** Stops reading the child's stdout: its writes fill the pipe, then block. */
  stopReading(): void {
    this.#reader.pause();
    this.#child.stdout?.pause();
  }

  /** Reads the child's stdout again after `stopReading`. */
  resumeReading(): void {
    this.#child.stdout?.resume();
    this.#reader.resume();
  }

  /** Reads lines until the response to `id`; resolves with every message read, that response last. */
  async readUntil(id: unknown): Promise<unknown[]> {
    const messages: unknown[] = [];
    for (;;) {
      const next = await this.#lines.next();
      if (next.done) throw new Error('the stdio child closed its output');
      const message = JSON.parse(next.value) as { id?: unknown; method?: unknown };
      messages.push(message);
      if (message.id === id && message.method === undefined) return messages;
    }
  }

  /** A subscription to `uri` (2026-07-28 `subscriptions/listen`; before, `resources/subscribe`). */
  async subscribe(uri: string): Promise<void> {
    if (this.revision !== '2026-07-28') {
      await this.send({ jsonrpc: '2.0', id: 'sub', method: 'resources/subscribe', params: { uri } });
      return;
    }
    this.write({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'subscriptions/listen',
      params: { notifications: { resourceSubscriptions: [uri] }, _meta: modernMeta(this.revision) },
    });
  }

  async open(): Promise<this> {
    if (this.revision === '2026-07-28') return this;
    await this.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS(this.revision) });
    this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return this;
  }

  /** Writes one line and resolves with the next line that answers something (notifications are passed over). */
  async send(message: unknown): Promise<Answer> {
    this.write(message);
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
