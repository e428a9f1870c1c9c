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

// ---- authorization (bearer tokens, `auth`) ----

/** Clock difference tolerated when checking a token's `exp`, `nbf` and `iat`, in ms. */
export const DEFAULT_CLOCK_SKEW = 30_000;
/** The largest `clockSkew` accepted: a token expired longer ago than this is never taken. */
export const MAX_CLOCK_SKEW = 300_000;
/** Least time between two JWKS fetches caused by an unknown `kid`, in ms. */
export const DEFAULT_JWKS_COOLDOWN = 30_000;
/** Deadline of one request to an authorization server (metadata, JWKS, introspection), in ms. */
export const DEFAULT_AUTH_FETCH_TIMEOUT = 5_000;
/** Longest bearer token read from `Authorization`, in characters (401 `invalid_token` above). */
export const DEFAULT_MAX_TOKEN_LENGTH = 8_192;

// ---- CORS (`cors`) and health (`health`) ----

/** `Access-Control-Max-Age` of a preflight answer, in seconds. */
export const DEFAULT_CORS_MAX_AGE = 600;
/** The health route when `health: true`. */
export const DEFAULT_HEALTH_PATH = '/healthz';

/** ms from when a body starts being read until it is complete; 408 after. */
export const DEFAULT_BODY_TIMEOUT = 10_000;
