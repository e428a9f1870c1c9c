import type { RequestId } from '../json/int.js';
import type { ClientCapabilities, Implementation, LogLevel, ProtocolVersion } from '../protocol/types.js';
import type { InputRequest } from './input.js';

/** Identity a transport has verified (from its host's authentication, never from unverified headers). */
export interface AuthInfo {
  /** A stable identifier of the caller (user, service account); binds MRTR state. */
  principal?: string;
  /** The bearer token or credential, when the application wants handlers to see it. */
  token?: string;
  scopes?: string[];
  /** The OAuth client the token was issued to (`client_id`, else `azp`), when a token was verified. */
  clientId?: string;
  /** The token's issuer and expiry (seconds since the epoch), when a token was verified. */
  issuer?: string;
  expiresAt?: number;
  /** Every verified claim of the token (JWT claims or the introspection response). */
  claims?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface InputOptions {
  /** State to get back as `context.state` on the next round (integrity-protected; visible to the client). */
  state?: unknown;
}

/** What a tool, resource or prompt handler sees of its request. */
export interface HandlerContext {
  /** Aborted when the client cancels, disconnects (2026-07-28 HTTP), or the deadline passes. */
  readonly signal: AbortSignal;
  readonly requestId: RequestId;
  readonly method: string;
  readonly protocolVersion: ProtocolVersion;
  /** The capabilities this request declared (2026-07-28) or the session negotiated (initialize-based). */
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly auth: AuthInfo | undefined;
  /** The URL the request arrived on, when the transport knows it (HTTP). */
  readonly url: string | undefined;
  /** True when the request carried a progressToken, so `progress` reaches the client. */
  readonly canReportProgress: boolean;
  /**
   * Reports progress; a no-op without a progressToken. `progress` must strictly increase
   * (a RangeError otherwise, since the wire requires it).
   */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends `notifications/message` when the client asked for this level (logLevel or logging/setLevel). */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /**
   * Asks the client for input and resolves with its answers, keyed as asked. On 2026-07-28 this is
   * MRTR: the first round ends the request with `input_required`, and the handler runs again on the
   * client's retry, where the answers are available. On the initialize-based revisions the requests
   * go to the client as server-initiated requests. A request for a capability the client did not
   * declare fails with -32021. Available in tools, prompts and resource reads.
   */
  input(
    requests: Record<string, InputRequest>,
    options?: InputOptions,
  ): Promise<Record<string, Record<string, unknown>>>;
  /** `input` with one `elicitation/create` (key `elicit` unless given). */
  elicit(
    params: Record<string, unknown>,
    options?: InputOptions & { key?: string },
  ): Promise<Record<string, unknown>>;
  /** `input` with one `sampling/createMessage` (key `sample` unless given). */
  sample(
    params: Record<string, unknown>,
    options?: InputOptions & { key?: string },
  ): Promise<Record<string, unknown>>;
  /** `input` with one `roots/list` (key `roots` unless given). */
  listRoots(options?: InputOptions & { key?: string }): Promise<Record<string, unknown>>;
  /** Ends this round with `input_required` carrying only `requestState` (e.g. load shedding): the client retries. */
  retryLater(state?: unknown): never;
  /** The state the previous round passed to `input`/`retryLater`, verified; undefined on the first round. */
  readonly state: unknown;
  /**
   * Tasks extension: continue this tool call as a task. The client gets the task handle
   * (`resultType: "task"`) now and the handler goes on in the background: from here its `signal`
   * follows the task (`tasks/cancel`, the task's deadline, server shutdown; no longer the request),
   * `input` goes through `tasks/get` and `tasks/update`, `progress` messages become the task's
   * `statusMessage`, and what it returns becomes the task's result. Resolves once decided; nothing
   * changes when the call cannot be a task (a tool without `task: 'auto'`, a client without the
   * extension, every task slot busy): the call then simply goes on.
   */
  runAsTask(): Promise<void>;
  /** The task this call runs as, once it is one; undefined otherwise. */
  readonly taskId: string | undefined;
}
