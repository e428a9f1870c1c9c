import {
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  type JWTPayload,
  jwtVerify,
  type RemoteJWKSet,
} from 'jose';
import * as oauth from 'oauth4webapi';
import type { AuthInfo } from '../dispatch/context.js';
import { coreError } from '../errors/table.js';
import {
  type ResourceServerOptions,
  type ResourceServerSettings,
  resourceServerSettings,
} from './options.js';

/** The outcome of checking one bearer token. */
export type TokenCheck =
  | { readonly ok: true; readonly auth: AuthInfo }
  /** `description` goes to the client as `error_description` (it names no secret). */
  | { readonly ok: false; readonly description: string };

/**
 * This server as an OAuth 2.1 resource server, its authorization servers discovered and their keys
 * fetched: pass it as the `auth` option of a host (`listen`, `createFetchHandler`, the Fastify
 * plugin), or call `verifyToken` from your own authentication.
 */
export interface ResourceServer {
  readonly settings: ResourceServerSettings;
  /** Where this server's protected resource metadata is (RFC 9728 §3.1), for `WWW-Authenticate`. */
  readonly metadataUrl: string;
  /** The metadata of each authorization server, by issuer. */
  readonly authorizationServers: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  /**
   * Checks a bearer token: a JWT of a configured issuer against its JWKS (signature, `iss`, `aud`
   * equal to `resource`, `exp`/`nbf` within `clockSkew`), otherwise introspection or `verify`.
   */
  verifyToken(token: string): Promise<TokenCheck>;
}

interface Issuer {
  readonly server: oauth.AuthorizationServer;
  readonly jwks: RemoteJWKSet | undefined;
}

const BRAND = Symbol.for('snodo.ResourceServer');

