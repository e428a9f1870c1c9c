import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface DrainBounds {
  /** Bytes of a refused body read and discarded after the answer; more, and the connection is cut. */
  readonly maxDrainBytes: number;
  /** Milliseconds from the answer until the connection is cut if the body has not ended. */
  readonly drainTimeout: number;
}

/**
 * After the answer to a body the plugin refuses (413), reads and discards the rest of it. The
 * client then reads the answer even while it is still sending (answering and closing with its bytes
 * unread resets the connection, and the reset throws the answer away), and the connection stays in
 * step for its next request. Past `maxDrainBytes`, or `drainTimeout` after the answer, the
 * connection is cut. A declared body larger than `maxDrainBytes` is not drained at all: the answer
 * says `Connection: close`.
 */
export function drainAfterReply(request: FastifyRequest, reply: FastifyReply, bounds: DrainBounds): void {
  const raw = request.raw;
  // HTTP/2: ending the response resets only the request's stream; the connection is not at stake.
  if (raw.httpVersionMajor >= 2) return;
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > bounds.maxDrainBytes) {
    reply.header('connection', 'close');
    return;
  }
  // Reading nothing marks the body as consumed: node would otherwise discard the rest itself once
  // the answer is written, unbounded and uncounted.
  raw.read(0);
  const socket = raw.socket;
  const closeAfter = holdClose(socket);
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) closeAfter.release(); // never answered: nothing to hold
  });
  reply.raw.once('finish', () => {
    if (raw.readableEnded) {
      closeAfter.release();
      return;
    }
    let drained = 0;
    const done = () => {
      clearTimeout(timer);
      raw.off('data', count);
      raw.off('end', done);
      raw.off('close', done);
      closeAfter.release();
    };
    const cut = () => {
      done();
      socket.destroy();
    };
    const count = (chunk: Buffer | string) => {
      drained += chunk.length;
      if (drained > bounds.maxDrainBytes) cut();
    };
    const timer = setTimeout(cut, bounds.drainTimeout);
    raw.unpipe(); // an application preParsing stream (a decompressor) gets none of it
    raw.on('data', count);
    raw.once('end', done);
    raw.once('close', done);
    raw.resume();
  });
}

/**
 * Node ends a connection whose answer says `Connection: close` (the client asked for it) with
 * `destroySoon()` as soon as the answer is written, the body still unread: hold that until
 * `release()`.
 */
function holdClose(socket: Socket): { release(): void } {
  let asked = false;
  let released = false;
  socket.destroySoon = () => {
    asked = true;
  };
  return {
    release() {
      if (released) return;
      released = true;
      Reflect.deleteProperty(socket, 'destroySoon');
      if (asked && !socket.destroyed) socket.destroySoon();
    },
  };
}
