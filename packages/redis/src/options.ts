import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_TASKS,
  DEFAULT_SESSION_IDLE_TIMEOUT,
  type SnodoError,
} from '@snodo/core';
import {
  COMMON_RULES,
  checkOptions,
  duration,
  type OptionSchema,
  optionError,
  other,
  positive,
} from '@snodo/core/internal';
import {
  DEFAULT_COMMAND_TIMEOUT,
  DEFAULT_CONNECT_TIMEOUT,
  DEFAULT_CONTROL_TIMEOUT,
  DEFAULT_MAX_CONTROL_BYTES,
  DEFAULT_MAX_RECONNECT_DELAY,
  DEFAULT_OWNER_TTL,
  DEFAULT_PREFIX,
  DEFAULT_REDIS_MAX_MESSAGE_BYTES,
  DEFAULT_TASK_UPDATE_ATTEMPTS,
} from './defaults.js';

/** Options of `connectRedis`. */
export interface RedisOptions {
  /** `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. Required. */
  url: string;
  /** Prefix of every key and channel (default `snodo:`): instances serving one endpoint share it. */
  prefix?: string;
  /** Sessions held across the cluster; the least recently used is evicted to make room. Default 10,000. */
  maxSessions?: number;
  /** A session unused for this long (ms) expires in Redis. Default 30 minutes; 0 disables expiry. */
  sessionIdleTimeout?: number;
  /** A command not answered by then fails, in ms. Default 5,000. */
  commandTimeout?: number;
  /** `connectRedis` fails when Redis is not reached by then, in ms. Default 10,000. */
  connectTimeout?: number;
  /** Longest wait between reconnection attempts, in ms. Default 2,000. */
  maxReconnectDelay?: number;
  /** Largest change message published or accepted, in bytes. Default 65,536. */
  maxMessageBytes?: number;
  /** Tasks held across the cluster by `taskStore`, running and finished; a new one beyond it is refused. Default 1,000. */
  maxTasks?: number;
  /** Times a task update computes its change again when another instance changed the task meanwhile. Default 16. */
  taskUpdateAttempts?: number;
  /** A record of the sessions whose open work an instance holds expires this long after its last refresh (ms). Default 15,000. */
  ownerTtl?: number;
  /** A control message not acknowledged by the instances holding its session by then fails (ms). Default 5,000. */
  controlTimeout?: number;
  /** Largest control message sent or accepted, in bytes. Default 4 MiB. */
  maxControlBytes?: number;
}

/** Options validated once, defaults filled in. */
export interface RedisConfig {
  readonly url: string;
  readonly prefix: string;
  readonly maxSessions: number;
  readonly sessionIdleTimeout: number;
  readonly commandTimeout: number;
  readonly connectTimeout: number;
  readonly maxReconnectDelay: number;
  readonly maxMessageBytes: number;
  readonly maxTasks: number;
  readonly taskUpdateAttempts: number;
  readonly ownerTtl: number;
  readonly controlTimeout: number;
  readonly maxControlBytes: number;
}

/** What `connectRedis` takes, with every rule. */
export const REDIS_OPTIONS: OptionSchema = Object.freeze({
  url: other('a redis:// or rediss:// URL'),
  prefix: other('a non-empty string'),
  maxSessions: COMMON_RULES.maxSessions,
  sessionIdleTimeout: COMMON_RULES.sessionIdleTimeout,
  commandTimeout: duration(1),
  connectTimeout: duration(1),
  maxReconnectDelay: duration(1),
  maxMessageBytes: COMMON_RULES.maxMessageBytes,
  maxTasks: positive,
  taskUpdateAttempts: positive,
  // At least 3 ms, so that a refresh every third of it is a timer of at least 1 ms.
  ownerTtl: duration(3),
  controlTimeout: duration(1),
  maxControlBytes: positive,
});

export function resolveRedisOptions(options: RedisOptions): RedisConfig {
  checkOptions('connectRedis', options, REDIS_OPTIONS);
  if (!isRedisUrl(options.url)) {
    throw invalid(`url must be a redis:// or rediss:// URL, got ${JSON.stringify(options.url)}`);
  }
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (typeof prefix !== 'string' || prefix === '') {
    throw invalid(`prefix must be a non-empty string, got ${JSON.stringify(options.prefix)}`);
  }
  return Object.freeze({
    url: options.url,
    prefix,
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    sessionIdleTimeout: options.sessionIdleTimeout ?? DEFAULT_SESSION_IDLE_TIMEOUT,
    commandTimeout: options.commandTimeout ?? DEFAULT_COMMAND_TIMEOUT,
    connectTimeout: options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT,
    maxReconnectDelay: options.maxReconnectDelay ?? DEFAULT_MAX_RECONNECT_DELAY,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_REDIS_MAX_MESSAGE_BYTES,
    maxTasks: options.maxTasks ?? DEFAULT_MAX_TASKS,
    taskUpdateAttempts: options.taskUpdateAttempts ?? DEFAULT_TASK_UPDATE_ATTEMPTS,
    ownerTtl: options.ownerTtl ?? DEFAULT_OWNER_TTL,
    controlTimeout: options.controlTimeout ?? DEFAULT_CONTROL_TIMEOUT,
    maxControlBytes: options.maxControlBytes ?? DEFAULT_MAX_CONTROL_BYTES,
  });
}

function isRedisUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const { protocol, hostname } = new URL(value);
    return (protocol === 'redis:' || protocol === 'rediss:') && hostname !== '';
  } catch {
    return false;
  }
}

function invalid(message: string): SnodoError {
  return optionError(message);
}
