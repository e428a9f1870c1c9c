/** One HTTP request through undici's `dispatch`: a JSON answer is collected whole, an SSE answer streams. */
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Body } from './http-util.js';

type Headers = Record<string, string | string[] | undefined>;

/** What `exchange` resolves with once the status line and headers arrived. */
export interface Answer {
  readonly statusCode: number;
  readonly headers: Headers;
  /** Collected (`Collected`) unless the answer is a 2xx `text/event-stream`: then a stream. */
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
 * A body read to its end into memory, at most `max` bytes. Past the bound the request is aborted
 * and `text()` rejects with a RangeError (the transport reports it as SNODO_ERR_MESSAGE_TOO_LARGE).
 */
export class Collected implements Body {
  readonly #chunks: Buffer[] = [];
  #size = 0;
  #text: Promise<string>;
  #settle!: { resolve(text: string): void; reject(error: Error): void };
  #abort: ((reason: Error) => void) | undefined;

  constructor(readonly max: number) {
    this.#text = new Promise((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    // Nobody may ever read a body that is discarded: its failure must not be unhandled.
    this.#text.catch(() => {});
  }

  /** The whole body as UTF-8 text, once it ended. */
  text(): Promise<string> {
    return this.#text;
  }

  /** A chunk arrived; false once it crossed the bound (the request is then aborted). */
  push(chunk: Buffer): boolean {
    this.#size += chunk.length;
    if (this.#size > this.max) {
      this.fail(new RangeError(`the response body exceeds ${this.max} bytes`));
      return false;
    }
    this.#chunks.push(chunk);
    return true;
  }

  end(): void {
    const chunks = this.#chunks;
    // One chunk (the common small answer) decodes in place; several are joined once.
    const text =
      chunks.length === 1
        ? (chunks[0] as Buffer).toString('utf8')
        : Buffer.concat(chunks, this.#size).toString('utf8');
    chunks.length = 0;
    this.#settle.resolve(text);
  }

  fail(error: Error): void {
    this.#chunks.length = 0;
    this.#settle.reject(error);
    const abort = this.#abort;
    this.#abort = undefined;
    abort?.(error);
  }

  /** @internal the exchange's way to stop the request when the body is discarded or too large. */
  bind(abort: (reason: Error) => void): void {
    this.#abort = abort;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    yield Buffer.from(await this.#text, 'utf8');
  }

  destroy(): void {
    this.fail(new Error('the response body was discarded'));
  }

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
 * Sends one request on `dispatcher` and resolves with its status and headers; rejects when it
 * fails before them. Lighter than undici's `request()` for the common answer (no body stream,
 * no async iteration): a JSON body is collected as it arrives, bounded by `max` bytes. A 2xx
 * `text/event-stream` body is a Node stream with backpressure (undici pauses the socket while the
 * stream's buffer is full). Aborting `signal` aborts the request, before or after the headers.
 */
export function exchange(dispatcher: Dispatcher, options: ExchangeOptions, max: number): Promise<Answer> {
  const { signal } = options;
  return new Promise<Answer>((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let reason: Error | undefined;
    let answered = false;
    let collected: Collected | undefined;
    let stream: Readable | undefined;
    let ended = false;

    const abort = (error: Error) => {
      if (reason === undefined) reason = error;
      controller?.abort(error);
    };
    const onAbort = () => abort(signal.reason ?? new Error('the request was aborted'));
    const finish = () => signal.removeEventListener('abort', onAbort);
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        if (reason !== undefined) started.abort(reason);
      },
      onResponseStart(started, statusCode, headers) {
        // 1xx informational answers come before the real one.
        if (statusCode < 200) return;
        answered = true;
        const typed = headers as Headers;
        let body: Body;
        if (isEventStream(statusCode, typed)) {
          stream = new Readable({
            read: () => started.resume(),
            destroy: (error, callback) => {
              if (!ended) abort(error ?? new Error('the response stream was closed'));
              callback(error);
            },
          });
          body = stream as unknown as Body;
        } else {
          collected = new Collected(max);
          collected.bind(abort);
          body = collected;
        }
        resolve({ statusCode, headers: typed, body });
      },
      onResponseData(started, chunk) {
        if (collected) collected.push(chunk);
        else if (stream && !stream.push(chunk)) started.pause();
      },
      onResponseEnd() {
        ended = true;
        finish();
        if (collected) collected.end();
        else stream?.push(null);
      },
      onResponseError(_started, error) {
        ended = true;
        finish();
        const failure = reason ?? error;
        if (!answered) reject(failure);
        else if (collected) collected.fail(failure);
        else stream?.destroy(failure);
      },
    };
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
