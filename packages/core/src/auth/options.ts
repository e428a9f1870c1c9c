import type { AuthInfo } from '../dispatch/context.js';
import { optionError } from '../errors/table.js';
import {
  DEFAULT_AUTH_FETCH_TIMEOUT,
  DEFAULT_CLOCK_SKEW,
  DEFAULT_JWKS_COOLDOWN,
  DEFAULT_MAX_TOKEN_LENGTH,
  MAX_CLOCK_SKEW,
} from '../http/defaults.js';
import { duration, isHttpUrl, nonNegativeInteger, option, positiveInteger } from '../limits/validate.js';
import { isScopeList } from './scopes.js';

/** What `createResourceServer` takes: this server as an OAuth 2.1 resource server. */
export interface ResourceServerOptions {
  /**
   * This server's canonical URL (RFC 8707), e.g. `https://mcp.example.com/mcp`: tokens must name it
   * in `aud`, and the protected resource metadata names it as `resource`. Absolute http(s), no fragment.
   */
  resource: string;
  /** Issuer identifiers of the authorization servers whose tokens are accepted (RFC 8414 metadata is fetched from each). */
  authorizationServers: readonly string[];
  /** `scopes_supported` of the metadata. Default: every scope the server's tools, prompts and resources require, and `requiredScopes`. */
  scopesSupported?: readonly string[];
  /** Scopes every request needs (403 `insufficient_scope` without them). Default none. */
  requiredScopes?: readonly string[];
  /** `resource_name` of the metadata. */
  resourceName?: string;
  /** `resource_documentation` of the metadata (a URL). */
  resourceDocumentation?: string;
  /** JWS algorithms accepted on JWT access tokens. Default: asymmetric ones (RS*, PS*, ES*, EdDSA). */
  algorithms?: readonly string[];
  /** Clock difference tolerated on `exp`, `nbf` and `iat`, in ms (at most 300,000). Default 30,000. */
  clockSkew?: number;
  /** Least time between two JWKS fetches caused by an unknown `kid`, in ms. Default 30,000. */
  jwksCooldown?: number;
  /** Deadline of each request to an authorization server, in ms. Default 5,000. */
  fetchTimeout?: number;
  /** Longest bearer token accepted, in characters. Default 8,192. */
  maxTokenLength?: number;
  /**
   * Opaque tokens (and JWTs when the issuer publishes no JWKS) are checked at the authorization
   * server's introspection endpoint (RFC 7662) with these credentials of this resource server.
   */
  introspection?: { clientId: string; clientSecret: string };
  /**
   * Your own check of tokens that are not JWTs of a configured issuer (when there is no
   * introspection): return the verified identity, or undefined (or throw) to refuse with 401. It
   * must check the token's audience itself.
   */
  verify?: (token: string) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /** Sends the requests to the authorization servers. Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/** The options after validation. */
export interface ResourceServerSettings {
  readonly resource: string;
  readonly issuers: readonly string[];
  readonly scopesSupported: readonly string[] | undefined;
  readonly requiredScopes: readonly string[];
  readonly resourceName: string | undefined;
  readonly resourceDocumentation: string | undefined;
  readonly algorithms: readonly string[];
  readonly clockSkew: number;
  readonly jwksCooldown: number;
  readonly fetchTimeout: number;
  readonly maxTokenLength: number;
  readonly introspection: { readonly clientId: string; readonly clientSecret: string } | undefined;
  readonly verify: ResourceServerOptions['verify'];
  readonly fetch: typeof fetch;
}

export const DEFAULT_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
]);

const KNOWN = new Set<string>([
  'resource',
  'authorizationServers',
  'scopesSupported',
  'requiredScopes',
  'resourceName',
  'resourceDocumentation',
  'algorithms',
  'clockSkew',
  'jwksCooldown',
  'fetchTimeout',
  'maxTokenLength',
  'introspection',
  'verify',
  'fetch',
]);

