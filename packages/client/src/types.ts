import type {
  CallToolResult,
  ClientCapabilities,
  ContentBlock,
  Implementation,
  JsonRpcNotification,
  LogLevel,
  ProtocolVersion,
  RequestId,
  ResourceContents,
  Runtime,
  ServerCapabilities,
  SubscriptionFilter,
} from '@snodo/core';
import type { ClientTransport } from './transport.js';
import type { HttpTransportOptions } from './transports/http.js';
import type { StdioOptions, StdioTarget } from './transports/stdio.js';

export type { CallToolResult, ContentBlock, ResourceContents, SubscriptionFilter };

/** Where `connect` goes: a Streamable HTTP endpoint, a server process to spawn, a runtime in this process, or your own transport. */
export type Target =
  | { readonly http: string | URL }
  | { readonly stdio: StdioTarget }
  | { readonly direct: Runtime }
  | { readonly transport: ClientTransport };

/** What a handler of server input (`onElicit`, `onSample`, `onRoots`) gets besides the request's params. */
export interface InputContext {
  /** Aborted when the call that needs the input is aborted or times out (or the server cancels its request). */
  readonly signal: AbortSignal;
  /**
   * `mrtr` on 2026-07-28 (answers go into the retry), `task` for a task's input (answers go in
   * `tasks/update`), `request` for a server-initiated request.
   */
  readonly via: 'mrtr' | 'task' | 'request';
  /**
   * A server-initiated request: the id of this client's request the server sent it while handling,
   * when the transport can tell (HTTP: it came on that request's response stream, see `onRequestId`;
   * in process: the engine wrote it for that request; stdio cannot tell).
   */
  readonly relatedRequestId?: RequestId;
}

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface CreateMessageResult {
  role: 'assistant' | 'user';
  content: unknown;
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}

export interface ListRootsResult {
  roots: { uri: string; name?: string; [key: string]: unknown }[];
  [key: string]: unknown;
}

type Awaitable<T> = T | Promise<T>;

export interface ConnectOptions extends HttpTransportOptions, StdioOptions {
  /** Sent as `clientInfo`. Default `{ name: '@snodo/client', version: <this package's> }`. */
  clientInfo?: Implementation;
  /** Revisions the client may use, in preference order. Default: all four, 2026-07-28 first. */
  protocolVersions?: readonly ProtocolVersion[];
  /** Capabilities to declare besides those implied by the handlers below (`experimental`, `extensions`, …). */
  capabilities?: ClientCapabilities;
  /** Answers `elicitation/create` (MRTR input on 2026-07-28, a server request before); declares `elicitation`. */
  onElicit?: (params: Record<string, unknown>, context: InputContext) => Awaitable<ElicitResult>;
  /** Answers `sampling/createMessage`; declares `sampling`. */
  onSample?: (params: Record<string, unknown>, context: InputContext) => Awaitable<CreateMessageResult>;
  /** Answers `roots/list`; declares `roots`. */
  onRoots?: (params: Record<string, unknown>, context: InputContext) => Awaitable<ListRootsResult>;
  /** Every notification from the server, after the client has routed it (progress, subscriptions, cache). */
  onNotification?: (notification: JsonRpcNotification) => void;
  /** Problems the client recovered from: dropped tools (invalid `x-mcp-header`), unparseable output, … */
  onWarning?: (message: string) => void;
  /** Deadline of each call in ms, unless the call sets `timeout`; 0 or Infinity disables it. Default 60,000. */
  timeout?: number;
  /** stdio (and custom transports that ask): ms the `server/discover` probe waits before falling back. Default 5,000. */
  probeTimeout?: number;
  /** MRTR rounds one call may take. Default 8. */
  maxInputRounds?: number;
  /** Pages the `all*` helpers follow. Default 100. */
  maxPages?: number;
  /** Cache list and read results for their `ttlMs` (2026-07-28). `false` turns it off. Default on. */
  cache?: boolean | { maxEntries?: number };
  /**
   * Declare the Tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): the server may then
   * answer a tool call with a task, which `callTool` follows to its end (polling, answering its
   * input with the handlers above, cancelling it when the call is aborted); `client.tasks` gives
   * the handle itself. `maxPollInterval` caps the polling backoff (default 10,000 ms). Default off.
   */
  tasks?: boolean | { maxPollInterval?: number };
  /**
   * Ask for `notifications/message` at this level (deprecated logging): in `_meta` of every 2026-07-28
   * request, or by `logging/setLevel` once initialized. Messages reach `onNotification`.
   */
  logLevel?: LogLevel;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  /** ms; overrides the client's `timeout`. 0 or Infinity: none. */
  timeout?: number;
  /** Receives `notifications/progress` for this call (sends a progressToken). */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Skip the cache for this call (the fresh result is cached). */
  fresh?: boolean;
  /**
   * 2026-07-28: `return` hands an `input_required` result back as it is (`inputRequests`,
   * `requestState`) instead of answering it with the input handlers; the caller retries with
   * `inputResponses` and `requestState` in the params (a proxy passes the round to its own client).
   */
  inputRequired?: 'fulfil' | 'return';
  /** The retry of a returned `input_required` round: its answers, keyed as asked (sent as `params.inputResponses`). */
  inputResponses?: Record<string, unknown>;
  /** The retry of a returned `input_required` round: its `requestState`, echoed exactly (`params.requestState`). */
  requestState?: string;
  /**
   * 2026-07-28 HTTP: re-issue the request once when its response stream breaks (default true, as
   * the spec has clients do). `false` fails the call instead: a proxy forwarding a tool call that
   * may have had a side effect must not run it twice.
   */
  reissue?: boolean;
  /**
   * 2026-07-28: the client this call speaks for, sent in its `_meta` in place of this client's own
   * `capabilities` and `clientInfo` (a proxy forwards each frontend's own; never a cached one).
   * The client's input handlers still answer what it fulfils itself.
   */
  onBehalfOf?: { capabilities: ClientCapabilities; clientInfo: Implementation | undefined };
  /** Called with the id of each request this call sends (a retry sends a new one), before it is sent. */
  onRequestId?: (id: RequestId) => void;
}

export interface ListOptions extends CallOptions {
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | undefined;
  /** The whole result, for fields beyond the list (`ttlMs`, `cacheScope`, `_meta`). */
  result: Record<string, unknown>;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  /** Extension data, e.g. `_meta.ui.resourceUri` (MCP Apps). */
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  mimeType?: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  mimeType?: string;
  [key: string]: unknown;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  [key: string]: unknown;
}

export interface GetPromptResult {
  description?: string;
  messages: { role: 'user' | 'assistant'; content: ContentBlock }[];
  [key: string]: unknown;
}

export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  [key: string]: unknown;
}

export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/** What `discover()` reports; on the initialize-based revisions it is built from the initialize result. */
export interface DiscoverResult {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
  serverInfo?: Implementation;
  [key: string]: unknown;
}
