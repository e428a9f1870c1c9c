import {
  type Implementation,
  LEGACY_VERSIONS,
  META,
  MODERN_VERSIONS,
  ProtocolError,
  type ProtocolVersion,
  type ServerCapabilities,
  SnodoError,
} from '@snodo/core';
import type { Client } from './client.js';
import { clientError, TimeoutError, TransportError } from './errors.js';
import type { Settings } from './options.js';

/** What negotiation settled. */
export interface Negotiated {
  readonly version: ProtocolVersion;
  readonly serverInfo: Implementation | undefined;
  readonly capabilities: ServerCapabilities;
  readonly instructions: string | undefined;
}

type Probe =
  | {
      readonly kind: 'modern';
      readonly version: ProtocolVersion;
      readonly result: Record<string, unknown> | undefined;
    }
  | { readonly kind: 'legacy'; readonly why: string; readonly offer?: ProtocolVersion };

/**
 * Picks the revision by the spec's dual-era rules, 2026-07-28 first when allowed:
 * - `server/discover` is sent as a 2026-07-28 request (on stdio with `probeTimeout`, unless no
 *   initialize-based revision is allowed: then there is nothing to fall back to, and it gets `timeout`).
 * - A DiscoverResult naming a revision we allow → that revision. A recognised 2026-07-28 error
 *   (-32022 with `data.supported`, -32020, -32021) → stay modern (or, when `supported` names only
 *   initialize-based revisions, use one of those).
 * - Anything else — another JSON-RPC error whatever its code, an HTTP status without a modern
 *   error body, no answer within the probe timeout — → `initialize`, offering the newest allowed
 *   initialize-based revision, then `notifications/initialized`.
 * Connection failures (refused, the process exiting) are not fallbacks: they throw.
 */
export async function negotiate(
  client: Client,
  transportKind: string,
  probeNeedsTimeout: boolean,
  settings: Settings,
): Promise<Negotiated> {
  const allowed = settings.protocolVersions;
  const modern = allowed.filter((v) => MODERN_VERSIONS.includes(v));
  const legacy = allowed.filter((v) => LEGACY_VERSIONS.includes(v));
  let probeFailure: string | undefined;
  let offer = legacy[0];
  if (modern.length > 0) {
    const probe = await probeModern(
      client,
      modern,
      legacy,
      probeNeedsTimeout && legacy.length > 0 ? settings.probeTimeout : settings.timeout,
    );
    if (probe.kind === 'modern') {
      if (probe.result) return fromDiscover(probe.version, probe.result);
      // A recognised modern error without a DiscoverResult: modern, capabilities unknown.
      return { version: probe.version, serverInfo: undefined, capabilities: {}, instructions: undefined };
    }
    probeFailure = probe.why;
    if (probe.offer) offer = probe.offer;
  }
  if (offer === undefined) {
    throw clientError(
      'SNODO_ERR_NEGOTIATION',
      `the ${transportKind} server does not speak ${modern.join(', ')} (${probeFailure ?? 'no answer'}) and protocolVersions allows no initialize-based revision`,
    );
  }
  return initialize(client, offer, legacy, settings, probeFailure);
}

