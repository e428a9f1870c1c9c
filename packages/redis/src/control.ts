import { randomUUID } from 'node:crypto';
import {
  type ControlChannel,
  type ControlHolder,
  type ControlMessage,
  decodeJson,
  encodeJson,
} from '@snodo/core';
import { coreError } from '@snodo/core/internal';
import { RedisError } from './errors.js';
import { type RedisLink, script } from './link.js';
import type { RedisConfig } from './options.js';

/*
 * Layout, under the prefix:
 *
 *   owner:<session>     zset      the instances holding open work of the session (a running
 *                                 call, a pending server→client request, a GET stream), each
 *                                 scored by when its record expires (ms, Redis's clock)
 *   control:<instance>  channel   the control messages for that instance, and the acks of the
 *                                 messages it sent
 *
 *   sender                             Redis                              owner
 *   deliver(s, m) ── EVALSHA SEND ──► owners of s, expired ones dropped
 *                                     PUBLISH control:<owner> {q, r, f, s, m} ──► its holders of s
 *                 ◄── {a: r/owner, d} ── PUBLISH control:<sender> ◄───────── d: one of them took it
 *
 * The lookup and the publishes are one script (one round trip); an owner whose channel has no
 * subscriber (its process is gone) gets nothing and is not waited for. `deliver` resolves once
 * every owner acknowledged, or rejects with `SNODO_ERR_CONTROL_TIMEOUT` after `controlTimeout`
 * (core answers 503 with `Retry-After: 1`): never a success for a message not delivered.
 */

/** ZADD the instance to each key with expiry now+ttl; keep each key no shorter-lived. KEYS: owner keys. ARGV: instance, ttl. */
const HOLD = script(`
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local ttl = tonumber(ARGV[2])
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
  redis.call('ZADD', KEYS[i], now + ttl, ARGV[1])
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return 0
`);

/**
 * Publishes the message to every live owner but the sender. KEYS: owner key. ARGV: sender,
 * channel prefix, message. Returns the owners that had a subscriber.
 */
const SEND = script(`
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local owners = redis.call('ZRANGE', KEYS[1], 0, -1)
local reached = {}
for _, owner in ipairs(owners) do
  if owner ~= ARGV[1] and redis.call('PUBLISH', ARGV[2] .. owner, ARGV[3]) > 0 then
    reached[#reached + 1] = owner
  end
end
return reached
`);

/** Counters of the control channel since `connectRedis`. */
export interface ControlStats {
  /** Messages this instance sent to other instances (those that reached at least one). */
  readonly sent: number;
  /** Messages other instances sent here. */
  readonly received: number;
  /** Deliveries not acknowledged by every owner within `controlTimeout`. */
  readonly timedOut: number;
  /** Messages on this instance's channel that were not control messages, or over `maxControlBytes`: ignored. */
  readonly ignored: number;
  /** Sessions whose open work this instance holds now. */
  readonly held: number;
  /** Owner records that could not be written (Redis down): that work was unreachable from other instances. */
  readonly holdFailed: number;
}

/** One wire message: a request (`q`) for this instance, or an ack (`a`: request id / owner) of one it sent. */
type Wire =
  | { readonly q: 1; readonly r: string; readonly f: string; readonly s: string; readonly m: ControlMessage }
  | { readonly a: string; readonly d: boolean };

interface Pending {
  from: Set<string> | undefined;
  readonly early: Map<string, boolean>;
  delivered: boolean;
  settle(error?: Error): void;
}

/** A session held here: its holders, and when its owner record was last written (local ms; 0: never). */
interface Held {
  readonly holders: Set<ControlHolder>;
  written: number;
}

const KINDS: ReadonlySet<unknown> = new Set(['cancel', 'answer', 'update', 'end']);

/**
 * Core's `ControlChannel` across instances: pass it as the `control` option of the HTTP host.
 * `attach` records (in Redis, at once) that this instance holds open work of a session, refreshed
 * every third of `ownerTtl` while held and left to expire after the last detach; `deliver` acts here first,
 * then sends the message to the other instances holding the session and resolves once they
 * acknowledged it. A cancel or an answer that found its target here is not sent on (one target
 * per session and id); an update or an end goes to every holder.
 *
 * A record is written when a session becomes held, so work that starts and ends within one round
 * trip of Redis may be unreachable from another instance for that long; a client cannot cancel or
 * answer what it has not seen start, so in practice this is the time of its own round trip.
 */
