/** Every default limit of the client, named after what it bounds. */

/** Deadline of one call, in ms, unless the call sets `timeout`. */
export const DEFAULT_CALL_TIMEOUT = 60_000;
/** How long the stdio `server/discover` probe waits before falling back to `initialize`. */
export const DEFAULT_PROBE_TIMEOUT = 5_000;
/** MRTR rounds (`input_required` answered and retried) one call may take: core's constant. */
export { DEFAULT_MAX_INPUT_ROUNDS } from '@snodo/core';
/** Pages the `all*` helpers follow before failing with SNODO_ERR_PAGE_LIMIT. */
export const DEFAULT_MAX_PAGES = 100;
/** Notifications a subscription may hold unread; one more ends it with SNODO_ERR_SUBSCRIPTION_OVERFLOW. */
export const DEFAULT_CLIENT_SUBSCRIPTION_QUEUE = 1_024;
/** Cached list/read results kept at most (oldest evicted first). */
export const DEFAULT_MAX_CACHE_ENTRIES = 1_000;
/** Bytes of one stdout line of a stdio server (newline excluded), as the stdio server transport bounds its input. */
export const DEFAULT_MAX_LINE_BYTES = 2_000_000;
/** Bytes of one HTTP response body (JSON) or SSE event. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16_000_000;
/** stdio shutdown: how long to wait for the server to exit after stdin closes, before SIGTERM. */
export const DEFAULT_EXIT_TIMEOUT = 2_000;
/** stdio shutdown: how long to wait after SIGTERM before SIGKILL. */
export const DEFAULT_TERM_TIMEOUT = 2_000;
/** Characters of a stdio server's stderr kept to explain its exit. */
export const STDERR_TAIL_CHARS = 4_096;
/** Keep-alive connections the HTTP pool opens to the server at most. */
export const DEFAULT_HTTP_CONNECTIONS = 16;
/** Tasks: ms between polls of a task whose server suggests no `pollIntervalMs`. */
export const DEFAULT_TASK_POLL_INTERVAL = 1_000;
/** Tasks: the longest wait between polls the backoff reaches (a server's longer `pollIntervalMs` wins). */
export const DEFAULT_MAX_TASK_POLL_INTERVAL = 10_000;
