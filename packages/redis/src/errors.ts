import { defineErrors, SnodoError } from '@snodo/core';
import { branded, isBranded, rowMessage } from '@snodo/core/internal';

/**
 * Every local error of `@snodo/redis`, declared once: its code and what it means. (A bad option
 * is core's `SnodoError` with `SNODO_ERR_INVALID_OPTION`, as in every package.)
 * `test/errors.test.ts` pins this table and the README lists every row.
 */
export const REDIS_ERRORS = defineErrors({
  SNODO_ERR_REDIS_CONNECT: ['Redis could not be reached in connectTimeout'],
  SNODO_ERR_REDIS_UNAVAILABLE: ['The Redis link is down, or a command was not answered in commandTimeout'],
  SNODO_ERR_REDIS_COMMAND: ['Redis answered a command with an error'],
  SNODO_ERR_REDIS_CLOSED: ['The Redis link was closed'],
  SNODO_ERR_REDIS_MESSAGE_TOO_LARGE: [
    'A change message exceeds maxMessageBytes, or a control message maxControlBytes',
  ],
  SNODO_ERR_TASK_CONFLICT: ['A task kept changing under its update for taskUpdateAttempts attempts'],
});

export type RedisErrorCode = keyof typeof REDIS_ERRORS;

const BRAND = Symbol.for('snodo.redis.RedisError');

/** A local failure of `@snodo/redis`; `cause` holds the Redis client's own error. Works across copies. */
export class RedisError extends SnodoError {
  declare readonly code: RedisErrorCode;

  constructor(code: RedisErrorCode, detail: string, cause?: unknown) {
    super(code, rowMessage(REDIS_ERRORS[code], detail), cause === undefined ? undefined : { cause });
    this.name = 'RedisError';
  }

  static override is(value: unknown): value is RedisError {
    return isBranded(value, BRAND);
  }

  static {
    branded(RedisError, BRAND);
  }
}
