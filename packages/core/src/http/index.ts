export { configFor, type HttpConfig, type HttpOptions, resolveHttpOptions } from './config.js';
export {
  DEFAULT_ALLOWED_ORIGIN_HOSTS,
  DEFAULT_DRAIN_TIMEOUT,
  DEFAULT_KEEP_ALIVE_INTERVAL,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_DRAIN_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_TIMEOUT,
} from './defaults.js';
export { execute } from './execute.js';
export { createFetchHandler, type FetchHandlerOptions } from './fetch.js';
export { handle } from './handle.js';
export { type ParamHeader, paramHeadersOf } from './param-headers.js';
export { type PreparedRequest, type PrepareResult, prepare } from './prepare.js';
export { MemorySessionStore, type MemorySessionStoreOptions, type SessionStore } from './sessions.js';
export {
  type HttpJsonResponse,
  type HttpRequest,
  type HttpResponse,
  type HttpStreamResponse,
  isStreamResponse,
} from './types.js';
