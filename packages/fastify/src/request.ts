import type { EventEmitter } from 'node:events';
import type { Http2ServerRequest } from 'node:http2';
import type { AbortSignalLike, HttpRequest } from '@snodo/core';
import { flattenHeaders, LazySignal } from '@snodo/core/internal';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Aborted when the client goes away before its response is complete. Fastify (Node's HTTP server)
 * sees that at once: the raw socket emits `close` (HTTP/1.1; on HTTP/2 the request's stream),
 * and so does the raw response before it finished. The listeners leave with the response, so a
 * kept-alive socket serving the next request carries none of this one's.
 */
export function disconnectSignal(request: FastifyRequest, reply: FastifyReply): AbortSignalLike {
  // Made cheaply: an AbortSignal exists only if something needs one (core rarely does).
  const controller = new LazySignal();
  const raw = request.raw;
  const source: EventEmitter | undefined =
    raw.httpVersionMajor >= 2 ? (raw as unknown as Http2ServerRequest).stream : raw.socket;
  const gone = () => {
    // writableEnded: this side ended the response (HTTP/2 emits finish on a reset stream too).
    if (!reply.raw.writableEnded) controller.abort(new Error('client disconnected'));
    source?.removeListener('close', gone);
    reply.raw.removeListener('close', gone);
  };
  if (source === undefined || (source as { destroyed?: boolean }).destroyed === true) {
    controller.abort(new Error('client disconnected'));
    return controller;
  }
  source.on('close', gone);
  reply.raw.on('close', gone);
  return controller;
}

/** The neutral request core handles. Identity comes only from what the application's hook set. */
export function toHttpRequest(
  request: FastifyRequest,
  body: Uint8Array,
  signal: AbortSignalLike,
  publicUrl?: string,
): HttpRequest {
  const query = request.url.indexOf('?');
  const path = query < 0 ? request.url : request.url.slice(0, query);
  return {
    method: request.method,
    path: request.url,
    headers: flattenHeaders(request.headers),
    rawHeaders: request.raw.rawHeaders,
    body,
    remoteAddress: request.ip,
    signal,
    auth: request.mcpAuth,
    cancellationScope: request.mcpCancellationScope,
    // The endpoint as the client used it (prefix included, query left out), or the configured one.
    url: publicUrl ?? `${request.protocol}://${request.host}${path}`,
  };
}
