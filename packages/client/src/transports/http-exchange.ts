/** One HTTP request through undici's `dispatch`: a JSON answer is collected whole, an SSE answer streams. */
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Body } from './http-util.js';

type Headers = Record<string, string | string[] | undefined>;

/** What `exchange` resolves with: a JSON answer once its body ended, an SSE answer at its headers. */
export interface Answer {
  readonly statusCode: number;
  readonly headers: Headers;
  /** A `Collected` body, whole, unless the answer is a 2xx `text/event-stream`: then a stream. */
  readonly body: Body;
}

/** The one request option `exchange` adds to undici's: the signal that aborts it. */
export interface ExchangeOptions {
  readonly path: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly signal: AbortSignal;
}

/**
 * A body read to its end into memory (at most `max` bytes: `push` says when it crossed the bound).
 * `exchange` resolves only once it is whole, so `text` is there to read without waiting.
 */
export class Collected implements Body {
  readonly #chunks: Buffer[] = [];
  #size = 0;
  #text = '';

  constructor(readonly max: number) {}

  /** The whole body as UTF-8 text. */
  get value(): string {
    return this.#text;
  }

  text(): Promise<string> {
    return Promise.resolve(this.#text);
  }

  /** A chunk arrived; false once the body crossed the bound (the chunk is not kept). */
  push(chunk: Buffer): boolean {
    this.#size += chunk.length;
    if (this.#size > this.max) return false;
    this.#chunks.push(chunk);
    return true;
  }

  end(): void {
    const chunks = this.#chunks;
    // One chunk (the common small answer) decodes in place; several are joined once, so a
    // character split between two reads is decoded whole.
    this.#text =
      chunks.length === 1
        ? (chunks[0] as Buffer).toString('utf8')
        : Buffer.concat(chunks, this.#size).toString('utf8');
    chunks.length = 0;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    yield Buffer.from(this.#text, 'utf8');
  }

  /** Nothing to stop: the body already ended. */
  destroy(): void {}

  on(): this {
    return this;
  }
}

function isEventStream(statusCode: number, headers: Headers): boolean {
  if (statusCode < 200 || statusCode >= 300) return false;
  const value = headers['content-type'];
  const type = Array.isArray(value) ? value[0] : value;
  if (type === undefined) return false;
  const semicolon = type.indexOf(';');
  return (semicolon < 0 ? type : type.slice(0, semicolon)).trim().toLowerCase() === 'text/event-stream';
}

/**
 * Sends one request on `dispatcher`. Lighter than undici's `request()` for the common answer (no
 * body stream, no async iteration): a JSON body is collected as it arrives, bounded by `max` bytes
 * (past it the request is aborted and the promise rejects with a RangeError, which the transport
 * reports as SNODO_ERR_MESSAGE_TOO_LARGE), and the promise resolves once the body ended, with a
 * `Collected` body. A 2xx `text/event-stream` answer resolves at its headers with a Node stream
 * (undici pauses the socket while the stream's buffer is full). Aborting `signal` aborts the
 * request at any point.
 */
export function exchange(dispatcher: Dispatcher, options: ExchangeOptions, max: number): Promise<Answer> {
  const { signal } = options;
  return new Promise<Answer>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const handler = new ExchangeHandler(signal, max, resolve, reject);
    signal.addEventListener('abort', handler, { once: true });
    dispatcher.dispatch(
      {
        path: options.path,
        method: options.method,
        headers: options.headers,
        ...(options.body === undefined ? {} : { body: options.body }),
      },
      handler,
    );
  });
}

/**
 * One request's undici handler, and its abort listener (`handleEvent`): one object per request
 * instead of a closure per callback.
 */
class ExchangeHandler implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | undefined = undefined;
  #reason: Error | undefined = undefined;
  #settled = false;
  #answer: { statusCode: number; headers: Headers; body: Collected } | undefined = undefined;
  #stream: Readable | undefined = undefined;
  #ended = false;

  constructor(
    readonly signal: AbortSignal,
    readonly max: number,
    readonly resolve: (answer: Answer) => void,
    readonly reject: (error: unknown) => void,
  ) {}

  #abort(error: Error): void {
    if (this.#reason === undefined) this.#reason = error;
    this.#controller?.abort(error);
  }

  /** The signal aborted. */
  handleEvent(): void {
    this.#abort((this.signal.reason as Error | undefined) ?? new Error('the request was aborted'));
  }

  #finish(): void {
    this.#ended = true;
    this.signal.removeEventListener('abort', this);
  }

  onRequestStart(started: Dispatcher.DispatchController): void {
    this.#controller = started;
    if (this.#reason !== undefined) started.abort(this.#reason);
  }

  onResponseStart(started: Dispatcher.DispatchController, statusCode: number, headers: Headers): void {
    // 1xx informational answers come before the real one.
    if (statusCode < 200) return;
    if (!isEventStream(statusCode, headers)) {
      this.#answer = { statusCode, headers, body: new Collected(this.max) };
      return;
    }
    this.#stream = new Readable({
      read: () => started.resume(),
      destroy: (error, callback) => {
        if (!this.#ended) this.#abort(error ?? new Error('the response stream was closed'));
        callback(error);
      },
    });
    this.#settled = true;
    this.resolve({ statusCode, headers, body: this.#stream as unknown as Body });
  }

  onResponseData(started: Dispatcher.DispatchController, chunk: Buffer): void {
    const answer = this.#answer;
    if (answer) {
      if (!answer.body.push(chunk))
        this.#abort(new RangeError(`the response body exceeds ${this.max} bytes`));
    } else if (this.#stream && !this.#stream.push(chunk)) started.pause();
  }

  onResponseEnd(): void {
    this.#finish();
    const answer = this.#answer;
    if (answer) {
      answer.body.end();
      this.#settled = true;
      this.resolve(answer);
    } else this.#stream?.push(null);
  }

  onResponseError(_started: Dispatcher.DispatchController, error: Error): void {
    this.#finish();
    const failure = this.#reason ?? error;
    if (!this.#settled) this.reject(failure);
    else this.#stream?.destroy(failure);
  }
}