export function isResourceServer(value: unknown): value is ResourceServer {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/**
 * Validates the options, fetches each authorization server's metadata (RFC 8414, then OpenID
 * Connect discovery) and its JWKS. Bad configuration fails here, at start-up, with a
 * `SnodoError`: `SNODO_ERR_INVALID_OPTION` (an option breaks its rule), `SNODO_ERR_AUTH_METADATA`
 * (an issuer without usable metadata), `SNODO_ERR_AUTH_JWKS` (a JWKS that cannot be fetched or is
 * empty), `SNODO_ERR_AUTH_CONFIG` (no way left to check a token).
 */
export async function createResourceServer(options: ResourceServerOptions): Promise<ResourceServer> {
  const settings = resourceServerSettings(options);
  const issuers = new Map<string, Issuer>();
  for (const issuer of settings.issuers) {
    const server = await discover(issuer, settings);
    issuers.set(issuer, { server, jwks: await loadJwks(issuer, server, settings) });
  }
  const introspecting = [...issuers.values()].find((entry) => entry.server.introspection_endpoint);
  if (settings.introspection && !introspecting) {
    throw coreError(
      'SNODO_ERR_AUTH_CONFIG',
      'auth.introspection is set, but no authorization server publishes an introspection_endpoint',
    );
  }
  if (!settings.introspection && !settings.verify && [...issuers.values()].every((entry) => !entry.jwks)) {
    throw coreError(
      'SNODO_ERR_AUTH_CONFIG',
      'no authorization server publishes a jwks_uri: configure auth.introspection or auth.verify to check its tokens',
    );
  }

  const fail = (description: string): TokenCheck => ({ ok: false, description });

  async function verifyJwt(entry: Issuer, token: string): Promise<TokenCheck> {
    try {
      const { payload } = await jwtVerify(token, entry.jwks as RemoteJWKSet, {
        issuer: entry.server.issuer,
        audience: settings.resource,
        algorithms: [...settings.algorithms],
        clockTolerance: settings.clockSkew / 1000,
        requiredClaims: ['exp'],
      });
      return { ok: true, auth: authOf(payload, token) };
    } catch (error) {
      return fail(joseProblem(error, settings.resource));
    }
  }

  async function introspect(entry: Issuer, token: string): Promise<TokenCheck> {
    const credentials = settings.introspection as { clientId: string; clientSecret: string };
    const client: oauth.Client = { client_id: credentials.clientId };
    let claims: oauth.IntrospectionResponse;
    try {
      const response = await oauth.introspectionRequest(
        entry.server,
        client,
        oauth.ClientSecretBasic(credentials.clientSecret),
        token,
        {
          ...requestOptions(entry.server.issuer, settings),
          signal: AbortSignal.timeout(settings.fetchTimeout),
        },
      );
      claims = await oauth.processIntrospectionResponse(entry.server, client, response);
    } catch {
      return fail('the token could not be introspected');
    }
    if (claims.active !== true) return fail('the token is not active');
    const audiences = typeof claims.aud === 'string' ? [claims.aud] : (claims.aud ?? []);
    if (!audiences.includes(settings.resource))
      return fail(`the token's audience is not this resource (${settings.resource})`);
    if (claims.iss !== undefined && claims.iss !== entry.server.issuer)
      return fail('the token has another issuer');
    const now = Date.now();
    if (typeof claims.exp === 'number' && claims.exp * 1000 + settings.clockSkew <= now)
      return fail('the token expired');
    if (typeof claims.nbf === 'number' && claims.nbf * 1000 - settings.clockSkew > now)
      return fail('the token is not valid yet');
    return { ok: true, auth: authOf(claims as JWTPayload, token) };
  }

  const resourceServer: ResourceServer = {
    settings,
    metadataUrl: metadataUrlOf(settings.resource),
    authorizationServers: new Map(
      [...issuers].map(([issuer, entry]) => [issuer, Object.freeze({ ...entry.server })]),
    ),
    async verifyToken(token) {
      if (token.length > settings.maxTokenLength)
        return fail(`the token is longer than ${settings.maxTokenLength} characters`);
      const iss = jwtIssuer(token);
      const entry = iss === undefined ? undefined : issuers.get(iss);
      if (iss !== undefined && entry === undefined) return fail('tokens of this issuer are not accepted');
      if (entry?.jwks) return verifyJwt(entry, token);
      const at = entry?.server.introspection_endpoint ? entry : introspecting;
      if (settings.introspection && at) return introspect(at, token);
      if (settings.verify) {
        try {
          const auth = await settings.verify(token);
          if (auth !== undefined) return { ok: true, auth };
        } catch {
          // refused below, as for undefined
        }
        return fail('the token was refused');
      }
      return fail('the token is not a JWT of an accepted authorization server');
    },
  };
  Object.defineProperty(resourceServer, BRAND, { value: true });
  return Object.freeze(resourceServer);
}

/**
 * RFC 9728 §3.1: the well-known path goes between the host and the resource's path, so
 * `https://h/mcp` has its metadata at `https://h/.well-known/oauth-protected-resource/mcp`.
 */
export function metadataUrlOf(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}/.well-known/oauth-protected-resource${path}${url.search}`;
}

function requestOptions(issuer: string, settings: ResourceServerSettings) {
  return {
    [oauth.customFetch]: settings.fetch,
    [oauth.allowInsecureRequests]: new URL(issuer).protocol === 'http:',
  };
}

async function discover(
  issuer: string,
  settings: ResourceServerSettings,
): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  const problems: string[] = [];
  for (const algorithm of ['oauth2', 'oidc'] as const) {
    try {
      const response = await oauth.discoveryRequest(url, {
        algorithm,
        ...requestOptions(issuer, settings),
        signal: AbortSignal.timeout(settings.fetchTimeout),
      });
      return await oauth.processDiscoveryResponse(url, response);
    } catch (error) {
      problems.push(`${wellKnown(url, algorithm)}: ${reason(error)}`);
    }
  }
  throw coreError(
    'SNODO_ERR_AUTH_METADATA',
    `authorization server ${issuer} has no usable metadata (${problems.join('; ')})`,
  );
}

async function loadJwks(
  issuer: string,
  server: oauth.AuthorizationServer,
  settings: ResourceServerSettings,
): Promise<RemoteJWKSet | undefined> {
  if (server.jwks_uri === undefined) return undefined;
  const jwks = createRemoteJWKSet(new URL(server.jwks_uri), {
    cooldownDuration: settings.jwksCooldown,
    timeoutDuration: settings.fetchTimeout,
    [customFetch]: settings.fetch,
  });
  try {
    await jwks.reload();
  } catch (error) {
    throw coreError(
      'SNODO_ERR_AUTH_JWKS',
      `authorization server ${issuer}: its JWKS at ${server.jwks_uri} cannot be fetched (${reason(error)})`,
    );
  }
  if ((jwks.jwks()?.keys.length ?? 0) === 0) {
    throw coreError(
      'SNODO_ERR_AUTH_JWKS',
      `authorization server ${issuer}: its JWKS at ${server.jwks_uri} has no key`,
    );
  }
  return jwks;
}

function wellKnown(issuer: URL, algorithm: 'oauth2' | 'oidc'): string {
  const path = issuer.pathname === '/' ? '' : issuer.pathname;
  return algorithm === 'oauth2'
    ? `${issuer.origin}/.well-known/oauth-authorization-server${path}`
    : `${issuer.origin}${path.replace(/\/$/, '')}/.well-known/openid-configuration`;
}

function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/** The `iss` of a token shaped like a JWT, without verifying it; undefined for any other token. */
function jwtIssuer(token: string): string | undefined {
  if (token.split('.').length !== 3) return undefined;
  try {
    const { iss } = decodeJwt(token);
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}

/** The verified claims as the request's `auth`: principal, client, scopes, and every claim. */
function authOf(claims: JWTPayload, token: string): AuthInfo {
  const clientId =
    typeof claims.client_id === 'string'
      ? claims.client_id
      : typeof claims.azp === 'string'
        ? claims.azp
        : undefined;
  const scope = claims.scope;
  const scopes =
    typeof scope === 'string'
      ? scope.split(' ').filter((item) => item !== '')
      : Array.isArray(claims.scp)
        ? claims.scp.filter((item): item is string => typeof item === 'string')
        : [];
  const auth: AuthInfo = { scopes, token, claims };
  const principal = typeof claims.sub === 'string' ? claims.sub : clientId;
  if (principal !== undefined) auth.principal = principal;
  if (clientId !== undefined) auth.clientId = clientId;
  if (typeof claims.iss === 'string') auth.issuer = claims.iss;
  if (typeof claims.exp === 'number') auth.expiresAt = claims.exp;
  return auth;
}

/** A client-facing description of a failed JWT check. */
function joseProblem(error: unknown, resource: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  const claim = (error as { claim?: unknown } | null)?.claim;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'the token expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'aud') return `the token's audience is not this resource (${resource})`;
      if (claim === 'nbf' || claim === 'iat') return 'the token is not valid yet';
      return `the token's ${String(claim)} claim is not valid`;
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'no key of the authorization server matches the token';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return "the token's signing algorithm is not accepted";
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return "the token's signature is not valid";
    case 'ERR_JWKS_TIMEOUT':
      return "the authorization server's keys could not be fetched";
    default:
      return 'the token is not a valid JWT';
  }
}
