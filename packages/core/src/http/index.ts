export { type BodyFailure, type BodyLimits, type BodyResult, bodyRefusal, readBody } from './body.js';
export { type HttpConfig, type HttpOptions, resolveHttpOptions } from './config.js';
export type { CorsOptions } from './cors.js';
export {
  DEFAULT_ALLOWED_ORIGIN_HOSTS,
  DEFAULT_AUTH_FETCH_TIMEOUT,
  DEFAULT_BODY_TIMEOUT,
  DEFAULT_CLOCK_SKEW,
  DEFAULT_CORS_MAX_AGE,
  DEFAULT_DRAIN_TIMEOUT,
  DEFAULT_HEALTH_PATH,
  DEFAULT_JWKS_COOLDOWN,
  DEFAULT_KEEP_ALIVE_INTERVAL,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_DRAIN_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_TOKEN_LENGTH,
  DEFAULT_SESSION_IDLE_TIMEOUT,
  MAX_CLOCK_SKEW,
} from './defaults.js';
export { type HealthOptions, resourceMetadata } from './edge.js';
export { execute } from './execute.js';
export { createFetchHandler, type FetchHandlerOptions } from './fetch.js';
export { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from './handler.js';
export { type NodeRequest, type NodeResponse, writeNodeResponse } from './node.js';
export { type ParamHeader, paramHeadersOf } from './param-headers.js';
export { type PreparedRequest, type PrepareResult, prepare } from './prepare.js';
export { MemorySessionStore, type MemorySessionStoreOptions, type SessionStore } from './sessions.js';
export { type HttpStreamEvent, sseText } from './sse.js';
export {
  type HttpJsonResponse,
  type HttpRequest,
  type HttpResponse,
  type HttpStreamResponse,
  isStreamResponse,
} from './types.js';
