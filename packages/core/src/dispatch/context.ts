import type { RequestId } from '../json/int.js';
import type { ClientCapabilities, Implementation, LogLevel, ProtocolVersion } from '../protocol/types.js';

/** Identity a transport has verified (from its host's authentication, never from unverified headers). */
export interface AuthInfo {
  /** A stable identifier of the caller (user, service account); binds MRTR state. */
  principal?: string;
  /** The bearer token or credential, when the application wants handlers to see it. */
  token?: string;
  scopes?: string[];
  [key: string]: unknown;
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
  /** True when the request carried a progressToken, so `progress` reaches the client. */
  readonly canReportProgress: boolean;
  /**
   * Reports progress; a no-op without a progressToken. `progress` must strictly increase
   * (a RangeError otherwise, since the wire requires it).
   */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends `notifications/message` when the client asked for this level (logLevel or logging/setLevel). */
  log(level: LogLevel, data: unknown, logger?: string): void;
}
