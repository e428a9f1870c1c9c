import type { Dialect } from '../dialects/dialect.js';
import { dialectFor } from '../dialects/registry.js';
import { ErrorCode } from '../errors/codes.js';
import { ProtocolError } from '../errors/protocol-error.js';
import {
  type ClientCapabilities,
  type Implementation,
  LOG_LEVELS,
  type LogLevel,
  META,
  type ProtocolVersion,
} from '../protocol/types.js';
import type { Runtime } from '../router/runtime.js';
import type { Session } from './session.js';

/** The revision a request is served with, and what it declared. */
export interface Selection {
  readonly dialect: Dialect;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly logLevel: LogLevel | undefined;
}

export interface SelectionInput {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  readonly session: Session | undefined;
  /** The transport's `MCP-Protocol-Version` header, when it has one. */
  readonly headerVersion: string | undefined;
}

/**
 * Picks the revision of one request (seed 002, "Protocol versions"):
 *   1. a request outside a session whose MCP-Protocol-Version header is present and not an
 *      initialize-based revision (2026-07-28, or a version we do not know) is served statelessly,
 *      `initialize` included (which 2026-07-28 does not have: -32601);
 *   2. otherwise `initialize` is served with initialize-based semantics (the version is negotiated
 *      from its params);
 *   3. a request that declares `_meta["io.modelcontextprotocol/protocolVersion"]` is served
 *      statelessly. Stateless requests have their `_meta` inspected exactly (missing keys -32602,
 *      unsupported version -32022 listing the stateless versions served);
 *   3. otherwise the session's negotiated revision serves it;
 *   4. with no session and no version anywhere, only `ping` is answered (as 2025-03-26); anything
 *      else is refused with -32600 naming what to send.
 */
export function selectRevision(runtime: Runtime, input: SelectionInput): Selection | ProtocolError {
  const { method, params, session, headerVersion } = input;
  const headerIsModern =
    headerVersion !== undefined && session === undefined && dialectFor(headerVersion)?.era !== 'legacy';
  if (method === 'initialize')
    return headerIsModern ? selectModern(runtime, params) : selectInitialize(runtime, params);
  const meta = params?._meta;
  const metaVersion =
    typeof meta === 'object' && meta !== null
      ? (meta as Record<string, unknown>)[META.protocolVersion]
      : undefined;
  if (metaVersion !== undefined || headerIsModern || isModernOnly(method)) {
    return selectModern(runtime, params);
  }
  if (session) {
    const dialect = dialectFor(session.protocolVersion) as Dialect;
    return {
      dialect,
      clientCapabilities: session.clientCapabilities,
      clientInfo: session.clientInfo,
      logLevel: session.logLevel,
    };
  }
  if (headerVersion !== undefined && !runtime.versions.includes(headerVersion as ProtocolVersion)) {
    return ProtocolError.unsupportedVersion(headerVersion, statelessOrAll(runtime));
  }
  if (method === 'ping' && runtime.legacyVersions.length > 0) {
    return {
      dialect: dialectFor(runtime.legacyVersions.at(-1) as string) as Dialect,
      clientCapabilities: {},
      clientInfo: undefined,
      logLevel: undefined,
    };
  }
  return ProtocolError.invalidRequest(
    `No protocol version for "${method}": send initialize first, or declare _meta["${META.protocolVersion}"]`,
    { supported: [...runtime.versions] },
  );
}

/** The versions an unsupported-version error names: those usable statelessly, else every one served. */
function statelessOrAll(runtime: Runtime): readonly ProtocolVersion[] {
  return runtime.modernVersions.length > 0 ? runtime.modernVersions : runtime.versions;
}

const MODERN_ONLY = new Set(['server/discover', 'subscriptions/listen']);

function isModernOnly(method: string): boolean {
  return MODERN_ONLY.has(method);
}

function selectInitialize(
  runtime: Runtime,
  params: Record<string, unknown> | undefined,
): Selection | ProtocolError {
  const latestLegacy = runtime.legacyVersions[0];
  if (latestLegacy === undefined) {
    return new ProtocolError(
      ErrorCode.MethodNotFound,
      `initialize is not supported: this server speaks ${runtime.versions.join(', ')} without a handshake`,
      { supported: [...runtime.versions] },
    );
  }
  const requested = params?.protocolVersion;
  const version =
    typeof requested === 'string' && runtime.legacyVersions.includes(requested as ProtocolVersion)
      ? (requested as ProtocolVersion)
      : latestLegacy;
  return {
    dialect: dialectFor(version) as Dialect,
    clientCapabilities: asObject(params?.capabilities) ?? {},
    clientInfo: asObject(params?.clientInfo) as Implementation | undefined,
    logLevel: undefined,
  };
}

function selectModern(
  runtime: Runtime,
  params: Record<string, unknown> | undefined,
): Selection | ProtocolError {
  if (params === undefined) {
    return ProtocolError.invalidParams('params is required, with _meta', { missing: ['params'] });
  }
  const meta = asObject(params._meta);
  if (!meta) {
    return ProtocolError.invalidParams(
      `params._meta is required (${META.protocolVersion}, ${META.clientCapabilities})`,
      {
        missing: ['_meta'],
      },
    );
  }
  const version = meta[META.protocolVersion];
  const capabilities = meta[META.clientCapabilities];
  const missing: string[] = [];
  if (typeof version !== 'string') missing.push(META.protocolVersion);
  if (asObject(capabilities) === undefined) missing.push(META.clientCapabilities);
  if (missing.length > 0) {
    return ProtocolError.invalidParams(`params._meta is missing ${missing.join(' and ')}`, { missing });
  }
  const dialect = dialectFor(version as string);
  if (dialect?.era !== 'modern' || !runtime.versions.includes(dialect.version)) {
    return ProtocolError.unsupportedVersion(version as string, statelessOrAll(runtime));
  }
  const logLevel = meta[META.logLevel];
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel as LogLevel)) {
    return ProtocolError.invalidParams(
      `_meta["${META.logLevel}"] must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`,
    );
  }
  const clientInfo = asObject(meta[META.clientInfo]) as Implementation | undefined;
  return {
    dialect,
    clientCapabilities: capabilities as ClientCapabilities,
    clientInfo,
    logLevel: logLevel as LogLevel | undefined,
  };
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