async function probeModern(
  client: Client,
  modern: ProtocolVersion[],
  legacy: ProtocolVersion[],
  timeout: number,
): Promise<Probe> {
  let version = modern[0] as ProtocolVersion;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const result = await client.send('server/discover', {}, { version, timeout, raw: true });
      const supported = stringArray(result.supportedVersions);
      const common = modern.find((v) => supported.includes(v));
      if (common === version) return { kind: 'modern', version, result };
      if (common !== undefined) {
        version = common;
        continue;
      }
      const older = legacy.find((v) => supported.includes(v));
      return {
        kind: 'legacy',
        why: `server/discover lists ${supported.join(', ') || 'no revision'}`,
        ...(older ? { offer: older } : {}),
      };
    } catch (error) {
      if (ProtocolError.is(error)) {
        if (error.code === -32022) {
          const supported = stringArray((error.data as { supported?: unknown } | undefined)?.supported);
          if (supported.length > 0) {
            const common = modern.find((v) => supported.includes(v));
            if (common !== undefined && attempt === 0) {
              version = common;
              continue;
            }
            const older = legacy.find((v) => supported.includes(v));
            if (older !== undefined || common === undefined) {
              return {
                kind: 'legacy',
                why: `-32022: the server supports ${supported.join(', ')}`,
                ...(older ? { offer: older } : {}),
              };
            }
          }
        }
        if (error.code === -32020 || error.code === -32021)
          return { kind: 'modern', version, result: undefined };
        return { kind: 'legacy', why: `server/discover answered ${error.code} ${error.message}` };
      }
      if (TimeoutError.is(error))
        return { kind: 'legacy', why: `server/discover got no answer within ${timeout} ms` };
      if (
        TransportError.is(error) &&
        (error.code === 'SNODO_ERR_HTTP_STATUS' || error.code === 'SNODO_ERR_INVALID_MESSAGE')
      ) {
        return { kind: 'legacy', why: error.message };
      }
      if (SnodoError.is(error) && error.code === 'SNODO_ERR_INVALID_RESULT')
        return { kind: 'legacy', why: error.message };
      throw error;
    }
  }
  return { kind: 'legacy', why: 'server/discover kept refusing the revision it lists' };
}

function fromDiscover(version: ProtocolVersion, result: Record<string, unknown>): Negotiated {
  const info = (result._meta as Record<string, unknown> | undefined)?.[META.serverInfo];
  return {
    version,
    serverInfo: isImplementation(info) ? info : undefined,
    capabilities: (isObject(result.capabilities) ? result.capabilities : {}) as ServerCapabilities,
    instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
  };
}

async function initialize(
  client: Client,
  offer: ProtocolVersion,
  legacy: ProtocolVersion[],
  settings: Settings,
  probeFailure: string | undefined,
): Promise<Negotiated> {
  let version = offer;
  for (let attempt = 0; attempt < 2; attempt++) {
    let result: Record<string, unknown>;
    try {
      result = await client.send(
        'initialize',
        { protocolVersion: version, capabilities: settings.capabilities, clientInfo: settings.clientInfo },
        { version: undefined, raw: true },
      );
    } catch (error) {
      // A server naming the revisions it supports in its error (the lifecycle's -32602 example).
      const supported = ProtocolError.is(error)
        ? stringArray((error.data as { supported?: unknown } | undefined)?.supported)
        : [];
      const common = legacy.find((v) => supported.includes(v) && v !== version);
      if (common !== undefined && attempt === 0) {
        version = common;
        continue;
      }
      if (ProtocolError.is(error)) {
        throw clientError(
          'SNODO_ERR_NEGOTIATION',
          `initialize failed with ${error.code} ${error.message}${probeFailure ? ` (and ${probeFailure})` : ''}`,
          error,
        );
      }
      throw error;
    }
    const answered = result.protocolVersion;
    if (typeof answered !== 'string' || !legacy.includes(answered as ProtocolVersion)) {
      throw clientError(
        'SNODO_ERR_NEGOTIATION',
        `the server answered initialize with ${JSON.stringify(answered)}, not one of ${legacy.join(', ')}`,
      );
    }
    const negotiated: Negotiated = {
      version: answered as ProtocolVersion,
      serverInfo: isImplementation(result.serverInfo) ? result.serverInfo : undefined,
      capabilities: (isObject(result.capabilities) ? result.capabilities : {}) as ServerCapabilities,
      instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    };
    client.negotiated(negotiated);
    await client.notify('notifications/initialized');
    // The initialize-based way to ask for log messages is per session.
    if (settings.logLevel !== undefined && negotiated.capabilities.logging !== undefined) {
      await client.send('logging/setLevel', { level: settings.logLevel }, {});
    }
    return negotiated;
  }
  throw clientError('SNODO_ERR_NEGOTIATION', 'initialize kept refusing the offered revisions');
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isImplementation(value: unknown): value is Implementation {
  return isObject(value) && typeof value.name === 'string' && typeof value.version === 'string';
}
