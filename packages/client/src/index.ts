// Public API of @snodo/client.
export { ProtocolError, SnodoError } from '@snodo/core';
export { Client } from './client.js';
export { connect } from './connect.js';
export {
  DEFAULT_CALL_TIMEOUT,
  DEFAULT_CLIENT_SUBSCRIPTION_QUEUE,
  DEFAULT_EXIT_TIMEOUT,
  DEFAULT_HTTP_CONNECTIONS,
  DEFAULT_MAX_CACHE_ENTRIES,
  DEFAULT_MAX_INPUT_ROUNDS,
  DEFAULT_MAX_LINE_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_TASK_POLL_INTERVAL,
  DEFAULT_PROBE_TIMEOUT,
  DEFAULT_TASK_POLL_INTERVAL,
  DEFAULT_TERM_TIMEOUT,
} from './defaults.js';
export {
  CLIENT_ERRORS,
  type ClientErrorCode,
  TimeoutError,
  TransportError,
  type TransportErrorDetails,
} from './errors.js';
export {
  encodeHeaderValue,
  type ParamHeader,
  paramHeaderValues,
  type ToolHeaders,
  toolHeaders,
} from './headers.js';
export { challengeParams, OAuthClient, type OAuthOptions } from './oauth.js';
export { Subscription } from './subscription.js';
export { type FollowOptions, type Task, TaskClient, type TaskStatus, type ToolStart } from './tasks.js';
export type { ClientTransport, SendOptions, TransportSink } from './transport.js';
export { DirectTransport } from './transports/direct.js';
export { HttpTransport, type HttpTransportOptions } from './transports/http.js';
export { type StdioOptions, type StdioTarget, StdioTransport } from './transports/stdio.js';
export type {
  CallOptions,
  CallToolResult,
  CompleteResult,
  CompletionRef,
  ConnectOptions,
  ContentBlock,
  CreateMessageResult,
  DiscoverResult,
  ElicitResult,
  GetPromptResult,
  InputContext,
  ListOptions,
  ListRootsResult,
  Page,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
  SubscriptionFilter,
  Target,
  Tool,
} from './types.js';
export { CLIENT_VERSION } from './version.js';
