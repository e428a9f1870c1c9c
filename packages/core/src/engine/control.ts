import type { Session } from '../dispatch/session.js';
import type { RequestId } from '../json/int.js';
import type { JsonRpcErrorObject } from '../jsonrpc/types.js';

/**
 * A control message addressed to one session: it acts on something the session holds in some
 * process (a running call, a pending server→client request, an open stream), not on the request
 * that carries it. Every control message of a session goes through a `ControlChannel`, so a
 * channel that spans processes (Redis pub/sub, for example) routes it to the process holding its
 * target without the transports knowing.
 *
 * - `cancel`: `notifications/cancelled` for the client request `requestKey` (`requestKey(id)`).
 * - `answer`: the client's response to a server→client request (sampling, elicitation, roots).
 * - `update`: the session's data changed (`resources/subscribe`/`unsubscribe`, `logging/setLevel`):
 *   open streams re-read what they filter by.
 * - `end`: the session ended (HTTP DELETE, or eviction): running calls abort, pending
 *   server→client requests fail, open streams close.
 */
export type ControlMessage =
  | { readonly kind: 'cancel'; readonly requestKey: string; readonly reason: string }
  | {
      readonly kind: 'answer';
      readonly response: {
        readonly id: RequestId;
        readonly result?: unknown;
        readonly error?: JsonRpcErrorObject;
      };
    }
  | { readonly kind: 'update'; readonly session: Session }
  | { readonly kind: 'end'; readonly reason: string };

/**
 * What a process holds for one session, as the channel sees it. `receive` acts on the message and
 * says whether it reached something: a cancel that matched a running call, an answer that matched a
 * pending request, an update or end that reached a holder at all.
 */
export interface ControlHolder {
  receive(message: ControlMessage): boolean;
}

/**
 * The seam every session control message goes through.
 *
 * Contract (what an implementation must keep; the in-memory default below is the reference):
 * - `attach(sessionId, holder)` registers a holder of this process for the session and returns a
 *   function that unregisters it (idempotent). Several holders may attach to one session (one per
 *   process, or more); a holder is attached only while it holds something.
 * - `deliver(sessionId, message)` hands the message to the session's holders, wherever they are,
 *   and resolves `true` when at least one holder's `receive` returned `true`, `false` otherwise
 *   (no holder, or none acted). It never throws for an unknown session. A cross-process channel
 *   resolves once every process that might hold the session has answered (or a bounded wait has
 *   passed: then `false`).
 * - The engine never acknowledges undelivered control: a cancel that cancelled nothing is answered
 *   400 with JSON-RPC -32602, an answer nobody waits for 400 with -32600. `update` and `end` are
 *   delivered best-effort (the session store is the source of truth for them).
 * - `close()` releases what the channel holds (connections, subscriptions); idempotent.
 */
export interface ControlChannel {
  attach(sessionId: string, holder: ControlHolder): () => void;
  deliver(sessionId: string, message: ControlMessage): boolean | Promise<boolean>;
  close?(): void | Promise<void>;
}

/** The default channel: holders of this process only, in a Map by session id. */
export class MemoryControlChannel implements ControlChannel {
  readonly #holders = new Map<string, Set<ControlHolder>>();

  attach(sessionId: string, holder: ControlHolder): () => void {
    let holders = this.#holders.get(sessionId);
    if (holders === undefined) {
      holders = new Set();
      this.#holders.set(sessionId, holders);
    }
    holders.add(holder);
    const attached = holders;
    return () => {
      attached.delete(holder);
      if (attached.size === 0 && this.#holders.get(sessionId) === attached) this.#holders.delete(sessionId);
    };
  }

  deliver(sessionId: string, message: ControlMessage): boolean {
    const holders = this.#holders.get(sessionId);
    if (holders === undefined) return false;
    let delivered = false;
    // A copy: a holder may detach itself while receiving (an `end`).
    for (const holder of [...holders]) if (holder.receive(message)) delivered = true;
    return delivered;
  }

  /** Sessions with at least one holder attached here (for tests and stats). */
  get sessions(): number {
    return this.#holders.size;
  }

  close(): void {
    this.#holders.clear();
  }
}

/** Whether a value can serve as a `ControlChannel` (for option validation). */
export function isControlChannel(value: unknown): value is ControlChannel {
  const channel = value as Partial<ControlChannel> | null;
  return (
    typeof channel === 'object' &&
    channel !== null &&
    typeof channel.attach === 'function' &&
    typeof channel.deliver === 'function'
  );
}
