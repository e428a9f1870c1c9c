/** Every default limit of core, named after what it bounds. */

/** Items per page of every list (`tools/list`, `prompts/list`, ...). */
export const DEFAULT_PAGE_SIZE = 100;
/** `ttlMs` of cacheable 2026-07-28 results when neither the server nor the item sets one. */
export const DEFAULT_TTL_MS = 60_000;
/** `cacheScope` default: private, so a list filtered per user is never shared across users by accident. */
export const DEFAULT_CACHE_SCOPE = 'private' as const;
/** Completion values per `completion/complete` result (the spec's maximum). */
export const MAX_COMPLETION_VALUES = 100;
/** Notifications one subscriber may have unread before it is dropped (a slow reader cannot grow memory). */
export const DEFAULT_SUBSCRIPTION_QUEUE = 64;
/** Lifetime of an MRTR `requestState`. */
export const DEFAULT_REQUEST_STATE_TTL_MS = 600_000;
/** Input rounds (MRTR or server-initiated requests) one request may take. */
export const DEFAULT_MAX_INPUT_ROUNDS = 8;
/** Keys of the MRTR keyring (`mrtr.keys`): enough for a rotation in progress, few enough to try. */
export const MAX_MRTR_KEYS = 8;
/** Shortest MRTR secret, in bytes: the HMAC-SHA-256 output size. */
export const MIN_MRTR_SECRET_BYTES = 32;
/**
 * Items one JSON-RPC batch (2025-03-26) may hold, notifications included; a longer batch is refused
 * whole with -32600 (HTTP 400) before anything runs. Each item is still admitted by the executor
 * like a single request: 100 fits an idle default executor (64 running + 256 queued) with room to
 * spare for other clients.
 */
export const DEFAULT_MAX_BATCH_ITEMS = 100;
/**
 * Longest URI `resources/read`, completions and subscriptions accept. Matching is linear in the
 * URI's length (uri-template-match.ts), so this bounds the work per template tried: at most
 * 3 × (variables + 1) × (4,096 + 1) steps plus the template's length.
 */
export const DEFAULT_MAX_URI_LENGTH = 4096;
/**
 * Most `{+var}` expressions one resource template may have. Not a bound on matching work (that is
 * linear in the URI's length for any template); a definition-time rule, because each `{+var}` spans
 * '/' and several in one template make which part of a URI each one gets hard to predict.
 */
export const DEFAULT_MAX_RESERVED_EXPRESSIONS = 2;

// Tasks extension (`createTaskManager`, `createMemoryTaskStore`).

/** Tasks one task manager runs at once; a call beyond it stays an ordinary call (`auto`) or gets -32000 (`always`). */
export const DEFAULT_MAX_RUNNING_TASKS = 32;
/** A task's deadline, in ms from when the call became a task: it then fails with -32001. */
export const DEFAULT_TASK_TIMEOUT = 3_600_000;
/** How long a finished task (its result or error) stays readable, in ms from when it finished. */
export const DEFAULT_TASK_RESULT_TTL_MS = 3_600_000;
/** The `pollIntervalMs` a task suggests to its client. */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1_000;
/** `auto` tools: ms a call runs as an ordinary call before it becomes a task. */
export const DEFAULT_TASK_AFTER_MS = 1_000;
/**
 * The lease of a running task, renewed every third of it by the instance running it: a task whose
 * lease has passed while nobody runs it (its instance stopped) is failed when next read.
 */
export const DEFAULT_TASK_LEASE_MS = 30_000;
/** Task ids one `subscriptions/listen` may name (`notifications.taskIds`); more is -32602. */
export const DEFAULT_MAX_LISTEN_TASK_IDS = 64;
/** Tasks an in-memory task store holds, running and finished; a new task beyond it is refused. */
export const DEFAULT_MAX_TASKS = 1_000;

/**
 * The longest delay a timer honours (2^31 - 1 ms, about 24.8 days); a longer one fires at once.
 * Every duration option of every package is bounded by this one constant.
 */
export const MAX_TIMER_DELAY = 2_147_483_647;
