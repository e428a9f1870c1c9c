export {
  ExecutorError,
  type ExecutorErrorCode,
  type ExecutorErrorOptions,
} from './errors.js';
export {
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_QUEUE,
  DEFAULT_MAX_SUBSCRIPTIONS,
  DEFAULT_REFUSAL_LOG_INTERVAL,
  DEFAULT_REQUEST_TIMEOUT,
  Executor,
  type ExecutorOptions,
  type ExecutorOwner,
  type ExecutorStats,
  type SubmitOptions,
  type SubscriptionSlot,
} from './executor.js';
export type { AbortSignalLike } from './lazy-signal.js';
