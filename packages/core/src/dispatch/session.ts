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
  /**
   * The verified principal (`auth.principal`) that initialized the session, if any: a session is
   * served only to the principal that created it, so a leaked session id is no credential.
   */
  readonly principal?: string;
}

export function createSession(
  protocolVersion: ProtocolVersion,
  clientCapabilities: ClientCapabilities,
  clientInfo: Implementation | undefined,
  principal?: string,
): Session {
  return Object.freeze({
    protocolVersion,
    clientCapabilities,
    clientInfo,
    logLevel: undefined,
    initialized: false,
    subscriptions: Object.freeze([]),
    ...(principal === undefined ? {} : { principal }),
  });
}

/** Whether `principal` (of the request in hand) may use `session`: the one that created it, or anyone when none did. */
export function sessionServes(session: Session, principal: string | undefined): boolean {
  return session.principal === undefined || session.principal === principal;
}

export function withSession(
  session: Session,
  change: Partial<Pick<Session, 'logLevel' | 'initialized' | 'subscriptions'>>,
): Session {
  return Object.freeze({ ...session, ...change });
}
