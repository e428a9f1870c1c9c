import { createSession, withSession } from '@snodo/core/internal';
import { describe, expect, it } from 'vitest';
import { RedisError } from '../src/index.js';
import { useRedis } from './helpers/cluster.js';
import { until } from './helpers/until.js';

const { server, cluster } = useRedis();

const session = (name: string) =>
  createSession('2025-06-18', { elicitation: {} }, { name, version: '1.0.0' });

describe('RedisSessionStore', () => {
  it('stores a session on one instance that every other instance finds, with its changes and deletion', async () => {
    const {
      instances: [a, b],
    } = await cluster(2);
    const first = session('client');
    await a.sessionStore.set('s1', first);
    expect(await b.sessionStore.get('s1')).toEqual(first);
    const initialized = withSession(first, { initialized: true, subscriptions: ['demo://a'] });
    await b.sessionStore.set('s1', initialized);
    expect(await a.sessionStore.get('s1')).toEqual(initialized);
    await a.sessionStore.delete('s1');
    expect(await b.sessionStore.get('s1')).toBeUndefined();
    expect(await b.sessionStore.size()).toBe(0);
  });

  it('expires a session sessionIdleTimeout after its last use, each get refreshing it (GETEX)', async () => {
    const {
      prefix,
      instances: [a],
    } = await cluster(1, { sessionIdleTimeout: 60_000 });
    await a.sessionStore.set('s1', session('c'));
    const ttl = () => Number(server().cli('PTTL', `${prefix}session:s1`));
    expect(ttl()).toBeGreaterThan(59_000);
    expect(ttl()).toBeLessThanOrEqual(60_000);
    server().cli('PEXPIRE', `${prefix}session:s1`, '5000');
    expect(ttl()).toBeLessThanOrEqual(5_000);
    await a.sessionStore.get('s1');
    expect(ttl()).toBeGreaterThan(59_000);
    // Redis expiring the key is the session's end: the next get finds nothing.
    server().cli('PEXPIRE', `${prefix}session:s1`, '0');
    expect(await a.sessionStore.get('s1')).toBeUndefined();
  });

  it('keeps sessions forever with sessionIdleTimeout 0', async () => {
    const {
      prefix,
      instances: [a],
    } = await cluster(1, { sessionIdleTimeout: 0 });
    await a.sessionStore.set('s1', session('c'));
    await a.sessionStore.get('s1');
    expect(server().cli('PTTL', `${prefix}session:s1`)).toBe('-1');
  });

  it('holds maxSessions across the cluster and evicts the least recently used to make room', async () => {
    const {
      instances: [a, b],
    } = await cluster(2, { maxSessions: 3 });
    await a.sessionStore.set('s1', session('1'));
    await b.sessionStore.set('s2', session('2'));
    await a.sessionStore.set('s3', session('3'));
    expect(await b.sessionStore.size()).toBe(3);
    // s1 used last on the other instance: s2 is now the least recently used.
    expect(await b.sessionStore.get('s1')).toBeDefined();
    await a.sessionStore.set('s4', session('4'));
    expect(await a.sessionStore.size()).toBe(3);
    expect(await a.sessionStore.get('s2')).toBeUndefined();
    for (const id of ['s1', 's3', 's4']) expect(await b.sessionStore.get(id)).toBeDefined();
    // Storing an existing session again never evicts.
    await b.sessionStore.set('s3', session('3 again'));
    expect(await a.sessionStore.size()).toBe(3);
  });

  it('holds exactly maxSessions = 1: each new session evicts the other, never itself', async () => {
    const {
      instances: [a],
    } = await cluster(1, { maxSessions: 1 });
    await a.sessionStore.set('s1', session('1'));
    await a.sessionStore.set('s2', session('2'));
    expect(await a.sessionStore.get('s2')).toBeDefined();
    expect(await a.sessionStore.get('s1')).toBeUndefined();
  });

  it('does not count expired sessions against maxSessions', async () => {
    const {
      prefix,
      instances: [a],
    } = await cluster(1, { maxSessions: 2, sessionIdleTimeout: 60_000 });
    await a.sessionStore.set('old', session('old'));
    await a.sessionStore.set('live', session('live'));
    // "old" expires: its key goes (as Redis does) and its last use is more than the idle timeout ago.
    server().cli('PEXPIRE', `${prefix}session:old`, '0');
    server().cli('ZADD', `${prefix}sessions`, '1', 'old');
    await a.sessionStore.set('new', session('new'));
    expect(await a.sessionStore.get('live')).toBeDefined();
    expect(await a.sessionStore.get('new')).toBeDefined();
    expect(await a.sessionStore.size()).toBe(2);
  });

  it('fails at once while Redis is down, then works again once it is back (nothing hangs)', async () => {
    const {
      instances: [a],
    } = await cluster(1);
    await a.sessionStore.set('s1', session('c'));
    await server().kill();
    const failure = await a.sessionStore.get('s1').catch((error: unknown) => error);
    expect(RedisError.is(failure)).toBe(true);
    expect((failure as RedisError).code).toBe('SNODO_ERR_REDIS_UNAVAILABLE');
    await expect(a.sessionStore.set('s2', session('c'))).rejects.toMatchObject({
      code: 'SNODO_ERR_REDIS_UNAVAILABLE',
    });
    await server().restart();
    // A restarted Redis without persistence lost the session (404 for its client), and serves new ones.
    await until('the store to work again', async () => {
      try {
        await a.sessionStore.set('s2', session('c'));
        return true;
      } catch {
        return false;
      }
    });
    expect(await a.sessionStore.get('s1')).toBeUndefined();
    expect(await a.sessionStore.get('s2')).toEqual(session('c'));
  });
});
