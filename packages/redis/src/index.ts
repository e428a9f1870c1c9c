// @snodo/redis: the state several instances of a Snodo server share behind one load balancer.
export type { ChangeStats, RedisChangeHub } from './change-hub.js';
export { connectRedis, type RedisHealth, type SnodoRedis } from './connect.js';
export type { ControlStats, RedisControlChannel } from './control.js';
export {
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
export { REDIS_ERRORS, RedisError, type RedisErrorCode } from './errors.js';
export type { ConnectionHealth, ConnectionState } from './link.js';
export type { RedisOptions } from './options.js';
export type { RedisSessionStore } from './session-store.js';
export type { RedisTaskStore, TaskStoreStats } from './task-store.js';
