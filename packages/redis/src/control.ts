import { randomUUID } from 'node:crypto';
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
 *   sender                         Redis                               owner
 *   send(s, m) ── EVALSHA SEND ──► owners of s, expired ones dropped
 *                                  PUBLISH control:<owner> {q, r, f, s, m} ──► deliver(s, m)
 *              ◄── {a: r, d} ───── PUBLISH control:<sender> ◄──────────── true: it was delivered
 *
 * The lookup and the publishes are one script (one round trip); an owner whose channel has no
 * subscriber (its process is gone) gets nothing and is not waited for. `send` resolves once every
 * owner acknowledged, with how many delivered the message, or rejects with
 * `SNODO_ERR_CONTROL_TIMEOUT` after `controlTimeout`: never a success for a message not delivered.
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

/** KEYS: owner key. ARGV: instance. */
const RELEASE = script(`
redis.call('ZREM', KEYS[1], ARGV[1])
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

/** Delivers a control message to this instance's open work of a session; true when something took it. */
export type ControlHandler = (sessionId: string, message: unknown) => boolean | Promise<boolean>;

/** Counters of the control channel since `connectRedis`. */
export interface ControlStats {
  /** Messages this instance sent to other instances. */
  readonly sent: number;
  /** Messages other instances sent here. */
  readonly received: number;
  /** Sends that were not acknowledged by every owner within `controlTimeout`. */
  readonly timedOut: number;
  /** Messages on this instance's channel that were not control messages, or over `maxControlBytes`: ignored. */
  readonly ignored: number;
  /** Sessions whose open work this instance holds now. */
  readonly held: number;
}

/** One wire message: a request (`q`) for this instance, or an ack (`a`) of one it sent. */
type Wire =
  | { readonly q: 1; readonly r: string; readonly f: string; readonly s: string; readonly m: unknown }
  | { readonly a: string; readonly d: boolean };

interface Pending {
  readonly from: Set<string> | undefined;
  readonly early: Map<string, boolean>;
  delivered: number;
  waiting: number;
  settle(error?: Error): void;
}

/**
 * The control channel of a cluster: `hold` records that this instance holds open work of a
 * session, `send` delivers a message to the instances that hold it and resolves only once they
 * acknowledged it, `receive` registers what delivers a message here. Held records are refreshed
 * every third of `ownerTtl` while held, and expire `ownerTtl` after the last refresh when this
 * process dies; a record is written at most once per third of `ownerTtl` per session, so a session
 * with one call after another costs no round trip per call.
 */
export class RedisControlChannel {
  readonly #link: RedisLink;
  readonly #instanceId: string;
  readonly #ownerPrefix: string;
  readonly #channelPrefix: string;
  readonly #ownerTtl: number;
  readonly #timeout: number;
  readonly #maxBytes: number;
  /** Sessions held here: how many holds, and when their record was last written (local ms). */
  readonly #held = new Map<string, { count: number; written: number }>();
  readonly #handlers = new Set<ControlHandler>();
  readonly #pending = new Map<string, Pending>();
  #refresh: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  #stats = { sent: 0, received: 0, timedOut: 0, ignored: 0 };

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
    return { ...this.#stats, held: this.#held.size };
  }

  /**
   * Records that this instance holds open work of `sessionId`, until `release`; resolves once the
   * record is in Redis (at once when it was written less than a third of `ownerTtl` ago). Rejects
   * with a `RedisError` when Redis cannot record it: the work must not start unreachable.
   */
  async hold(sessionId: string): Promise<void> {
    this.#open();
    const now = Date.now();
    const entry = this.#held.get(sessionId);
    if (entry !== undefined) {
      entry.count++;
      if (now - entry.written < this.#ownerTtl / 3) return;
    } else {
      this.#held.set(sessionId, { count: 1, written: 0 });
    }
    try {
      await this.#link.eval<number>(
        HOLD,
        [this.#ownerPrefix + sessionId],
        [this.#instanceId, String(this.#ownerTtl)],
      );
    } catch (error) {
      this.release(sessionId);
      throw error;
    }
    const held = this.#held.get(sessionId);
    if (held !== undefined) held.written = now;
  }

  /** Ends one `hold`; the last one removes this instance's record (best effort: it expires anyway). */
  release(sessionId: string): void {
    const entry = this.#held.get(sessionId);
    if (entry === undefined) return;
    if (--entry.count > 0) return;
    this.#held.delete(sessionId);
    if (this.#closed) return;
    this.#link
      .eval<number>(RELEASE, [this.#ownerPrefix + sessionId], [this.#instanceId])
      .catch(() => undefined);
  }

  /** Registers what delivers messages here; the returned function unregisters it. */
  receive(handler: ControlHandler): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  /**
   * Sends `message` (JSON) to the other instances holding open work of `sessionId`; resolves with
   * how many of them delivered it (0: none holds it, or none took it), once every one answered.
   * Rejects with `SNODO_ERR_CONTROL_TIMEOUT` when one did not answer within `controlTimeout`,
   * `SNODO_ERR_MESSAGE_TOO_LARGE` over `maxControlBytes`, a `RedisError` when Redis fails.
   */
  async send(sessionId: string, message: unknown): Promise<number> {
    this.#open();
    const id = randomUUID();
    const text = JSON.stringify({ q: 1, r: id, f: this.#instanceId, s: sessionId, m: message });
    const bytes = Buffer.byteLength(text);
    if (bytes > this.#maxBytes) {
      throw new RedisError(
        'SNODO_ERR_MESSAGE_TOO_LARGE',
        `control message of ${bytes} bytes, maxControlBytes is ${this.#maxBytes}`,
      );
    }
    // Registered before publishing: an ack can arrive before the script's reply does.
    let settle!: (error?: Error) => void;
    const done = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    const pending: Pending = { from: undefined, early: new Map(), delivered: 0, waiting: 0, settle };
    this.#pending.set(id, pending);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const reached = await this.#link.eval<string[]>(
        SEND,
        [this.#ownerPrefix + sessionId],
        [this.#instanceId, this.#channelPrefix, text],
      );
      if (reached.length === 0) return 0;
      this.#stats.sent++;
      const from = new Set(reached);
      Object.assign(pending, { from });
      pending.waiting = from.size;
      for (const [owner, delivered] of pending.early) this.#ack(pending, owner, delivered);
      if (pending.waiting > 0) {
        timer = setTimeout(() => {
          this.#stats.timedOut++;
          pending.settle(
            new RedisError(
              'SNODO_ERR_CONTROL_TIMEOUT',
              `${pending.waiting} of ${from.size} instance(s) holding session work did not answer in ${this.#timeout} ms`,
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

  /** Fails every send still waiting; stops refreshing. The link's close ends the rest. */
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

  #open(): void {
    if (this.#closed) throw new RedisError('SNODO_ERR_REDIS_CLOSED', 'cannot use the control channel');
  }

  #ack(pending: Pending, owner: string, delivered: boolean): void {
    if (pending.from === undefined) {
      pending.early.set(owner, delivered);
      return;
    }
    if (!pending.from.delete(owner)) return;
    pending.waiting--;
    if (delivered) pending.delivered++;
    if (pending.waiting === 0) pending.settle();
  }

  #receive(text: string): void {
    const wire = Buffer.byteLength(text) > this.#maxBytes ? undefined : parse(text);
    if (wire === undefined) {
      this.#stats.ignored++;
      return;
    }
    if ('a' in wire) {
      const [request, owner] = splitAck(wire.a);
      const pending = request === undefined ? undefined : this.#pending.get(request);
      if (pending !== undefined && owner !== undefined) this.#ack(pending, owner, wire.d);
      return;
    }
    this.#stats.received++;
    this.#deliver(wire.s, wire.m).then((delivered) => {
      const ack = JSON.stringify({ a: `${wire.r}/${this.#instanceId}`, d: delivered });
      this.#link.publish(this.#channelPrefix + wire.f, ack).catch(() => undefined);
    });
  }

  async #deliver(sessionId: string, message: unknown): Promise<boolean> {
    let delivered = false;
    for (const handler of this.#handlers) {
      try {
        if (await handler(sessionId, message)) delivered = true;
      } catch {
        // A handler that throws delivered nothing; the sender learns it from the ack.
      }
    }
    return delivered;
  }

  #refreshHeld(): void {
    const now = Date.now();
    const due = [...this.#held].filter(([, entry]) => now - entry.written >= this.#ownerTtl / 3);
    if (due.length === 0 || this.#closed) return;
    this.#link
      .eval<number>(
        HOLD,
        due.map(([session]) => this.#ownerPrefix + session),
        [this.#instanceId, String(this.#ownerTtl)],
      )
      .then(
        () => {
          for (const [, entry] of due) entry.written = now;
        },
        // Redis down: the records may expire; they are written again on the next tick.
        () => undefined,
      );
  }
}

function splitAck(value: string): [string | undefined, string | undefined] {
  const slash = value.indexOf('/');
  return slash === -1 ? [undefined, undefined] : [value.slice(0, slash), value.slice(slash + 1)];
}

/** A wire message, or undefined for anything else (never throws). */
function parse(text: string): Wire | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.a === 'string' && typeof record.d === 'boolean') return value as Wire;
  if (
    record.q === 1 &&
    typeof record.r === 'string' &&
    typeof record.f === 'string' &&
    typeof record.s === 'string'
  )
    return value as Wire;
  return undefined;
}
