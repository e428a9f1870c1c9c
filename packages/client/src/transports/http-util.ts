/** Helpers of the HTTP transport: headers, bodies, ids and network errors. */
import type { AbortSignalLike } from '@snodo/core';
import { type ClientErrorCode, type TransportError, transportError } from '../errors.js';

export type Body = AsyncIterable<Buffer | Uint8Array> & {
  destroy(error?: Error): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** A body collected whole (http-exchange.ts `Collected`): its text, already bounded. */
  text?(): Promise<string>;
};

/** Stops reading a body; undici then emits an abort 'error' that nobody else listens to. */
export function discard(body: Body): void {
  body.on('error', () => {});
  body.destroy();
}

export function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function mediaType(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const semicolon = value.indexOf(';');
  return (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase();
}

export function sameId(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && a !== null && String(a) === String(b));
}

export function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function isIdLessError(
  value: unknown,
): value is { error: { code: number; message: string; data?: unknown } } {
  if (typeof value !== 'object' || value === null) return false;
  const { id, error } = value as { id?: unknown; error?: unknown };
  if (id !== null && id !== undefined) return false;
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return Number.isSafeInteger(code) && typeof message === 'string';
}

/** The body as text, at most `max` bytes (a RangeError past it). */
export async function readText(body: Body, max: number): Promise<string> {
  // A collected body is bounded by its own max (the transport's, the same figure).
  if (body.text) return body.text();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > max) {
      discard(body);
      throw new RangeError(`the response body exceeds ${max} bytes`);
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function excerpt(text: string): string {
  const trimmed = text.trim();
  return trimmed === '' ? '' : `: ${trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed}`;
}

export function delay(ms: number, signal: AbortSignalLike): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const REFUSED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export function networkError(error: unknown, what: string): TransportError {
  const code = errorCode(error);
  const kind: ClientErrorCode =
    code !== undefined && REFUSED.has(code) ? 'SNODO_ERR_CONNECTION_REFUSED' : 'SNODO_ERR_CONNECTION_CLOSED';
  const message = error instanceof Error ? error.message : String(error);
  return transportError(kind, `${what}: ${code ?? ''}${code ? ' ' : ''}${message}`, { cause: error });
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    const errors = (current as { errors?: unknown[] }).errors;
    if (Array.isArray(errors) && errors.length > 0) current = errors[0];
    else current = (current as { cause?: unknown }).cause;
  }
  return typeof (error as { code?: unknown })?.code === 'string'
    ? (error as { code: string }).code
    : undefined;
}
