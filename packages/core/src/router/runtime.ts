import type { Shaping } from '../dialects/dialect.js';
import type { AuthInfo } from '../dispatch/context.js';
import type { Operation } from '../dispatch/operation.js';
import type { OpenedSubscription } from '../dispatch/outcome.js';
import type { StateKeyring } from '../dispatch/request-state.js';
import type { Selection } from '../dispatch/select.js';
import type { RequestId } from '../json/int.js';
import type {
  ClientCapabilities,
  Implementation,
  ProtocolVersion,
  ServerCapabilities,
} from '../protocol/types.js';
import type { ChangeHub } from '../subscriptions/hub.js';
import type { SubscriptionFilter } from '../subscriptions/listen.js';
import type { TaskManager } from '../tasks/manager.js';
import type { ErrorHook } from '../telemetry/hooks.js';
import type { Logger } from '../telemetry/log.js';
import type { Extension } from './extension.js';
import type { Prompt } from './prompt.js';
import type { Resource, ResourceTemplate } from './resource.js';
import type { Tool } from './tool.js';

/** Arguments of an `instructions` function: who is asking, on which revision. */
export interface InstructionsContext {
  readonly protocolVersion: ProtocolVersion;
  readonly clientInfo: Implementation | undefined;
  readonly auth: { principal?: string; [key: string]: unknown } | undefined;
}

export type Instructions = string | ((context: InstructionsContext) => string | undefined);

/**
 * A defined server: an immutable value that every transport serves and `dispatch` reads.
 * Build it with `createServer`; never mutate it.
 */
export interface Runtime {
  readonly serverInfo: Implementation;
  /** The revisions served, newest first. */
  readonly versions: readonly ProtocolVersion[];
  readonly modernVersions: readonly ProtocolVersion[];
  readonly legacyVersions: readonly ProtocolVersion[];
  readonly instructions: Instructions | undefined;
  readonly capabilities: ServerCapabilities;
  readonly tools: ReadonlyMap<string, Tool>;
  /** Tools in list order (by name, code-unit order). */
  readonly toolList: readonly Tool[];
  readonly resources: ReadonlyMap<string, Resource>;
  /** Resources in list order (by URI). */
  readonly resourceList: readonly Resource[];
  /** Templates in list order (by template text). */
  readonly templateList: readonly ResourceTemplate[];
  /** Templates in match order: the first that matches a URI serves it. */
  readonly templatesByPrecedence: readonly ResourceTemplate[];
  readonly prompts: ReadonlyMap<string, Prompt>;
  readonly promptList: readonly Prompt[];
  /** Extensions by identifier; their methods are routed only for clients that declare them. */
  readonly extensions: ReadonlyMap<string, Extension>;
  /** Extension methods by method name. */
  readonly extensionMethods: ReadonlyMap<string, Extension>;
  /** Runs tool calls as tasks (Tasks extension), when the application gave a task manager. */
  readonly tasks?: TaskManager;
  /** `ServerDefinition.onError`: told of each internal error (-32603, or a tool's `isError` result). */
  readonly onError?: ErrorHook;
  /** `ServerDefinition.logger`: a pino-compatible logger for lifecycle events. */
  readonly logger?: Logger;
  /** The change hub that feeds subscriptions, when the application gave one. */
  readonly hub: ChangeHub | undefined;
  readonly mrtr: MrtrConfig;
  readonly pageSize: number;
  /** Longest URI accepted by `resources/read` and template matching. */
  readonly maxUriLength: number;
  readonly shaping: Shaping;
  /**
   * Operations that replace core's for their methods, for a runtime whose catalog lives elsewhere
   * (a proxy's lists depend on the caller and change at run time). Revision selection, the method
   * registries, capability checks, MRTR, progress, result shaping and errors stay core's.
   * Set by `deriveRuntime` (`@snodo/core/internal`); `createServer` never sets it.
   */
  readonly operations?: ReadonlyMap<string, Operation>;
  /** Opens `subscriptions/listen` in place of core's hub-fed subscription (own admission and delivery checks). */
  readonly openListen?: (call: ListenCall) => OpenedSubscription | Promise<OpenedSubscription>;
  /**
   * Admits an initialize-based `resources/subscribe` in place of core's check (a resource or a
   * template match): throw a `ProtocolError` saying why updates of the URI will not come.
   */
  readonly admitSubscribe?: (call: SubscribeCall) => void | Promise<void>;
  /**
   * The hub that feeds one initialize-based session's stream (`openSessionNotifications`), in place
   * of `hub`: for a runtime whose changes depend on who listens (a proxy's per-caller sessions).
   */
  readonly sessionHub?: (owner: SessionOwner) => ChangeHub | undefined;
  /**
   * Told of each client notification core does not act on itself (`notifications/roots/list_changed`),
   * with its sender: for a runtime that relays it (a proxy tells that caller's backend sessions).
   * It must not throw (a throw is ignored) and must not block: the notification is already accepted.
   */
  readonly onClientNotification?: (note: ClientNotification) => void;
}

/** A client notification, as `Runtime.onClientNotification` gets it. */
export interface ClientNotification {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  /** The identity the transport verified for the message, if any. */
  readonly auth: AuthInfo | undefined;
  /** `DispatchContext.connectionId` of the sender's connection or session. */
  readonly connectionId: string | undefined;
  /** The capabilities the sender declared at `initialize` (initialize-based sessions). */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /**
   * Sends a request to that client outside any request of its own (roots/list after it said its
   * roots changed), when its transport can carry one: stdio and in-process connections, and an
   * initialize-based HTTP session with its standalone GET stream open on this instance. Resolves
   * with the client's result as it came, rejects with its error (`ClientRequestError`), the
   * signal's reason, or at once when nothing can carry it.
   */
  readonly request?: (
    method: string,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ) => Promise<unknown>;
}

/** Who an initialize-based session's stream belongs to, as its transport knows it. */
export interface SessionOwner {
  /** The identity the transport verified for the stream (HTTP: the GET request's), if any. */
  readonly auth: AuthInfo | undefined;
  /** `DispatchContext.connectionId` of the session's connection or HTTP session. */
  readonly connectionId: string | undefined;
}

/** What `Runtime.admitSubscribe` gets: the URI an initialize-based session subscribes to, and who asks. */
export interface SubscribeCall {
  readonly runtime: Runtime;
  readonly uri: string;
  readonly auth: AuthInfo | undefined;
  readonly connectionId: string | undefined;
  readonly selection: Selection;
}

/** What `Runtime.openListen` gets: the listen request, its parsed filter as requested, and its bound. */
export interface ListenCall {
  readonly runtime: Runtime;
  /** The listen request's id: the subscription id of every notification. */
  readonly id: RequestId;
  readonly filter: SubscriptionFilter;
  readonly auth: AuthInfo | undefined;
  /** `DispatchContext.connectionId`: the connection or session the request came on, if any. */
  readonly connectionId: string | undefined;
  readonly selection: Selection;
  /** Unread notifications the subscriber may hold (`DispatchContext.subscriptionQueue`). */
  readonly queueSize: number;
}

export interface MrtrConfig {
  /** HMAC-SHA-256 keys of `requestState`: the first signs, all verify. */
  readonly keys: Promise<StateKeyring>;
  readonly stateTtlMs: number;
  /** Most input rounds one request may take before it is refused. */
  readonly maxRounds: number;
}
