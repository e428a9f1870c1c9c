import type { Readable } from 'node:stream';
import { type BodyLimits, readBody as readWithin } from '@snodo/core';
import { coreError } from '@snodo/core/internal';

export type { BodyLimits };

const EMPTY = new Uint8Array(0);

/**
 * Reads a request body with core's one body policy (chunked accepted up to `maxBodyBytes`, 413
 * past it, 408 past `bodyTimeout`); the payload may be a stream an application `preParsing` hook
 * produced (a decompressor), whose length nobody declared. A refusal is thrown as the plugin's
 * Fastify error, so the application's error handler sees it; the stream is left unread (the caller
 * drains or closes the connection).
 */
export async function readBody(
  payload: Readable | undefined,
  declaredLength: string | undefined,
  limits: BodyLimits,
): Promise<Uint8Array> {
  if (payload === undefined && declaredLength === undefined) return EMPTY;
  const read = await readWithin(payload, declaredLength, limits);
  if (read.ok) return read.body;
  switch (read.reason) {
    case 'too-large':
      throw coreError('SNODO_ERR_BODY_TOO_LARGE', `${limits.maxBodyBytes} bytes`);
    case 'timeout':
      throw coreError('SNODO_ERR_BODY_TIMEOUT', `${limits.bodyTimeout} ms`);
    case 'aborted':
      throw coreError('SNODO_ERR_BODY_ABORTED');
  }
}
