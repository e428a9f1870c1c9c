import type { AbortSignalLike } from '../executor/lazy-signal.js';
import { encodeJson } from '../json/index.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';

/**
 * What an SSE response yields to its host: an event (`data` is encoded JSON, one line), or a
 * keepalive tick the host writes as a comment line (clients ignore it; proxies and load balancers
 * see traffic). No `id`: 2026-07-28 has no resumption, and we replay nothing.
 */
export type HttpStreamEvent =
  | { readonly event: 'message'; readonly data: string; readonly id?: string }
  | { readonly keepalive: true };

const KEEPALIVE: HttpStreamEvent = Object.freeze({ keepalive: true });

/** One JSON-RPC message as one SSE event. */
export function sseEvent(message: unknown): HttpStreamEvent {
  return { event: 'message', data: encodeJson(message) };
}

/** The comment line a keepalive tick is written as. */
export const KEEPALIVE_FRAME = ': keepalive\n\n';

/** An event as SSE text, for hosts that write bytes themselves. `data` never holds a newline. */
export function sseText(event: HttpStreamEvent): string {
  if ('keepalive' in event) return KEEPALIVE_FRAME;
  return `${event.id === undefined ? '' : `id: ${event.id}\n`}event: ${event.event}\ndata: ${event.data}\n\n`;
}

export interface FrameOptions {
  readonly keepAliveInterval: number;
  /** The client went away: stop at once, write nothing more. */
  readonly disconnect: AbortSignalLike;
  /** The host shuts down; with `final`, the stream ends with the final message. */
  readonly shutdown?: AbortSignal | undefined;
  /**
   * Called once when the source ends or on shutdown; its message, if any, is the last event
   * (a subscription's graceful listen result). Without it, shutdown does not stop the stream.
   */
  readonly final?: () => JsonRpcMessage | undefined;
  /** Called once when the stream stops, however it stops (frees a subscription slot, closes the source). */
  readonly cleanup?: () => void;
}

type Wake =
  | { readonly kind: 'next'; readonly result: IteratorResult<JsonRpcMessage> }
  | { readonly kind: 'tick' }
  | { readonly kind: 'abort' }
  | { readonly kind: 'shutdown' };

/**
 * SSE events from a message source, pulled: the next message is read only when the host asks for the
 * next chunk, so a slow client leaves messages in the source's bounded buffer instead of ours.
 * While the source is quiet for `keepAliveInterval`, a keepalive tick is yielded.
 */
export async function* sseFrames(
  source: AsyncIterator<JsonRpcMessage>,
  options: FrameOptions,
  first?: JsonRpcMessage,
): AsyncGenerator<HttpStreamEvent, void, undefined> {
  const { keepAliveInterval, disconnect, final } = options;
  const shutdown = final ? options.shutdown : undefined;
  let finalSent = false;
  const finalFrame = (): HttpStreamEvent | undefined => {
    if (finalSent || !final) return undefined;
    finalSent = true;
    const message = final();
    return message === undefined ? undefined : sseEvent(message);
  };
  try {
    if (first !== undefined) yield sseEvent(first);
    let pending: Promise<IteratorResult<JsonRpcMessage>> | undefined;
    while (true) {
      pending ??= source.next();
      const wake = await waitFor(pending, keepAliveInterval, disconnect, shutdown);
      if (wake.kind === 'abort') return;
      if (wake.kind === 'tick') {
        yield KEEPALIVE;
        continue;
      }
      if (wake.kind === 'shutdown') {
        const last = finalFrame();
        if (last !== undefined) yield last;
        return;
      }
      pending = undefined;
      if (wake.result.done) {
        const last = finalFrame();
        if (last !== undefined) yield last;
        return;
      }
      yield sseEvent(wake.result.value);
    }
  } finally {
    // Not awaited: an async generator source that is mid-`next()` queues `return()` behind it.
    void source.return?.()?.then(undefined, () => {});
    options.cleanup?.();
  }
}

function waitFor(
  pending: Promise<IteratorResult<JsonRpcMessage>>,
  interval: number,
  disconnect: AbortSignalLike,
  shutdown: AbortSignal | undefined,
): Promise<Wake> {
  if (disconnect.aborted) return Promise.resolve({ kind: 'abort' });
  if (shutdown?.aborted) return Promise.resolve({ kind: 'shutdown' });
  return new Promise<Wake>((resolve) => {
    let settled = false;
    const finish = (wake: Wake) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      disconnect.removeEventListener('abort', onAbort);
      shutdown?.removeEventListener('abort', onShutdown);
      resolve(wake);
    };
    const onAbort = () => finish({ kind: 'abort' });
    const onShutdown = () => finish({ kind: 'shutdown' });
    const timer = setTimeout(finish, interval, { kind: 'tick' } as const);
    disconnect.addEventListener('abort', onAbort);
    shutdown?.addEventListener('abort', onShutdown);
    pending.then(
      (result) => finish({ kind: 'next', result }),
      () => finish({ kind: 'next', result: { done: true, value: undefined } }),
    );
  });
}
