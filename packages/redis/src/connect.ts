import { randomUUID } from 'node:crypto';
import type { ChangeHub } from '@snodo/core';
import { type ChangeStats, RedisChangeHub } from './change-hub.js';
import { type ControlStats, RedisControlChannel } from './control.js';
import { type ConnectionHealth, RedisLink } from './link.js';
import { type RedisOptions, resolveRedisOptions } from './options.js';
import { RedisSessionStore } from './session-store.js';
import { RedisTaskStore } from './task-store.js';

/** What `health()` reports: the Redis link of this instance and what the fan-out missed. */
export interface RedisHealth {
  /** Both connections are up and answered a PING within `commandTimeout`. */
  readonly ok: boolean;
  /** The connection of the session store and of publishes. */
  readonly commands: ConnectionHealth;
  /** The pub/sub connection that receives the other instances' changes. */
  readonly subscriber: ConnectionHealth;
  readonly changes: ChangeStats & { readonly lastPublishError?: string };
  readonly control: ControlStats;
}

/** An instance's share of the cluster state: pass `sessionStore` to the HTTP host and `hub` to `createServer`. */
export interface SnodoRedis {
  /** This instance's id (random per `connectRedis`): how its own publishes are recognised. */
  readonly instanceId: string;
  /** Core's `SessionStore`, in Redis: the `sessionStore` option of `listen`, the Fastify plugin, `createFetchHandler`. */
  readonly sessionStore: RedisSessionStore;
  /** Core's `ChangeHub`, fanned out to every instance: the `hub` of `createServer`; notify through it. */
  readonly hub: ChangeHub & { readonly stats: ChangeStats };
  /** Core's `TaskStore`, shared by every instance: the `store` of `createTaskManager`. */
  readonly taskStore: RedisTaskStore;
  /**
   * Core's `ControlChannel` across instances: a cancel, a client's answer, a session update or a
   * DELETE reaches the instance holding the session's open work, acknowledged once delivered
   * there. The `control` option of the HTTP host, beside `sessionStore`.
   */
  readonly control: RedisControlChannel;
  /** The state of the link, with a PING on each connection (bounded by `commandTimeout`); never rejects. */
  health(): Promise<RedisHealth>;
  /** Closes both connections; the store and the hub's publishes fail with `SNODO_ERR_REDIS_CLOSED` after. Idempotent. */
  close(): Promise<void>;
}

/**
 * Connects this instance to the Redis every instance behind the load balancer shares: two
 * connections (commands, and pub/sub), ready when it resolves. Rejects with
 * `SNODO_ERR_REDIS_CONNECT` when Redis cannot be reached within `connectTimeout`, or with
 * `SNODO_ERR_INVALID_OPTION` for a bad option. Once connected, a lost connection reconnects by
 * itself (backing off up to `maxReconnectDelay`); meanwhile store calls fail at once and changes
 * reach this instance only.
 */
export async function connectRedis(options: RedisOptions): Promise<SnodoRedis> {
  const config = resolveRedisOptions(options);
  const link = new RedisLink(config);
  const instanceId = randomUUID();
  await link.connect();
  const hub = new RedisChangeHub(link, config, instanceId);
  const taskStore = new RedisTaskStore(link, config, instanceId);
  const control = new RedisControlChannel(link, config, instanceId);
  try {
    await hub.start();
    await taskStore.start();
    await control.start();
  } catch (error) {
    control.close();
    await link.close();
    throw error;
  }
  return Object.freeze({
    instanceId,
    sessionStore: new RedisSessionStore(link, config),
    hub,
    taskStore,
    control,
    async health(): Promise<RedisHealth> {
      const { ok, commands, subscriber } = await link.health();
      const changes = hub.stats;
      return {
        ok,
        commands,
        subscriber,
        changes: hub.lastError === undefined ? changes : { ...changes, lastPublishError: hub.lastError },
        control: control.stats,
      };
    },
    close: () => {
      control.close();
      return link.close();
    },
  });
}
