import { decodeJson, encodeJson, type StoredTask, type TaskStore } from '@snodo/core';
import { RedisError } from './errors.js';
import { type RedisLink, script } from './link.js';
import type { RedisConfig } from './options.js';

/*
 * Layout, under the prefix:
 *
 *   task:<id>   string   the task as JSON; expires at its `expiresAt` (PXAT), none while null
 *   tasks       zset     every id held, scored by its `expiresAt` (+inf while null)
 *   tasks       channel  each stored change: {o: instanceId, id, t?: the task's JSON}
 *
 * Invariants, kept by running each write as one script (atomic, one round trip):
 * - an id is in `tasks` if its key exists; an entry whose score passed is dead (its key expired
 *   or is about to), and `create` removes such entries before counting;
 * - `create` never makes `tasks` hold more than `maxTasks` entries, and never evicts an entry
 *   whose score has not passed (a client may read the task for its whole `ttlMs`, as in core's
 *   memory store): a full store refuses;
 * - a change is stored only when the task is still the JSON it was computed from (compare and
 *   set): concurrent writers on any instance never lose each other's changes.
 * `expiresAt` comes from the instance's clock (the task manager's), so the store's expiry agrees
 * with the `ttlMs` the client was told.
 */

/** KEYS: index, key, channel. ARGV: id, json, score, expiresAt ('' none), max, now, key prefix, message. */
const CREATE = script(`
local max = tonumber(ARGV[5])
if redis.call('ZCARD', KEYS[1]) >= max then
  local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[6])
  for i = 1, #dead do redis.call('DEL', ARGV[7] .. dead[i]) end
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[6])
end
if redis.call('ZCARD', KEYS[1]) >= max or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if ARGV[4] == '' then redis.call('SET', KEYS[2], ARGV[2]) else redis.call('SET', KEYS[2], ARGV[2], 'PXAT', ARGV[4]) end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('PUBLISH', KEYS[3], ARGV[8])
return 1
`);

/** KEYS: index, key, channel. ARGV: id, expected json, json, score, expiresAt ('' none), message. */
const UPDATE = script(`
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
if ARGV[5] == '' then redis.call('SET', KEYS[2], ARGV[3]) else redis.call('SET', KEYS[2], ARGV[3], 'PXAT', ARGV[5]) end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1]) else redis.call('ZREM', KEYS[1], ARGV[1]) end
redis.call('PUBLISH', KEYS[3], ARGV[6])
return 1
`);

/** One change on the channel: the instance that stored it, the task id, and the task unless too large. */
interface TaskMessage {
  readonly o: string;
  readonly id: string;
  readonly t?: StoredTask;
}

/** Counters of the task store since `connectRedis`. */
export interface TaskStoreStats {
  /** Changes received from other instances and passed to this instance's listeners. */
  readonly received: number;
  /** Messages on the channel that were not a change, or whose task could not be read: ignored. */
  readonly ignored: number;
  /** Updates that found the task changed by another writer and computed the change again. */
  readonly retries: number;
}

/**
 * Core's `TaskStore` in Redis: a task created on one instance is read, answered and cancelled on
 * every other, and outlives the instance that ran it (until its `expiresAt`). Bounded by
 * `maxTasks` across the cluster. `update` is compare-and-set: it reads the task, computes the
 * change, and stores it only if nobody changed the task meanwhile, else reads again, at most
 * `taskUpdateAttempts` times (then `SNODO_ERR_TASK_CONFLICT`).
 *
 * Each change reaches this instance's listeners at once (without a round trip) and the others'
 * through pub/sub. Pub/sub is at most once: a change published while an instance's subscriber
 * connection is down never reaches it there. Core's task manager does not depend on it: its
 * lease renewal stores each running task again, every third of `leaseMs`, and the stored task
 * goes to this instance's listeners (a `tasks/cancel` or an answer missed is acted on then);
 * clients read tasks with `tasks/get`.
 */
export class RedisTaskStore implements TaskStore {
  readonly #link: RedisLink;
  readonly #index: string;
  readonly #keyPrefix: string;
  readonly #channel: string;
  readonly #instanceId: string;
  readonly #maxTasks: string;
  readonly #attempts: number;
  readonly #maxBytes: number;
  readonly #listeners = new Set<(task: StoredTask) => void>();
  readonly #stats = { received: 0, ignored: 0, retries: 0 };

  constructor(link: RedisLink, config: RedisConfig, instanceId: string) {
    this.#link = link;
    this.#index = `${config.prefix}tasks`;
    this.#keyPrefix = `${config.prefix}task:`;
    this.#channel = `${config.prefix}tasks`;
    this.#instanceId = instanceId;
    this.#maxTasks = String(config.maxTasks);
    this.#attempts = config.taskUpdateAttempts;
    this.#maxBytes = config.maxMessageBytes;
  }

  /** Subscribes to the other instances' changes (once, before serving). */
  start(): Promise<void> {
    return this.#link.subscribe(this.#channel, (text) => this.#receive(text));
  }

