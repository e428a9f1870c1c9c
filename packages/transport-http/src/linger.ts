import type { Socket } from 'node:net';

export interface DrainBounds {
  /** Bytes read and discarded after the half-close before the connection is cut. */
  readonly maxDrainBytes: number;
  /** ms from the closing answer until the connection is cut if the client has not closed its side. */
  readonly drainTimeout: number;
}

const lingering = new WeakSet<Socket>();

/**
 * Closes a connection without losing what was already written to it (RFC 9112 §9.6): half-close
 * (our FIN follows the last answer), read and discard whatever the client still sends, and close
 * once the client closes its side. Closing at once while the client's bytes sit unread makes the
 * kernel reset the connection, and a reset throws away the answers the client has not read yet.
 *
 *   answer ─► FIN ─► drain ─► the client's FIN ─► close
 *                      └─ past maxDrainBytes, or drainTimeout after the answer ─► cut (onCut)
 *
 * Node's HTTP parser is detached first, so nothing after the closing answer is parsed or served.
 * Idempotent.
 */
export function lingeringClose(socket: Socket, bounds: DrainBounds, onCut: () => void): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  socket.setTimeout(0);
  if (socket.readableEnded) {
    // The client already closed its side: nothing is left to drain.
    socket.end(() => socket.destroy());
    return;
  }
  // Node's parser reads through these listeners; a new 'data' listener makes node hand the bytes
  // to JavaScript again (it stops feeding the parser directly).
  socket.removeAllListeners('data');
  socket.removeAllListeners('end');
  let drained = 0;
  // Past a bound: close now (the kernel resets the connection if the client's bytes are unread).
  const cut = () => {
    if (socket.destroyed) return;
    onCut();
    socket.destroy();
  };
  const timer = setTimeout(cut, bounds.drainTimeout);
  socket.once('close', () => clearTimeout(timer));
  socket.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > bounds.maxDrainBytes) cut();
  });
  // The client closed its side: close once our answer and FIN are out.
  socket.on('end', () => {
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  });
  socket.end();
  socket.resume();
  readAgain(socket);
}

/**
 * The parser read the socket's handle directly and may have stopped it (backpressure from a
 * request body nobody read); the stream still believes a read is under way, so `resume()` alone
 * would not start one. This is what node's own HTTP server does when it resumes a socket.
 */
function readAgain(socket: Socket): void {
  const handle = (socket as unknown as { _handle?: { reading?: boolean; readStart?(): number } })._handle;
  if (handle !== undefined && handle.reading === false && typeof handle.readStart === 'function') {
    handle.reading = true;
    if (handle.readStart() !== 0) socket.destroy();
  }
}
