/** Every default limit of the proxy, named after what it bounds. */

/** Backends one proxy holds at most (`maxBackends`). */
export const DEFAULT_MAX_BACKENDS = 32;
/** Tools, prompts, resources and resource templates in the merged catalog at most (`maxCatalogItems`). */
export const DEFAULT_MAX_CATALOG_ITEMS = 1_000;
/** Period of the health probe, which also refreshes each backend's catalog, in ms (`healthIntervalMs`). */
export const DEFAULT_HEALTH_INTERVAL_MS = 30_000;
/** Delay between attempts to reconnect a disconnected backend, in ms (`reconnectDelayMs`). */
export const DEFAULT_RECONNECT_DELAY_MS = 1_000;
/** Between the prefix (the backend id by default) and the backend's own name (`separator`). */
export const DEFAULT_SEPARATOR = '.';
/**
 * Sessions one backend holds for its principals at most (`maxBackendSessions`; per backend
 * `maxSessions`): a stdio backend runs one process per session.
 */
export const DEFAULT_MAX_BACKEND_SESSIONS = 16;
/** How long a principal's backend session stays open unused before it is closed, in ms (`backendSessionIdleMs`). */
export const DEFAULT_BACKEND_SESSION_IDLE_MS = 300_000;
/** Items per page of the merged lists (`pageSize`). */
export { DEFAULT_PAGE_SIZE } from '@snodo/core';
/**
 * How long a call to an initialize-based backend waits, parked, for the frontend to answer the
 * input it asked for (MRTR on the frontend side), in ms (`inputTimeoutMs`). Past it the backend's
 * request is answered with `cancel` and its call is aborted.
 */
export const DEFAULT_INPUT_TIMEOUT_MS = 120_000;
/** Parked calls (waiting for a frontend's input answer) at most; one more is refused (`maxParkedCalls`). */
export const DEFAULT_MAX_PARKED_CALLS = 256;
/** Input rounds one forwarded request may take (a 2026-07-28 backend asking again and again). */
export { DEFAULT_MAX_INPUT_ROUNDS } from '@snodo/core';
/** The extension frontends declare to call `proxy/health`. */
export const PROXY_EXTENSION = 'dev.snodo/proxy';
/** Where resources and templates of a backend are exposed: `mcp-proxy://<id>/<original-uri>`. */
export const PROXY_URI_SCHEME = 'mcp-proxy://';
/** Backend ids. */
export const BACKEND_ID = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** What model APIs accept as a tool or prompt name; every generated name is checked against it. */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** The longest backend id (it is part of every name and URI). */
export const MAX_BACKEND_ID_LENGTH = 64;
