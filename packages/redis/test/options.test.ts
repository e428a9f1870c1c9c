import { readFileSync } from 'node:fs';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_TASKS,
  DEFAULT_SESSION_IDLE_TIMEOUT,
  SnodoError,
} from '@snodo/core';
import { describe, expect, it } from 'vitest';
import {
  connectRedis,
  DEFAULT_COMMAND_TIMEOUT,
  DEFAULT_CONNECT_TIMEOUT,
  DEFAULT_CONTROL_TIMEOUT,
  DEFAULT_MAX_CONTROL_BYTES,
  DEFAULT_MAX_RECONNECT_DELAY,
  DEFAULT_OWNER_TTL,
  DEFAULT_PREFIX,
  DEFAULT_REDIS_MAX_MESSAGE_BYTES,
  DEFAULT_TASK_UPDATE_ATTEMPTS,
  REDIS_ERRORS,
  RedisError,
  type RedisOptions,
} from '../src/index.js';
import { resolveRedisOptions } from '../src/options.js';

const URL = 'redis://127.0.0.1:6379';
const readme = readFileSync(new globalThis.URL('../README.md', import.meta.url), 'utf8');

function refusal(options: Partial<RedisOptions> & Record<string, unknown>): string {
  try {
    resolveRedisOptions({ url: URL, ...options } as RedisOptions);
  } catch (error) {
    expect(SnodoError.is(error) && error.code).toBe('SNODO_ERR_INVALID_OPTION');
    const { message } = error as Error;
    expect(message.startsWith('Invalid option: ')).toBe(true);
    return message.slice('Invalid option: '.length);
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
}

/** The option names in the README's options table. */
function readmeOptions(): string[] {
  const start = readme.indexOf('## Options');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1] as string);
}

