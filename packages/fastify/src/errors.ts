import { createError } from '@fastify/error';

/**
 * The HTTP-level refusals of the plugin, one row each: they happen before core sees the request
 * (the body was never complete), so they go through Fastify's error handling — the application's
 * `setErrorHandler`, or Fastify's default `{ statusCode, code, error, message }` body. After a
 * 413 the rest of the body is drained (drain.ts); after a 408 or 400 the connection closes.
 * Every refusal core decides (Origin, Host, media types, revision headers, sessions, overload)
 * keeps its JSON-RPC body instead.
 */
export const ERRORS = {
  SNODO_ERR_BODY_TOO_LARGE: createError<'SNODO_ERR_BODY_TOO_LARGE', 413, [number]>(
    'SNODO_ERR_BODY_TOO_LARGE',
    'Request body exceeds %s bytes',
    413,
  ),
  SNODO_ERR_BODY_TIMEOUT: createError<'SNODO_ERR_BODY_TIMEOUT', 408, [number]>(
    'SNODO_ERR_BODY_TIMEOUT',
    'Request body not complete within %s ms',
    408,
  ),
  SNODO_ERR_BODY_ABORTED: createError('SNODO_ERR_BODY_ABORTED', 'Request body aborted by the client', 400),
} as const;

export type ErrorCode = keyof typeof ERRORS;