  get stats(): TaskStoreStats {
    return { ...this.#stats };
  }

  async create(task: StoredTask): Promise<boolean> {
    const json = encodeJson(task);
    const created = await this.#link.eval<number>(
      CREATE,
      [this.#index, this.#keyPrefix + task.taskId, this.#channel],
      [
        task.taskId,
        json,
        score(task),
        expiry(task),
        this.#maxTasks,
        String(Date.now()),
        this.#keyPrefix,
        this.#message(task, json),
      ],
    );
    if (created !== 1) return false;
    this.#emit(task);
    return true;
  }

  async get(taskId: string): Promise<StoredTask | undefined> {
    return (await this.#read(taskId))?.task;
  }

  async update(
    taskId: string,
    change: (task: StoredTask) => StoredTask | undefined,
  ): Promise<StoredTask | undefined> {
    for (let attempt = 1; attempt <= this.#attempts; attempt++) {
      const current = await this.#read(taskId);
      if (current === undefined) return undefined;
      const next = change(current.task);
      if (next === undefined) return current.task;
      const json = encodeJson(next);
      const stored = await this.#link.eval<number>(
        UPDATE,
        [this.#index, this.#keyPrefix + taskId, this.#channel],
        [taskId, current.json, json, score(next), expiry(next), this.#message(next, json)],
      );
      if (stored === 1) {
        this.#emit(next);
        return next;
      }
      this.#stats.retries++;
    }
    throw new RedisError(
      'SNODO_ERR_TASK_CONFLICT',
      `task ${taskId} changed under each of ${this.#attempts} attempts (taskUpdateAttempts)`,
    );
  }

  subscribe(listener: (task: StoredTask) => void): () => void {
    const entry = (task: StoredTask) => listener(task);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  /** Tasks held across the cluster (entries whose `expiresAt` passed count until the next `create` at the bound). */
  async size(): Promise<number> {
    return this.#link.command<number>(['ZCARD', this.#index]);
  }

  /** The task and the exact JSON it was read as (what a compare-and-set compares), unless absent or expired. */
  async #read(taskId: string): Promise<{ task: StoredTask; json: string } | undefined> {
    const json = await this.#link.command<string | null>(['GET', this.#keyPrefix + taskId]);
    if (typeof json !== 'string') return undefined;
    const task = parseTask(json);
    // Expired by this instance's clock (Redis drops it at the same time, by its own).
    if (task === undefined || (task.expiresAt != null && task.expiresAt <= Date.now())) return undefined;
    return { task, json };
  }

  /** The message that tells the other instances: with the task when it fits `maxMessageBytes`. */
  #message(task: StoredTask, json: string): string {
    const full = `{"o":${JSON.stringify(this.#instanceId)},"id":${JSON.stringify(task.taskId)},"t":${json}}`;
    if (Buffer.byteLength(full) <= this.#maxBytes) return full;
    return JSON.stringify({ o: this.#instanceId, id: task.taskId });
  }

  #receive(text: string): void {
    const message = parseMessage(text);
    if (message === undefined) {
      this.#stats.ignored++;
      return;
    }
    if (message.o === this.#instanceId) return;
    if (message.t !== undefined) {
      this.#stats.received++;
      this.#emit(message.t);
      return;
    }
    // Too large for the channel: read it (a later change may be read instead; listeners order by revision).
    this.#read(message.id).then(
      (read) => {
        if (read === undefined) {
          this.#stats.ignored++;
          return;
        }
        this.#stats.received++;
        this.#emit(read.task);
      },
      () => {
        this.#stats.ignored++;
      },
    );
  }

  #emit(task: StoredTask): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(task);
      } catch {
        // A listener's failure is its own; the change is stored.
      }
    }
  }
}

function score(task: StoredTask): string {
  return task.expiresAt == null ? '+inf' : String(task.expiresAt);
}

function expiry(task: StoredTask): string {
  return task.expiresAt == null ? '' : String(task.expiresAt);
}

/** A task this store wrote, or undefined (another writer under the prefix: as good as absent). */
function parseTask(json: string): StoredTask | undefined {
  const decoded = decodeJson(json);
  if (!decoded.ok || !isTask(decoded.value)) return undefined;
  return decoded.value;
}

function isTask(value: unknown): value is StoredTask {
  if (typeof value !== 'object' || value === null) return false;
  const { taskId, status, revision, leaseUntil } = value as Record<string, unknown>;
  return (
    typeof taskId === 'string' &&
    typeof status === 'string' &&
    typeof revision === 'number' &&
    typeof leaseUntil === 'number'
  );
}

/** A change message, or undefined for anything else (never throws). */
function parseMessage(text: string): TaskMessage | undefined {
  const decoded = decodeJson(text);
  if (!decoded.ok || typeof decoded.value !== 'object' || decoded.value === null) return undefined;
  const { o, id, t } = decoded.value as Record<string, unknown>;
  if (typeof o !== 'string' || typeof id !== 'string') return undefined;
  if (t === undefined) return { o, id };
  if (!isTask(t) || t.taskId !== id) return undefined;
  return { o, id, t };
}
