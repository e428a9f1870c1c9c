import { refusal } from './responses.js';
import type { HttpJsonResponse } from './types.js';

/**
 * The one body policy of every HTTP host (listener, `node`, `fetch`, Fastify): a declared
 * `Content-Length` over `maxBodyBytes` is refused before any byte is read; a body without one
 * (chunked, or a stream a host hook produced) is counted as it arrives and accepted up to
 * `maxBodyBytes`; one more byte is 413; a body not complete `bodyTimeout` ms after reading starts
 * is 408 (0 disables the deadline); a body whose sender went away is `aborted` (no answer is due).
 */
export interface BodyLimits {
  readonly maxBodyBytes: number;
  readonly bodyTimeout: number;
}

export type BodyFailure = 'too-large' | 'timeout' | 'aborted';
export type BodyResult =
  | { readonly ok: true; readonly body: Uint8Array }
  | { readonly ok: false; readonly reason: BodyFailure };

/** A Node.js `Readable` (an `IncomingMessage`), by shape: core imports nothing from Node. */
export interface NodeBodySource {
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'end' | 'error' | 'close', listener: () => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  pause(): unknown;
  readonly readableEnded?: boolean;
}

/** A WHATWG `ReadableStream` of bytes (a `Request` body), by shape. */
export interface WebBodySource {
  getReader(): {
    read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
    cancel(reason?: unknown): Promise<void>;
  };
}

const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();

/** Reads a body under `limits` (see `BodyLimits`). `source` undefined or null: an empty body. */
export function readBody(
  source: NodeBodySource | WebBodySource | null | undefined,
  declaredLength: string | undefined,
  limits: BodyLimits,
): Promise<BodyResult> {
  if (declaredLength !== undefined && Number(declaredLength) > limits.maxBodyBytes) {
    return Promise.resolve({ ok: false, reason: 'too-large' });
  }
  if (source === undefined || source === null) return Promise.resolve({ ok: true, body: EMPTY });
  const collector = new Collector(limits);
  return 'getReader' in source ? collector.pull(source) : collector.listen(source);
}

/** The refusal a failed body read gets; `aborted` has none (the client is gone). */
export function bodyRefusal(reason: Exclude<BodyFailure, 'aborted'>, limits: BodyLimits): HttpJsonResponse {
  return reason === 'too-large'
    ? refusal('SNODO_ERR_BODY_TOO_LARGE', null, `Body exceeds ${limits.maxBodyBytes} bytes`)
    : refusal('SNODO_ERR_BODY_TIMEOUT', null, 'Request body timeout');
}

/** Counts chunks against the limit and runs the deadline; `settle` is called once. */
class Collector {
  readonly #chunks: Uint8Array[] = [];
  #size = 0;

  constructor(readonly limits: BodyLimits) {}

  /** Adds a chunk; false once the body is over the limit. */
  add(chunk: Uint8Array | string): boolean {
    const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    this.#size += bytes.byteLength;
    if (this.#size > this.limits.maxBodyBytes) return false;
    this.#chunks.push(bytes);
    return true;
  }

  body(): Uint8Array {
    if (this.#chunks.length === 1) return this.#chunks[0] as Uint8Array;
    const body = new Uint8Array(this.#size);
    let offset = 0;
    for (const chunk of this.#chunks) {
      body.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return body;
  }

  /** A deadline timer, set only when configured; the returned function clears it. */
  deadline(onTimeout: () => void): () => void {
    if (this.limits.bodyTimeout <= 0) return () => {};
    const timer = setTimeout(onTimeout, this.limits.bodyTimeout);
    return () => clearTimeout(timer);
  }

  listen(source: NodeBodySource): Promise<BodyResult> {
    if (source.readableEnded === true) return Promise.resolve({ ok: true, body: EMPTY });
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: BodyResult) => {
        if (settled) return;
        settled = true;
        clear();
        source.removeListener('data', onData);
        source.removeListener('end', onEnd);
        source.removeListener('error', onGone);
        source.removeListener('close', onGone);
        // Left unread: the host closes or drains the connection after its answer.
        if (!result.ok) source.pause();
        resolve(result);
      };
      const onData = (chunk: Uint8Array | string) => {
        if (!this.add(chunk)) finish({ ok: false, reason: 'too-large' });
      };
      const onEnd = () => finish({ ok: true, body: this.body() });
      // 'close' before 'end': the client went away mid-body.
      const onGone = () => finish({ ok: false, reason: 'aborted' });
      const clear = this.deadline(() => finish({ ok: false, reason: 'timeout' }));
      source.on('data', onData);
      source.on('end', onEnd);
      source.on('error', onGone);
      source.on('close', onGone);
    });
  }

  async pull(source: WebBodySource): Promise<BodyResult> {
    const reader = source.getReader();
    let timedOut!: () => void;
    const timeout = new Promise<'timeout'>((resolve) => {
      timedOut = () => resolve('timeout');
    });
    const clear = this.deadline(() => timedOut());
    try {
      while (true) {
        const next = await Promise.race([reader.read(), timeout]).catch(() => 'aborted' as const);
        if (next === 'timeout' || next === 'aborted') {
          void reader.cancel().catch(() => {});
          return { ok: false, reason: next };
        }
        if (next.done) return { ok: true, body: this.body() };
        if (next.value !== undefined && !this.add(next.value)) {
          void reader.cancel().catch(() => {});
          return { ok: false, reason: 'too-large' };
        }
      }
    } finally {
      clear();
    }
  }
}
