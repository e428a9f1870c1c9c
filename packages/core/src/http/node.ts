import type { NodeBodySource } from './body.js';
import { sseText } from './sse.js';
import { type HttpResponse, isStreamResponse } from './types.js';

const encoder = new TextEncoder();
/**
 * The UTF-8 length of a body: Node's `Buffer.byteLength` (this writer serves Node's responses, and
 * counting is 10× cheaper than encoding), by encoding where a runtime has no `Buffer`.
 */
const byteLength: (text: string) => number =
  (globalThis as { Buffer?: { byteLength(text: string): number } }).Buffer?.byteLength ??
  ((text) => encoder.encode(text).byteLength);

/** A `node:http` `IncomingMessage`, by shape (core imports nothing from Node). */
export interface NodeRequest extends NodeBodySource {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly rawHeaders?: readonly string[];
  readonly socket?: { readonly remoteAddress?: string | undefined } | undefined;
}

/** A `node:http` `ServerResponse`, by shape. */
export interface NodeResponse {
  writeHead(status: number, headers: Record<string, string | number>): unknown;
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  removeListener(event: string, listener: () => void): unknown;
  destroy?(error?: Error): unknown;
  flushHeaders?(): void;
  readonly destroyed?: boolean;
  readonly writableFinished?: boolean;
  readonly headersSent?: boolean;
}

/**
 * Node's headers as core's neutral shape: lower-case names, repeated values joined with ", ". Node's
 * object itself when it holds strings only (it joins repeated fields, except Set-Cookie).
 */
export function flattenHeaders(headers: NodeRequest['headers']): Readonly<Record<string, string>> {
  for (const name in headers) {
    if (typeof headers[name] !== 'string') return joined(headers);
  }
  return headers as Readonly<Record<string, string>>;
}

function joined(headers: NodeRequest['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}

/**
 * Writes core's response on a Node response. JSON goes out in one write with its length; SSE
 * events are written as they come, waiting for `drain` when the socket buffer is full, so a slow
 * reader holds the stream back (in core's bounded buffers) instead of growing our memory. Once
 * core drops the reader (the response's `cut`), a wait for `drain` ends by destroying the response:
 * a client that stopped reading does not keep its connection.
 */
export async function writeNodeResponse(res: NodeResponse, response: HttpResponse): Promise<void> {
  if (!isStreamResponse(response)) {
    res.writeHead(response.status, { ...response.headers, 'content-length': byteLength(response.body) });
    res.end(response.body);
    return;
  }
  res.writeHead(response.status, { ...response.headers });
  res.flushHeaders?.();
  const iterator = response.events[Symbol.asyncIterator]();
  try {
    while (res.destroyed !== true) {
      const next = await iterator.next();
      if (next.done) break;
      if (!res.write(sseText(next.value)) && !(await drained(res, response.cut))) {
        res.destroy?.();
        break;
      }
    }
  } finally {
    if (res.destroyed === true) void iterator.return?.()?.then(undefined, () => {});
    else res.end();
  }
}

/** Resolves true on `drain` or `close`, false when `cut` aborts first. */
function drained(res: NodeResponse, cut: AbortSignal | undefined): Promise<boolean> {
  if (cut?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (result: boolean) => {
      res.removeListener('drain', onDrain);
      res.removeListener('close', onDrain);
      cut?.removeEventListener('abort', onCut);
      resolve(result);
    };
    const onDrain = () => done(true);
    const onCut = () => done(false);
    res.once('drain', onDrain);
    res.once('close', onDrain);
    cut?.addEventListener('abort', onCut);
  });
}
