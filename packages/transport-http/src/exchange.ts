import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { type HttpResponse, isStreamResponse } from '@snodo/core';

/** Node's headers as core's neutral shape: lower-case names, repeated values joined with ", ". */
export function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export type BodyResult =
  | { readonly ok: true; readonly body: Uint8Array }
  | { readonly ok: false; readonly reason: 'too-large' | 'timeout' | 'aborted' };

/**
 * Reads a request body, counting bytes as they arrive (a chunked body has no Content-Length to
 * check first) and stopping at `maxBytes` or at `deadline` ms. Nothing beyond the bound is kept.
 */
export function readBody(request: IncomingMessage, maxBytes: number, deadline: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
      if (!result.ok) request.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) finish({ ok: false, reason: 'too-large' });
      else chunks.push(chunk);
    };
    const onEnd = () =>
      finish({ ok: true, body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size) });
    const onError = () => finish({ ok: false, reason: 'aborted' });
    const onClose = () => finish({ ok: false, reason: 'aborted' });
    const timer = setTimeout(finish, deadline, { ok: false, reason: 'timeout' } as const);
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}

/**
 * Writes core's response. SSE chunks are written as they come, waiting for `drain` when the
 * socket buffer is full, so a slow reader holds the stream back instead of growing our memory.
 */
export async function writeResponse(res: ServerResponse, response: HttpResponse): Promise<void> {
  if (!isStreamResponse(response)) {
    // A known length lets the whole answer go out in one write, not as a chunked body.
    res.writeHead(response.status, {
      ...response.headers,
      'content-length': Buffer.byteLength(response.body),
    });
    res.end(response.body);
    return;
  }
  res.writeHead(response.status, response.headers);
  res.flushHeaders();
  const iterator = response.stream[Symbol.asyncIterator]();
  try {
    while (!res.destroyed) {
      const next = await iterator.next();
      if (next.done) break;
      if (!res.write(next.value)) await drained(res);
    }
  } finally {
    if (res.destroyed) void iterator.return?.()?.then(undefined, () => {});
    else res.end();
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
