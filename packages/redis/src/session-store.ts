import { decodeJson, encodeJson, type Session, type SessionStore } from '@snodo/core';
import { type RedisLink, script } from './link.js';
import type { RedisConfig } from './options.js';

/*
 * Layout, under the prefix:
 *
 *   session:<id>   string   the session as JSON; expires `sessionIdleTimeout` after its last use
 *   sessions       zset     every live id, scored by its last use (µs, Redis's clock)
 *
 * Invariants, kept by running each operation as one script (atomic, one round trip):
 * - an id is in `sessions` if its key exists; an entry whose key expired is dead: its score is
 *   at least `sessionIdleTimeout` old, and `set` removes such entries before counting;
 * - after `set`, `sessions` holds at most `maxSessions` ids: the least recently used ones are
 *   evicted (key and entry) to make room, as `MemorySessionStore` does, across every instance.
 * Times come from Redis (`TIME`), so instances with skewed clocks agree on who is oldest.
 */

/** GETEX refreshes the idle expiry; the index records the use. KEYS: index, key. ARGV: id, idle. */
const GET = script(`
local idle = tonumber(ARGV[2])
local value
if idle > 0 then value = redis.call('GETEX', KEYS[2], 'PX', idle) else value = redis.call('GET', KEYS[2]) end
if value then
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[1], t[1] * 1000000 + t[2], ARGV[1])
end
return value
`);

/**
 * Drops dead entries, evicts the least recently used beyond `maxSessions - 1` (never the id being
 * set), then stores. KEYS: index, key. ARGV: id, value, idle, max, key prefix. Returns the
 * number evicted.
 */
const SET = script(`
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local idle = tonumber(ARGV[3])
if idle > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - idle * 1000)
  redis.call('SET', KEYS[2], ARGV[2], 'PX', idle)
else
  redis.call('SET', KEYS[2], ARGV[2])
end
redis.call('ZREM', KEYS[1], ARGV[1])
local excess = redis.call('ZCARD', KEYS[1]) + 1 - tonumber(ARGV[4])
if excess > 0 then
  local evicted = redis.call('ZPOPMIN', KEYS[1], excess)
  for i = 1, #evicted, 2 do redis.call('DEL', ARGV[5] .. evicted[i]) end
else
  excess = 0
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
return excess
`);

/** KEYS: index, key. ARGV: id. */
const DELETE = script(`
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[1], ARGV[1])
return 0
`);

/**
 * Core's `SessionStore` in Redis: every instance behind the load balancer finds every session.
 * One round trip per operation (a `get` per legacy request). A failure of Redis rejects with a
 * `RedisError` (the listener answers 500, -32603): the request fails honestly instead of being
 * served without its session.
 */
export class RedisSessionStore implements SessionStore {
  readonly #link: RedisLink;
  readonly #index: string;
  readonly #keyPrefix: string;
  readonly #idle: string;
  readonly #max: string;

  constructor(link: RedisLink, config: RedisConfig) {
    this.#link = link;
    this.#index = `${config.prefix}sessions`;
    this.#keyPrefix = `${config.prefix}session:`;
    this.#idle = String(config.sessionIdleTimeout);
    this.#max = String(config.maxSessions);
  }

  async get(id: string): Promise<Session | undefined> {
    const text = await this.#link.eval<string | null>(
      GET,
      [this.#index, this.#keyPrefix + id],
      [id, this.#idle],
    );
    if (typeof text !== 'string') return undefined;
    const decoded = decodeJson(text);
    // Not a session this store wrote (another writer under the prefix): as good as absent.
    if (!decoded.ok || typeof decoded.value !== 'object' || decoded.value === null) return undefined;
    return decoded.value as Session;
  }

  async set(id: string, session: Session): Promise<void> {
    await this.#link.eval<number>(
      SET,
      [this.#index, this.#keyPrefix + id],
      [id, encodeJson(session), this.#idle, this.#max, this.#keyPrefix],
    );
  }

  async delete(id: string): Promise<void> {
    await this.#link.eval<number>(DELETE, [this.#index, this.#keyPrefix + id], [id]);
  }

  /** Live sessions across the cluster (entries not yet found dead count until the next `set`). */
  async size(): Promise<number> {
    return this.#link.command<number>(['ZCARD', this.#index]);
  }
}