/** Validates `createResourceServer`'s options once; the message names the option and its rule. */
export function resourceServerSettings(options: ResourceServerOptions): ResourceServerSettings {
  if (typeof options !== 'object' || options === null) throw optionError('auth options must be an object');
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw optionError(`unknown auth option "${key}"; known: ${[...KNOWN].join(', ')}`);
  }
  const resource = canonicalResource(options.resource);
  const servers = options.authorizationServers;
  if (!Array.isArray(servers) || servers.length === 0) {
    throw optionError('auth.authorizationServers must be a non-empty array of issuer URLs');
  }
  for (const issuer of servers) {
    if (!isHttpsOrLoopback(issuer)) {
      throw optionError(
        `auth.authorizationServers entries must be https URLs (http only on loopback), got ${JSON.stringify(issuer)}`,
      );
    }
  }
  const clockSkew = nonNegativeInteger('auth.clockSkew', options.clockSkew, DEFAULT_CLOCK_SKEW);
  if (clockSkew > MAX_CLOCK_SKEW) {
    throw optionError(`auth.clockSkew must be at most ${MAX_CLOCK_SKEW} ms, got ${clockSkew}`);
  }
  const { introspection, verify } = options;
  if (introspection !== undefined) {
    if (
      typeof introspection?.clientId !== 'string' ||
      introspection.clientId === '' ||
      typeof introspection.clientSecret !== 'string'
    ) {
      throw optionError('auth.introspection must be { clientId, clientSecret } (strings)');
    }
    if (verify !== undefined) throw optionError('auth.introspection and auth.verify exclude each other');
  }
  if (verify !== undefined && typeof verify !== 'function')
    throw optionError('auth.verify must be a function');
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    throw optionError('auth.fetch must be a function');
  }
  const algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
  if (
    !Array.isArray(algorithms) ||
    algorithms.length === 0 ||
    algorithms.some((a) => typeof a !== 'string')
  ) {
    throw optionError('auth.algorithms must be a non-empty array of JWS algorithm names');
  }
  if (algorithms.some((a) => a === 'none' || a.startsWith('HS'))) {
    throw optionError(
      'auth.algorithms may not include "none" or HMAC algorithms (HS*): the key would be shared',
    );
  }
  if (options.resourceDocumentation !== undefined && !isHttpUrl(options.resourceDocumentation)) {
    throw optionError('auth.resourceDocumentation must be an absolute http(s) URL');
  }
  if (options.resourceName !== undefined && typeof options.resourceName !== 'string') {
    throw optionError('auth.resourceName must be a string');
  }
  return Object.freeze({
    resource,
    issuers: Object.freeze([...servers]),
    scopesSupported:
      options.scopesSupported === undefined
        ? undefined
        : scopeList('auth.scopesSupported', options.scopesSupported),
    requiredScopes: scopeList('auth.requiredScopes', options.requiredScopes ?? []),
    resourceName: options.resourceName,
    resourceDocumentation: options.resourceDocumentation,
    algorithms: Object.freeze([...algorithms]),
    clockSkew,
    jwksCooldown: option('auth.jwksCooldown', options.jwksCooldown, duration(0), DEFAULT_JWKS_COOLDOWN),
    fetchTimeout: option('auth.fetchTimeout', options.fetchTimeout, duration(1), DEFAULT_AUTH_FETCH_TIMEOUT),
    maxTokenLength: positiveInteger('auth.maxTokenLength', options.maxTokenLength, DEFAULT_MAX_TOKEN_LENGTH),
    introspection: introspection === undefined ? undefined : Object.freeze({ ...introspection }),
    verify,
    // Looked up at each call, so a test or an APM that replaces the global later is honoured.
    fetch: options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init)),
  });
}

/** Validates a list of scope tokens (definitions' `requiredScopes` too). */
export function scopeList(name: string, value: unknown): readonly string[] {
  if (!isScopeList(value)) {
    throw optionError(`${name} must be an array of scope tokens (no spaces, quotes or backslashes)`);
  }
  return Object.freeze([...new Set(value)]);
}

/** The canonical resource URL: absolute http(s), no fragment; the rule RFC 8707 sets for `resource`. */
export function canonicalResource(value: unknown): string {
  if (!isHttpUrl(value) || String(value).includes('#')) {
    throw optionError(
      `auth.resource must be an absolute http(s) URL without a fragment (this server's canonical URL), got ${JSON.stringify(value)}`,
    );
  }
  return value as string;
}

/** https, or http on a loopback host (tests and local development). */
export function isHttpsOrLoopback(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname));
  } catch {
    return false;
  }
}

export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