export class RedisControlChannel implements ControlChannel {
  readonly #link: RedisLink;
  readonly #instanceId: string;
  readonly #ownerPrefix: string;
  readonly #channelPrefix: string;
  readonly #ownerTtl: number;
  readonly #timeout: number;
  readonly #maxBytes: number;
  readonly #held = new Map<string, Held>();
  readonly #pending = new Map<string, Pending>();
  #refresh: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  #stats = { sent: 0, received: 0, timedOut: 0, ignored: 0, holdFailed: 0 };

  constructor(link: RedisLink, config: RedisConfig, instanceId: string) {
    this.#link = link;
    this.#instanceId = instanceId;
    this.#ownerPrefix = `${config.prefix}owner:`;
    this.#channelPrefix = `${config.prefix}control:`;
    this.#ownerTtl = config.ownerTtl;
    this.#timeout = config.controlTimeout;
    this.#maxBytes = config.maxControlBytes;
  }

  /** Subscribes to this instance's channel (before serving) and starts refreshing held records. */
  async start(): Promise<void> {
    await this.#link.subscribe(this.#channelPrefix + this.#instanceId, (text) => this.#receive(text));
    this.#refresh = setInterval(() => this.#refreshHeld(), Math.max(1, Math.floor(this.#ownerTtl / 3)));
    this.#refresh.unref?.();
  }

