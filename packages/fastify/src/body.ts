import type { Readable } from 'node:stream';
import { ERRORS } from './errors.js';

export interface BodyLimits {
  /** Largest body, in bytes; one more byte is 413. */
  readonly maxBodyBytes: number;
  /** Milliseconds from the call until the body is complete; 0 disables the deadline. */
  readonly bodyTimeout: number;
}

const EMPTY = new Uint8Array(0);

/**
 * Reads a request body under both bounds. A declared `Content-Length` over the limit is refused
 * before any byte is read; otherwise bytes are counted as they arrive (the payload may be a stream
 * an application `preParsing` hook produced, e.g. a decompressor, whose length nobody declared).
 * On refusal the stream is left unread: the caller closes the connection.
 */
export function readBody(
  payload: Readable | undefined,
  declaredLength: string | undefined,
  limits: BodyLimits,
): Promise<Uint8Array> {
  const { maxBodyBytes, bodyTimeout } = limits;
  if (declaredLength !== undefined && Number(declaredLength) > maxBodyBytes) {
    return Promise.reject(new ERRORS.SNODO_ERR_BODY_TOO_LARGE(maxBodyBytes));
  }
  if (payload === undefined || payload.readableEnded) return Promise.resolve(EMPTY);
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (error: Error | undefined) => {
      if (timer !== undefined) clearTimeout(timer);
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      payload.removeListener('close', onClose);
      if (error === undefined) {
        resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
      } else {
        payload.pause();
        reject(error);
      }
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.byteLength;
      if (size > maxBodyBytes) finish(new ERRORS.SNODO_ERR_BODY_TOO_LARGE(maxBodyBytes));
      else chunks.push(bytes);
    };
    const onEnd = () => finish(undefined);
    const onError = () => finish(new ERRORS.SNODO_ERR_BODY_ABORTED());
    // 'close' before 'end': the client went away mid-body.
    const onClose = () => finish(new ERRORS.SNODO_ERR_BODY_ABORTED());
    if (bodyTimeout > 0) {
      timer = setTimeout(() => finish(new ERRORS.SNODO_ERR_BODY_TIMEOUT(bodyTimeout)), bodyTimeout);
    }
    payload.on('data', onData);
    payload.once('end', onEnd);
    payload.once('error', onError);
    payload.once('close', onClose);
  });
}
