// Public API of @snodo/proxy.
export type { BackendSpec, BackendStatus, SessionMode } from './backend.js';
export {
  BACKEND_ID,
  DEFAULT_BACKEND_SESSION_IDLE_MS,
  DEFAULT_HEALTH_INTERVAL_MS,
  DEFAULT_INPUT_TIMEOUT_MS,
  DEFAULT_MAX_BACKEND_SESSIONS,
  DEFAULT_MAX_BACKENDS,
  DEFAULT_MAX_CATALOG_ITEMS,
  DEFAULT_MAX_INPUT_ROUNDS,
  DEFAULT_MAX_PARKED_CALLS,
  DEFAULT_PAGE_SIZE,
  DEFAULT_RECONNECT_DELAY_MS,
  DEFAULT_SEPARATOR,
  PROXY_EXTENSION,
  PROXY_URI_SCHEME,
  TOOL_NAME,
} from './defaults.js';
export { PROXY_ERRORS, ProxyError, type ProxyErrorCode, type ProxyErrorKind } from './errors.js';
export { exposedUri, parseExposedUri } from './names.js';
export type { HealthChange, ProxyOptions } from './options.js';
export type { AuthorizationPolicy, CatalogItem, Principal } from './policy.js';
export {
  type BackendHealth,
  type CatalogView,
  createProxy,
  type McpProxy,
  type ProxyHealth,
} from './proxy.js';
export type { RuntimeOptions } from './runtime/build.js';
export type { SessionChange, SessionEnd } from './sessions.js';
export { PROXY_VERSION } from './version.js';
