/** Every default of core's Streamable HTTP layer, named after what it bounds. */

/** Interval of `: keepalive` comment lines on an idle SSE response, in ms. */
export const DEFAULT_KEEP_ALIVE_INTERVAL = 15_000;
/** Largest request body accepted, in bytes (the fetch adapter and `prepare` enforce it; 413 above). */
export const DEFAULT_MAX_BODY_BYTES = 2_000_000;
/**
 * Node hosts (the listener, the Fastify plugin): bytes a client may still send after the answer
 * that ends its connection (the rest of a refused body, requests past the per-connection limit),
 * read and discarded so the answer reaches it. More, and the connection is cut.
 */
export const DEFAULT_MAX_DRAIN_BYTES = 8 * 1024 * 1024;
/** Node hosts: how long that draining may take, in ms, before the connection is cut. */
export const DEFAULT_DRAIN_TIMEOUT = 5_000;
/** Sessions of the initialize-based revisions the in-memory store holds; the least recently used goes first. */
export const DEFAULT_MAX_SESSIONS = 10_000;
/** A session unused for this long is forgotten (404 afterwards), in ms. */
export const DEFAULT_SESSION_IDLE_TIMEOUT = 30 * 60_000;
/** Origin host names accepted when `allowedOriginHosts` is not given: the loopback names. */
export const DEFAULT_ALLOWED_ORIGIN_HOSTS: readonly string[] = Object.freeze([
  'localhost',
  '127.0.0.1',
  '[::1]',
]);
/** Longest `Mcp-Session-Id` looked up; a longer one cannot be ours (404). */
export const MAX_SESSION_ID_LENGTH = 128;
/** Random bytes of a minted session id (160 bits, written as 27 base64url characters). */
export const SESSION_ID_BYTES = 20;
