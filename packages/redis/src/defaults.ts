/** Every default of `@snodo/redis`, named after what it bounds. */

/** Prefix of every key and channel, so several applications can share one Redis. */
export const DEFAULT_PREFIX = 'snodo:';
/** A command Redis has not answered by then fails (`SNODO_ERR_REDIS_UNAVAILABLE`), in ms. */
export const DEFAULT_COMMAND_TIMEOUT = 5_000;
/** `connectRedis` gives up when both connections are not ready by then, in ms. */
export const DEFAULT_CONNECT_TIMEOUT = 10_000;
/** Longest wait between two reconnection attempts (they back off from 50 ms), in ms. */
export const DEFAULT_MAX_RECONNECT_DELAY = 2_000;
/** Largest change message published or accepted, in bytes (a resource URI is most of it). */
export const DEFAULT_REDIS_MAX_MESSAGE_BYTES = 65_536;
/** Times a task update reads the task again after another instance changed it meanwhile (`SNODO_ERR_TASK_CONFLICT` after). */
export const DEFAULT_TASK_UPDATE_ATTEMPTS = 16;
/** An instance's record of the sessions whose open work it holds lives this long unrefreshed, in ms. */
export const DEFAULT_OWNER_TTL = 15_000;
/** A control message not acknowledged by every instance holding the session by then fails, in ms. */
export const DEFAULT_CONTROL_TIMEOUT = 5_000;
/** Largest control message (a client's answer to a server-initiated request is most of it), in bytes. */
export const DEFAULT_MAX_CONTROL_BYTES = 4 * 1024 * 1024;
