// The seam for sibling @snodo packages (transports, client, proxy). Not a public API: it may change
// in any release. Keep it small.
export { authRefusal, hostAuthRefusal } from './auth/challenge.js';
export { isResourceServer } from './auth/resource-server.js';
export type { Operation, OperationCall } from './dispatch/operation.js';
export { type Selection, selectRevision } from './dispatch/select.js';
export { createSession, withSession } from './dispatch/session.js';
export { MessageStream } from './dispatch/stream.js';
export { Connection, type ConnectionOptions, type ConnectionOutput } from './engine/connection.js';
export { branded, isBranded } from './errors/brand.js';
export { errorFromRow, rowMessage } from './errors/define.js';
export { coreError, optionError, statusFor } from './errors/table.js';
export { type DeadlineItem, DeadlineList } from './executor/deadlines.js';
export { LazySignal } from './executor/lazy-signal.js';
export { checkBearer } from './http/bearer.js';
export { HTTP_OPTION_NAMES, HTTP_OPTIONS, withAuth } from './http/config.js';
export { withCors } from './http/cors.js';
export { isEdgePath, metadataPaths } from './http/edge.js';
export { authorizeHandler, handlerBodyLimits, handlerConfig } from './http/handler.js';
export { flattenHeaders, writeNodeResponse } from './http/node.js';
export { escapeNonAscii } from './json/encode.js';
export { classifyMessage } from './jsonrpc/decode.js';
export { isResponse, requestKey } from './jsonrpc/types.js';
export {
  COMMON_RULES,
  checkOption,
  checkOptions,
  describeRule,
  duration,
  enumOf,
  fn,
  instance,
  integer,
  isHttpUrl,
  knownOptions,
  nonNegative,
  nonNegativeInteger,
  type OptionRule,
  type OptionSchema,
  option,
  other,
  positive,
  positiveInteger,
  url,
} from './limits/validate.js';
export { deriveRuntime, type RuntimeChange } from './router/derive.js';
export { declaresExtension } from './router/extension.js';
export { encodeCursor, paginate } from './router/pagination.js';
export type { ClientNotification, ListenCall, SessionOwner, SubscribeCall } from './router/runtime.js';
export { compileSchema } from './router/schema.js';
export { openExtensionFeeds } from './subscriptions/extension-feeds.js';
export { openListen } from './subscriptions/listen.js';
export { type AsTaskResult, callToolAsTask, canUseTasks } from './tasks/call.js';
export { createTaskResult, detailedTask, isTerminal } from './tasks/wire.js';
export { instruments, isObserved } from './telemetry/instruments.js';
export { log, loggerProblem } from './telemetry/log.js';
export { ATTR, idText, targetOf } from './telemetry/names.js';
export { loadedOtel, loadOtel, type Otel } from './telemetry/otel.js';
export { traceFields } from './telemetry/propagation.js';
export { errorMessage } from './telemetry/request-trace.js';
export { pipeSession, trackSession } from './telemetry/session.js';