describe('connectRedis options', () => {
  it('fills in the defaults, core’s session bounds among them', () => {
    expect(resolveRedisOptions({ url: URL })).toEqual({
      url: URL,
      prefix: DEFAULT_PREFIX,
      maxSessions: DEFAULT_MAX_SESSIONS,
      sessionIdleTimeout: DEFAULT_SESSION_IDLE_TIMEOUT,
      commandTimeout: DEFAULT_COMMAND_TIMEOUT,
      connectTimeout: DEFAULT_CONNECT_TIMEOUT,
      maxReconnectDelay: DEFAULT_MAX_RECONNECT_DELAY,
      maxMessageBytes: DEFAULT_REDIS_MAX_MESSAGE_BYTES,
      maxTasks: DEFAULT_MAX_TASKS,
      taskUpdateAttempts: DEFAULT_TASK_UPDATE_ATTEMPTS,
      ownerTtl: DEFAULT_OWNER_TTL,
      controlTimeout: DEFAULT_CONTROL_TIMEOUT,
      maxControlBytes: DEFAULT_MAX_CONTROL_BYTES,
    });
    expect([DEFAULT_MAX_TASKS, DEFAULT_TASK_UPDATE_ATTEMPTS]).toEqual([1_000, 16]);
    expect([DEFAULT_OWNER_TTL, DEFAULT_CONTROL_TIMEOUT, DEFAULT_MAX_CONTROL_BYTES]).toEqual([
      15_000,
      5_000,
      4 * 1024 * 1024,
    ]);
  });

  it('refuses an unknown option, listing every option the README documents', async () => {
    const error = await connectRedis({ url: URL, bogus: 1 } as RedisOptions).catch((e: unknown) => e);
    const message = (error as Error).message;
    expect(message).toMatch(/^Invalid option: unknown connectRedis option "bogus"; known: /);
    const known = message.slice(message.indexOf('known: ') + 'known: '.length).split(', ');
    expect(new Set(known)).toEqual(new Set(readmeOptions()));
  });

  it('needs a redis:// or rediss:// URL with a host', () => {
    expect(refusal({ url: undefined })).toBe('url must be a redis:// or rediss:// URL, got undefined');
    expect(refusal({ url: 'http://127.0.0.1:6379' })).toMatch(/^url must be a redis/);
    expect(refusal({ url: 'redis://' })).toMatch(/^url must be a redis/);
    expect(resolveRedisOptions({ url: 'rediss://user:pw@cache.internal:6380/2' }).url).toBe(
      'rediss://user:pw@cache.internal:6380/2',
    );
    expect(refusal({ prefix: '' })).toBe('prefix must be a non-empty string, got ""');
  });

  it('takes each bound at its smallest and largest value and refuses one beyond', () => {
    for (const name of ['maxSessions', 'maxMessageBytes', 'maxControlBytes'] as const) {
      expect(resolveRedisOptions({ url: URL, [name]: 1 })[name]).toBe(1);
      expect(refusal({ [name]: 0 })).toBe(`${name} must be a positive integer, got 0`);
    }
    expect(resolveRedisOptions({ url: URL, sessionIdleTimeout: 0 }).sessionIdleTimeout).toBe(0);
    expect(refusal({ sessionIdleTimeout: -1 })).toBe(
      'sessionIdleTimeout must be an integer number of milliseconds from 0 to 2147483647, got -1',
    );
    for (const name of ['commandTimeout', 'connectTimeout', 'maxReconnectDelay', 'controlTimeout'] as const) {
      expect(resolveRedisOptions({ url: URL, [name]: 1 })[name]).toBe(1);
      expect(resolveRedisOptions({ url: URL, [name]: 2_147_483_647 })[name]).toBe(2_147_483_647);
      const rule = 'an integer number of milliseconds from 1 to 2147483647';
      expect(refusal({ [name]: 0 })).toBe(`${name} must be ${rule}, got 0`);
      expect(refusal({ [name]: 2_147_483_648 })).toBe(`${name} must be ${rule}, got 2147483648`);
    }
    expect(resolveRedisOptions({ url: URL, ownerTtl: 3 }).ownerTtl).toBe(3);
    expect(resolveRedisOptions({ url: URL, ownerTtl: 2_147_483_647 }).ownerTtl).toBe(2_147_483_647);
    // At least 3 ms: a refresh every third of it is a timer of at least 1 ms.
    const ttlRule = 'an integer number of milliseconds from 3 to 2147483647';
    expect(refusal({ ownerTtl: 2 })).toBe(`ownerTtl must be ${ttlRule}, got 2`);
    expect(refusal({ ownerTtl: 2_147_483_648 })).toBe(`ownerTtl must be ${ttlRule}, got 2147483648`);
    expect(refusal({ maxSessions: 1.5 })).toBe('maxSessions must be a positive integer, got 1.5');
    expect(refusal({ maxTasks: 0 })).toBe('maxTasks must be a positive integer, got 0');
    expect(refusal({ taskUpdateAttempts: 0 })).toBe('taskUpdateAttempts must be a positive integer, got 0');
  });
});

describe('the error table', () => {
  it('declares each code once and the README lists every one', () => {
    expect(Object.keys(REDIS_ERRORS)).toEqual([
      'SNODO_ERR_REDIS_CONNECT',
      'SNODO_ERR_REDIS_UNAVAILABLE',
      'SNODO_ERR_REDIS_COMMAND',
      'SNODO_ERR_REDIS_CLOSED',
      'SNODO_ERR_REDIS_MESSAGE_TOO_LARGE',
      'SNODO_ERR_TASK_CONFLICT',
    ]);
    for (const code of Object.keys(REDIS_ERRORS)) expect(readme).toContain(`\`${code}\``);
  });

  it('brands RedisError across copies, as a SnodoError', () => {
    const error = new RedisError('SNODO_ERR_REDIS_CLOSED', 'x');
    expect(error.message).toBe('The Redis link was closed: x');
    expect(RedisError.is(error) && SnodoError.is(error)).toBe(true);
    expect(RedisError.is({ [Symbol.for('snodo.redis.RedisError')]: true })).toBe(true);
    expect(RedisError.is(new SnodoError('SNODO_ERR_REDIS_CLOSED', 'x'))).toBe(false);
  });
});
