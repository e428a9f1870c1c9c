import { fstatSync } from 'node:fs';
import { type OnReadOpts, Socket, type SocketConstructorOpts } from 'node:net';

export interface InputHandlers {
  /**
   * One chunk; its bytes are valid only during the call and, when it returns false, until
   * `resume()` (the source may reuse its buffer). Return false to pause.
   */
  chunk(bytes: Uint8Array): boolean;
  end(): void;
  error(error: unknown): void;
}

/** Where bytes come from: a stream, or fd 0 read into one reused buffer. */
export interface InputSource {
  start(handlers: InputHandlers): void;
  resume(): void;
  /** Stops delivery and lets go of the input; idempotent. */
  stop(): void;
}

/** Bytes per read of fd 0 (the usual pipe capacity). */
const STDIN_READ_BYTES = 65_536;

/**
 * The default input. When fd 0 is a pipe or a socket (how hosts spawn stdio servers) it is read
 * with `net.Socket`'s `onread` into one reused 64 KiB buffer, so a client streaming an endless
 * line leaves no trail of per-read buffers for the garbage collector to find later: memory stays
 * within maxLineBytes plus that buffer. Files and terminals are read through `process.stdin`.
 */
export function stdinSource(): InputSource {
  let kind: 'pipe' | 'other' = 'other';
  try {
    const stat = fstatSync(0);
    if (stat.isFIFO() || stat.isSocket()) kind = 'pipe';
  } catch {
    // No fd 0 to inspect: process.stdin reports the problem as a stream error.
  }
  return kind === 'pipe' ? new ReusedBufferSource() : new StreamSource(process.stdin);
}

/** A user's readable stream, read through 'data' events with pause()/resume(). */
export class StreamSource implements InputSource {
  readonly #stream: NodeJS.ReadableStream;
  #handlers: InputHandlers | undefined;
  readonly #onData = (chunk: Uint8Array | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (this.#handlers?.chunk(bytes) === false) this.#stream.pause();
  };
  readonly #onEnd = () => this.#handlers?.end();
  readonly #onError = (error: unknown) => this.#handlers?.error(error);

  constructor(stream: NodeJS.ReadableStream) {
    this.#stream = stream;
  }

  start(handlers: InputHandlers): void {
    this.#handlers = handlers;
    this.#stream.on('error', this.#onError);
    this.#stream.on('end', this.#onEnd);
    this.#stream.on('close', this.#onEnd); // destroyed without 'end': treated as EOF
    this.#stream.on('data', this.#onData);
    this.#stream.resume();
  }

  resume(): void {
    if (this.#handlers !== undefined) this.#stream.resume();
  }

  stop(): void {
    if (this.#handlers === undefined) return;
    this.#handlers = undefined;
    this.#stream.off('data', this.#onData);
    this.#stream.off('end', this.#onEnd);
    this.#stream.off('close', this.#onEnd);
    this.#stream.off('error', this.#onError);
    this.#stream.pause();
  }
}

/** fd 0 as a socket of our own whose reads all land in one buffer. */
class ReusedBufferSource implements InputSource {
  #socket: Socket | undefined;
  #handlers: InputHandlers | undefined;

  start(handlers: InputHandlers): void {
    this.#handlers = handlers;
    const buffer = Buffer.allocUnsafe(STDIN_READ_BYTES);
    const onread: OnReadOpts = {
      buffer,
      callback: (bytes, into) => this.#handlers?.chunk(into.subarray(0, bytes)) !== false,
    };
    // `onread` is a documented Socket option that @types/node 20 lists only for net.connect.
    const socket = new Socket({ fd: 0, readable: true, writable: false, onread } as SocketConstructorOpts);
    this.#socket = socket;
    socket.on('error', (error) => this.#handlers?.error(error));
    socket.on('end', () => this.#handlers?.end());
    socket.on('close', () => this.#handlers?.end());
  }

  resume(): void {
    if (this.#handlers !== undefined) this.#socket?.resume();
  }

  stop(): void {
    if (this.#handlers === undefined) return;
    this.#handlers = undefined;
    this.#socket?.destroy();
  }
}
