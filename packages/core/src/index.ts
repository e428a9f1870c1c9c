// Public API of @snodo/core. Sibling packages reach internals through `@snodo/core/internal`.

export { AUTH_REFUSALS, type AuthRefusal, bearerChallenge } from './auth/challenge.js';
export type { ResourceServerOptions, ResourceServerSettings } from './auth/options.js';
export { createResourceServer, type ResourceServer, type TokenCheck } from './auth/resource-server.js';
export type { Dialect, Era, MethodClass, MethodSpec, Shaping } from './dialects/dialect.js';
export { DIALECTS, dialectFor, isKnownVersion } from './dialects/registry.js';
export {
  type ClientRequests,
  createClientRequests,
  DEFAULT_CLIENT_REQUEST_TIMEOUT,
} from './dispatch/client-requests.js';
export type { AuthInfo, HandlerContext, InputOptions } from './dispatch/context.js';
export { type DispatchContext, dispatch } from './dispatch/dispatch.js';
export { type ClientRequestChannel, ClientRequestError, type InputRequest } from './dispatch/input.js';
export type { OpenedSubscription, Outcome } from './dispatch/outcome.js';
export type { Session } from './dispatch/session.js';
export { DEFAULT_MAX_STREAM_BUFFER } from './dispatch/stream.js';
export { type BatchAdmit, type BatchOptions, type BatchOutcome, dispatchBatch } from './engine/batch.js';
export {
  type ControlChannel,
  type ControlHolder,
  type ControlMessage,
  MemoryControlChannel,
} from './engine/control.js';
export { ERROR_TABLE, ErrorCode, type ErrorCodeRow, httpStatusForCode } from './errors/codes.js';
export { defineErrors, type ErrorRow, type ErrorTable } from './errors/define.js';
export { ProtocolError, type ProtocolErrorKind } from './errors/protocol-error.js';
export { SnodoError, type SnodoErrorOptions } from './errors/snodo-error.js';
export { CORE_ERRORS, type CoreErrorCode } from './errors/table.js';
export {
  type AbortSignalLike,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_QUEUE,
  DEFAULT_MAX_SUBSCRIPTIONS,
  DEFAULT_REQUEST_TIMEOUT,
  Executor,
  ExecutorError,
  type ExecutorErrorCode,
  type ExecutorOptions,
  type ExecutorOwner,
  type ExecutorStats,
  type SubmitOptions,
  type SubscriptionSlot,
} from './executor/index.js';
// Streamable HTTP, shared by every HTTP host (see src/http/): named, so the public surface is this file.
export { type BodyFailure, type BodyLimits, type BodyResult, bodyRefusal, readBody } from './http/body.js';
export { type HttpConfig, type HttpOptions, resolveHttpOptions } from './http/config.js';
export type { CorsOptions } from './http/cors.js';
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
} from './http/defaults.js';
export { type HealthOptions, resourceMetadata } from './http/edge.js';
export { execute } from './http/execute.js';
export { createFetchHandler, type FetchHandlerOptions } from './http/fetch.js';
export { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from './http/handler.js';
export type { NodeRequest, NodeResponse } from './http/node.js';
export { type ParamHeader, paramHeadersOf } from './http/param-headers.js';
export { type PreparedRequest, type PrepareResult, prepare } from './http/prepare.js';
export { MemorySessionStore, type MemorySessionStoreOptions, type SessionStore } from './http/sessions.js';
export { type HttpStreamEvent, sseText } from './http/sse.js';
export {
  type HttpJsonResponse,
  type HttpRequest,
  type HttpResponse,
  type HttpStreamResponse,
  isStreamResponse,
} from './http/types.js';
export {
  DEFAULT_MAX_INTEGER_DIGITS,
  type DecodeJsonOptions,
  type DecodeJsonResult,
  decodeJson,
  type EncodeJsonOptions,
  encodeJson,
  JsonInt,
  type RequestId,
} from './json/index.js';
export {
  DEFAULT_MAX_ID_BYTES,
  type Decoded,
  type DecodedSingle,
  type DecodeLimits,
  decodeMessage,
} from './jsonrpc/decode.js';
export type {
  JsonRpcErrorObject,
  JsonRpcErrorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcResultResponse,
} from './jsonrpc/types.js';
export {
  DEFAULT_CACHE_SCOPE,
  DEFAULT_MAX_BATCH_ITEMS,
  DEFAULT_MAX_INPUT_ROUNDS,
  DEFAULT_MAX_LISTEN_TASK_IDS,
  DEFAULT_MAX_RESERVED_EXPRESSIONS,
  DEFAULT_MAX_RUNNING_TASKS,
  DEFAULT_MAX_TASKS,
  DEFAULT_MAX_URI_LENGTH,
  DEFAULT_PAGE_SIZE,
  DEFAULT_REQUEST_STATE_TTL_MS,
  DEFAULT_SUBSCRIPTION_QUEUE,
  DEFAULT_TASK_AFTER_MS,
  DEFAULT_TASK_LEASE_MS,
  DEFAULT_TASK_POLL_INTERVAL_MS,
  DEFAULT_TASK_RESULT_TTL_MS,
  DEFAULT_TASK_TIMEOUT,
  DEFAULT_TTL_MS,
  MAX_COMPLETION_VALUES,
  MAX_MRTR_KEYS,
  MAX_TIMER_DELAY,
  MIN_MRTR_SECRET_BYTES,
} from './limits/defaults.js';
export {
  type CacheHint,
  type CacheScope,
  type CallToolResult,
  type ClientCapabilities,
  type ContentBlock,
  type Implementation,
  LEGACY_VERSIONS,
  LOG_LEVELS,
  type LogLevel,
  META,
  MODERN_VERSIONS,
  type ProtocolVersion,
  type ResourceContents,
  type ServerCapabilities,
  SUPPORTED_VERSIONS,
  type ToolAnnotations,
} from './protocol/types.js';
export type {
  Extension,
  ExtensionDefinition,
  ExtensionListenFeed,
  ExtensionListenRequest,
  ExtensionMethod,
} from './router/extension.js';
export {
  type Prompt,
  type PromptArgument,
  type PromptDefinition,
  type PromptMessage,
  type PromptReturn,
  prompt,
} from './router/prompt.js';
export {
  type Completer,
  type ReadReturn,
  type Resource,
  type ResourceDefinition,
  type ResourceTemplate,
  type ResourceTemplateDefinition,
  resource,
  resourceTemplate,
} from './router/resource.js';
export type {
  Instructions,
  InstructionsContext,
  Runtime,
  SessionOwner,
} from './router/runtime.js';
export type {
  CompiledSchema,
  JsonSchemaObject,
  SchemaInput,
  SchemaIssue,
  StandardSchemaLike,
} from './router/schema.js';
export { createServer, type MrtrKey, type ServerDefinition } from './router/server.js';
export { type TaskSupport, type Tool, type ToolDefinition, type ToolReturn, tool } from './router/tool.js';
export {
  sandboxDomain,
  type ToolUi,
  UI_EXTENSION,
  UI_MIME_TYPE,
  UI_RESOURCE_URI_META_KEY,
  type UiCsp,
  type UiPermissions,
  type UiResourceDefinition,
  uiResource,
} from './router/ui.js';
export {
  compareTemplatePrecedence,
  parseUriTemplate,
  type UriTemplate,
  UriTemplateError,
} from './router/uri-template.js';
export {
  type ChangeEvent,
  type ChangeHub,
  type ChangeListener,
  createChangeHub,
} from './subscriptions/hub.js';
export type { SubscriptionFilter } from './subscriptions/listen.js';
export {
  openSessionNotifications,
  type SessionNotifications,
} from './subscriptions/session-notifications.js';
export {
  createTaskManager,
  TaskManager,
  type TaskManagerOptions,
  type TaskStats,
} from './tasks/manager.js';
export {
  createMemoryTaskStore,
  type MemoryTaskStore,
  type MemoryTaskStoreOptions,
} from './tasks/memory-store.js';
export type { StoredTask, TaskStatus, TaskStore } from './tasks/store.js';
export { TASKS_EXTENSION } from './tasks/wire.js';
export type { ErrorContext, ErrorHook } from './telemetry/hooks.js';
export type { Logger } from './telemetry/log.js';