  get stats(): ControlStats {
    let held = 0;
    for (const entry of this.#held.values()) if (entry.holders.size > 0) held++;
    return { ...this.#stats, held };
  }

  attach(sessionId: string, holder: ControlHolder): () => void {
    let held = this.#held.get(sessionId);
    if (held === undefined) {
      held = { holders: new Set(), written: 0 };
      this.#held.set(sessionId, held);
    }
    // A record written less than a third of ownerTtl ago (by this holder's predecessor, say: one
    // call after another) still has two thirds to live, and the refresh keeps it: no round trip.
    if (held.holders.size === 0 && Date.now() - held.written >= this.#ownerTtl / 3 && !this.#closed)
      this.#write([sessionId]);
    held.holders.add(holder);
    const entry = held;
    return () => {
      // The record is left to expire (within ownerTtl): until then this instance answers `false`
      // for the session, which costs a round trip to a control message, not one to every call.
      entry.holders.delete(holder);
    };
  }

  /**
   * Delivers to this instance's holders of the session, then (unless a cancel or an answer found
   * its target here) to the other instances holding it; true when a holder took it. Rejects with
   * `SNODO_ERR_CONTROL_TIMEOUT` when an instance holding the session did not acknowledge within
   * `controlTimeout`, `SNODO_ERR_REDIS_MESSAGE_TOO_LARGE` over `maxControlBytes`, `SNODO_ERR_REDIS_CLOSED`
   * after close, another `RedisError` when Redis fails.
   */
  async deliver(sessionId: string, message: ControlMessage): Promise<boolean> {
    if (this.#closed) throw new RedisError('SNODO_ERR_REDIS_CLOSED', 'cannot deliver a control message');
    const here = this.#deliverHere(sessionId, message);
    if (here && (message.kind === 'cancel' || message.kind === 'answer')) return true;
    const there = await this.#send(sessionId, message);
    return here || there;
  }

  /** Fails every delivery still waiting and stops refreshing; the link's close ends the rest. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#refresh);
    this.#held.clear();
    for (const pending of this.#pending.values()) {
      pending.settle(
        new RedisError('SNODO_ERR_REDIS_CLOSED', 'a control message was waiting for its acknowledgement'),
      );
    }
  }

  /** Sends to the other owners of the session; true when one of them delivered it. */
  async #send(sessionId: string, message: ControlMessage): Promise<boolean> {
    const id = randomUUID();
    const text = encodeJson({ q: 1, r: id, f: this.#instanceId, s: sessionId, m: message });
    const bytes = Buffer.byteLength(text);
    if (bytes > this.#maxBytes) {
      throw new RedisError(
        'SNODO_ERR_REDIS_MESSAGE_TOO_LARGE',
        `control message of ${bytes} bytes, maxControlBytes is ${this.#maxBytes}`,
      );
    }
    // Registered before publishing: an ack can arrive before the script's reply does.
    let settle!: (error?: Error) => void;
    const done = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    const pending: Pending = { from: undefined, early: new Map(), delivered: false, settle };
    this.#pending.set(id, pending);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const reached = await this.#link.eval<string[]>(
        SEND,
        [this.#ownerPrefix + sessionId],
        [this.#instanceId, this.#channelPrefix, text],
      );
      if (reached.length === 0) return false;
      this.#stats.sent++;
      pending.from = new Set(reached);
      for (const [owner, delivered] of pending.early) this.#ack(pending, owner, delivered);
      if (pending.from.size > 0) {
        const waiting = pending.from;
        timer = setTimeout(() => {
          this.#stats.timedOut++;
          settle(
            coreError(
              'SNODO_ERR_CONTROL_TIMEOUT',
              `${waiting.size} of ${reached.length} instance(s) holding session work did not answer in ${this.#timeout} ms`,
            ),
          );
        }, this.#timeout);
        await done;
      }
      return pending.delivered;
    } finally {
      clearTimeout(timer);
      this.#pending.delete(id);
    }
  }

  #deliverHere(sessionId: string, message: ControlMessage): boolean {
    const held = this.#held.get(sessionId);
    if (held === undefined || held.holders.size === 0) return false;
    let delivered = false;
    // A copy: a holder may detach itself while receiving (an `end`).
    for (const holder of [...held.holders]) {
      try {
        if (holder.receive(message)) delivered = true;
      } catch {
        // A holder that throws took nothing; the sender learns it from the ack.
      }
    }
    return delivered;
  }

  #ack(pending: Pending, owner: string, delivered: boolean): void {
    if (pending.from === undefined) {
      pending.early.set(owner, delivered);
      return;
    }
    if (!pending.from.delete(owner)) return;
    if (delivered) pending.delivered = true;
    if (pending.from.size === 0) pending.settle();
  }

  #receive(text: string): void {
    const wire = Buffer.byteLength(text) > this.#maxBytes ? undefined : parse(text);
    if (wire === undefined) {
      this.#stats.ignored++;
      return;
    }
    if ('a' in wire) {
      const slash = wire.a.indexOf('/');
      const pending = slash === -1 ? undefined : this.#pending.get(wire.a.slice(0, slash));
      if (pending !== undefined) this.#ack(pending, wire.a.slice(slash + 1), wire.d);
      return;
    }
    this.#stats.received++;
    const delivered = this.#deliverHere(wire.s, wire.m);
    const ack = JSON.stringify({ a: `${wire.r}/${this.#instanceId}`, d: delivered });
    // Lost with the link: the sender then times out (503), it never hears a false success.
    this.#link.publish(this.#channelPrefix + wire.f, ack).catch(() => undefined);
  }

  /** Writes the owner records of `sessions`; a failure is counted, and retried on the next refresh. */
  #write(sessions: readonly string[]): void {
    // Counted as written from the start, so that a session held again meanwhile is not written twice.
    const now = Date.now();
    for (const session of sessions) {
      const held = this.#held.get(session);
      if (held !== undefined) held.written = now;
    }
    this.#link
      .eval<number>(
        HOLD,
        sessions.map((session) => this.#ownerPrefix + session),
        [this.#instanceId, String(this.#ownerTtl)],
      )
      .catch(() => {
        this.#stats.holdFailed++;
        for (const session of sessions) {
          const held = this.#held.get(session);
          if (held !== undefined && held.written === now) held.written = 0;
        }
      });
  }

  /** Writes the records due of sessions held; forgets the sessions no longer held whose record is due. */
  #refreshHeld(): void {
    if (this.#closed) return;
    const now = Date.now();
    const due: string[] = [];
    for (const [session, held] of this.#held) {
      if (now - held.written < this.#ownerTtl / 3) continue;
      if (held.holders.size > 0) due.push(session);
      else this.#held.delete(session);
    }
    if (due.length > 0) this.#write(due);
  }
}

/** A wire message, or undefined for anything else (never throws). */
function parse(text: string): Wire | undefined {
  const decoded = decodeJson(text);
  if (!decoded.ok || typeof decoded.value !== 'object' || decoded.value === null) return undefined;
  const record = decoded.value as Record<string, unknown>;
  if (typeof record.a === 'string' && typeof record.d === 'boolean') return record as Wire;
  const message = record.m as Record<string, unknown> | null | undefined;
  if (
    record.q === 1 &&
    typeof record.r === 'string' &&
    typeof record.f === 'string' &&
    typeof record.s === 'string' &&
    typeof message === 'object' &&
    message !== null &&
    KINDS.has(message.kind)
  )
    return record as Wire;
  return undefined;
}
