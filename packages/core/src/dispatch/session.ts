import type { ClientCapabilities, Implementation, LogLevel, ProtocolVersion } from '../protocol/types.js';

/**
 * The state of one initialize-based connection (a stdio process, an HTTP session), as plain data.
 * `initialize` creates it; `notifications/initialized` and `logging/setLevel` return a new value.
 * The caller stores it and hands it back on the next request: core keeps no state of its own.
 */
export interface Session {
  readonly protocolVersion: ProtocolVersion;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly logLevel: LogLevel | undefined;
  readonly initialized: boolean;
  /** URIs of `resources/subscribe`, in subscription order. */
  readonly subscriptions: readonly string[];
}

export function createSession(
  protocolVersion: ProtocolVersion,
  clientCapabilities: ClientCapabilities,
  clientInfo: Implementation | undefined,
): Session {
  return Object.freeze({
    protocolVersion,
    clientCapabilities,
    clientInfo,
    logLevel: undefined,
    initialized: false,
    subscriptions: Object.freeze([]),
  });
}

export function withSession(
  session: Session,
  change: Partial<Pick<Session, 'logLevel' | 'initialized' | 'subscriptions'>>,
): Session {
  return Object.freeze({ ...session, ...change });
}
