import { createHash, randomBytes } from 'node:crypto';
import { clientError } from './errors.js';

/**
 * OAuth 2.1 for Streamable HTTP (MCP authorization): on a 401 (or a 403 `insufficient_scope`) the
 * client discovers the Protected Resource Metadata (RFC 9728: the `resource_metadata` of the
 * challenge, else the path-based well-known URL, then the root one), checks that its `resource` is
 * this server, discovers the authorization server (RFC 8414 and OpenID, path-aware), registers
 * (pre-registered credentials, a Client ID Metadata Document when the server supports it, or
 * Dynamic Client Registration), runs the authorization-code flow with PKCE S256, `state`,
 * `resource` (RFC 8707) and the `iss` check (RFC 9207), and retries with the bearer token.
 * Credentials are kept per issuer, so a moved authorization server gets a new registration.
 */
export interface OAuthOptions {
  /** Where the authorization server sends the user back (registered as the redirect URI). */
  redirectUrl: string;
  /**
   * The user-agent step: show `url` to the user (a browser) and resolve with the URL the
   * authorization server redirected to (it carries `code`, `state`, maybe `iss`).
   */
  authorize(url: URL): Promise<string | URL>;
  /** `client_name` and other Dynamic Client Registration metadata. */
  clientMetadata?: Record<string, unknown>;
  /** Pre-registered credentials (no registration). */
  clientId?: string;
  clientSecret?: string;
  /** A Client ID Metadata Document URL, used as `client_id` when the server supports it. */
  clientMetadataUrl?: string;
  /** Scope when neither the challenge nor the metadata names one. */
  scope?: string;
  /** Authorization attempts for one request before its 401/403 is final. Default 3. */
  maxAttempts?: number;
  fetch?: typeof fetch;
}

interface Registration {
  clientId: string;
  clientSecret: string | undefined;
  method: string;
}

interface Tokens {
  access: string;
  refresh: string | undefined;
  expiresAt: number | undefined;
  issuer: string;
  resource: string;
  tokenEndpoint: string;
}

type Json = Record<string, unknown>;

/** Parses `Bearer a="b", c=d` challenge parameters. */
export function challengeParams(header: string | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  if (!header) return params;
  for (const match of header.matchAll(/([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    params[(match[1] as string).toLowerCase()] = (match[2] ?? match[3] ?? '').replace(/\\(.)/g, '$1');
  }
  return params;
}

const base64url = (bytes: Buffer) => bytes.toString('base64url');

export class OAuthClient {
  readonly maxAttempts: number;
  readonly #options: OAuthOptions;
  readonly #fetch: typeof fetch;
  readonly #registrations = new Map<string, Registration>();
  #tokens: Tokens | undefined;
  /** Scopes asked for so far: a re-authorization asks for their union with the new challenge (SEP-2350). */
  #requested = new Set<string>();

  constructor(options: OAuthOptions) {
    this.#options = options;
    this.#fetch = options.fetch ?? fetch;
    this.maxAttempts = options.maxAttempts ?? 3;
  }

  /** The access token to send, refreshed first when it expired and a refresh token is held. */
  async accessToken(): Promise<string | undefined> {
    const tokens = this.#tokens;
    if (tokens?.expiresAt !== undefined && Date.now() >= tokens.expiresAt && tokens.refresh) {
      await this.#refresh(tokens).catch(() => {
        this.#tokens = undefined;
      });
    }
    return this.#tokens?.access;
  }

  /** Answers a 401 / 403 challenge: refresh, or run the whole flow. Throws when it cannot. */
  async challenge(serverUrl: URL, status: number, wwwAuthenticate: string | undefined): Promise<void> {
    const params = challengeParams(wwwAuthenticate);
    if (status === 401 && this.#tokens?.refresh) {
      try {
        await this.#refresh(this.#tokens);
        return;
      } catch {
        this.#tokens = undefined;
      }
    }
    const prm = await this.#protectedResource(serverUrl, params.resource_metadata);
    let resource: string | undefined;
    let issuer: string | undefined;
    let metadata: Json;
    if (prm === undefined) {
      // 2025-03-26 servers publish no resource metadata: the server's origin is the authorization
      // server, with its RFC 8414 metadata or else the default endpoints.
      resource = serverUrl.href;
      issuer = serverUrl.origin;
      metadata = (await this.#serverMetadata(issuer, true)) ?? {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
      };
    } else {
      resource = typeof prm.resource === 'string' ? prm.resource : undefined;
      if (resource === undefined || !sameResource(resource, serverUrl)) {
        throw clientError(
          'SNODO_ERR_UNAUTHORIZED',
          `OAuth: the protected resource metadata names ${JSON.stringify(resource)}, not this server (${serverUrl.href})`,
        );
      }
      const servers = Array.isArray(prm.authorization_servers) ? prm.authorization_servers : [];
      issuer = servers.find((s): s is string => typeof s === 'string');
      if (!issuer)
        throw clientError('SNODO_ERR_UNAUTHORIZED', 'OAuth: the resource names no authorization server');
      metadata = (await this.#serverMetadata(issuer, false)) as Json;
    }
    const registration = await this.#register(issuer, metadata);
    const scope = this.#scope(params.scope, prm ?? {}, metadata);
    await this.#authorize(issuer, metadata, registration, resource, scope);
  }

  async #json(url: string | URL, init?: RequestInit): Promise<{ status: number; body: Json | undefined }> {
    const response = await this.#fetch(url, init);
    const text = await response.text();
    let body: Json | undefined;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = parsed as Json;
    } catch {
      body = undefined;
    }
    return { status: response.status, body };
  }

  async #protectedResource(serverUrl: URL, advertised: string | undefined): Promise<Json | undefined> {
    const candidates: string[] = [];
    if (advertised) candidates.push(advertised);
    const path = serverUrl.pathname === '/' ? '' : serverUrl.pathname.replace(/\/$/, '');
    if (path !== '') candidates.push(`${serverUrl.origin}/.well-known/oauth-protected-resource${path}`);
    candidates.push(`${serverUrl.origin}/.well-known/oauth-protected-resource`);
    for (const url of candidates) {
      const { status, body } = await this.#json(url);
      if (status < 300 && body) return body;
    }
    return undefined;
  }

  async #serverMetadata(issuer: string, optional: boolean): Promise<Json | undefined> {
    const url = new URL(issuer);
    const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
    const candidates =
      path === ''
        ? [
            `${url.origin}/.well-known/oauth-authorization-server`,
            `${url.origin}/.well-known/openid-configuration`,
          ]
        : [
            `${url.origin}/.well-known/oauth-authorization-server${path}`,
            `${url.origin}/.well-known/openid-configuration${path}`,
            `${url.origin}${path}/.well-known/openid-configuration`,
          ];
    for (const candidate of candidates) {
      const { status, body } = await this.#json(candidate);
      if (status >= 300 || !body) continue;
      if (body.issuer !== issuer) {
        throw clientError(
          'SNODO_ERR_UNAUTHORIZED',
          `OAuth: the metadata of ${issuer} names issuer ${JSON.stringify(body.issuer)}`,
        );
      }
      return body;
    }
    if (optional) return undefined;
    throw clientError('SNODO_ERR_UNAUTHORIZED', `OAuth: no authorization server metadata for ${issuer}`);
  }

  async #register(issuer: string, metadata: Json): Promise<Registration> {
    const known = this.#registrations.get(issuer);
    if (known) return known;
    const supported = stringList(metadata.token_endpoint_auth_methods_supported);
    let registration: Registration;
    const { clientId, clientSecret, clientMetadataUrl } = this.#options;
    if (clientId !== undefined) {
      const method =
        clientSecret === undefined
          ? 'none'
          : (supported.find((m) => m === 'client_secret_basic' || m === 'client_secret_post') ??
            'client_secret_basic');
      registration = { clientId, clientSecret, method };
    } else if (metadata.client_id_metadata_document_supported === true && clientMetadataUrl) {
      registration = { clientId: clientMetadataUrl, clientSecret: undefined, method: 'none' };
    } else {
      const endpoint = metadata.registration_endpoint;
      if (typeof endpoint !== 'string') {
        throw clientError(
          'SNODO_ERR_UNAUTHORIZED',
          `OAuth: ${issuer} offers no registration and no client id is set`,
        );
      }
      const method =
        supported.find((m) => m === 'none' || m === 'client_secret_basic' || m === 'client_secret_post') ??
        'none';
      const { status, body } = await this.#json(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          client_name: '@snodo/client',
          redirect_uris: [this.#options.redirectUrl],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: method,
          application_type: 'native',
          ...this.#options.clientMetadata,
        }),
      });
      if (status >= 300 || typeof body?.client_id !== 'string') {
        throw clientError(
          'SNODO_ERR_UNAUTHORIZED',
          `OAuth: registration at ${issuer} failed (HTTP ${status})`,
        );
      }
      registration = {
        clientId: body.client_id,
        clientSecret: typeof body.client_secret === 'string' ? body.client_secret : undefined,
        method:
          typeof body.token_endpoint_auth_method === 'string' ? body.token_endpoint_auth_method : method,
      };
    }
    this.#registrations.set(issuer, registration);
    return registration;
  }

  #scope(challenged: string | undefined, prm: Json, metadata: Json): string | undefined {
    let scope = challenged ?? (stringList(prm.scopes_supported).join(' ') || this.#options.scope);
    const offline =
      stringList(metadata.scopes_supported).includes('offline_access') &&
      stringList(metadata.grant_types_supported).includes('refresh_token');
    if (offline && !(scope ?? '').split(' ').includes('offline_access')) {
      scope = scope ? `${scope} offline_access` : 'offline_access';
    }
    if (scope === undefined || scope === '')
      return this.#requested.size > 0 ? [...this.#requested].join(' ') : undefined;
    const union = [...this.#requested];
    for (const item of scope.split(' ')) if (item !== '' && !union.includes(item)) union.push(item);
    for (const item of union) this.#requested.add(item);
    return union.join(' ');
  }

  async #authorize(
    issuer: string,
    metadata: Json,
    registration: Registration,
    resource: string,
    scope: string | undefined,
  ): Promise<void> {
    const endpoint = metadata.authorization_endpoint;
    const tokenEndpoint = metadata.token_endpoint;
    if (typeof endpoint !== 'string' || typeof tokenEndpoint !== 'string') {
      throw clientError('SNODO_ERR_UNAUTHORIZED', `OAuth: ${issuer} has no authorization or token endpoint`);
    }
    const verifier = base64url(randomBytes(32));
    const challenge = base64url(createHash('sha256').update(verifier).digest());
    const state = base64url(randomBytes(16));
    const url = new URL(endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', registration.clientId);
    url.searchParams.set('redirect_uri', this.#options.redirectUrl);
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('resource', resource);
    if (scope) url.searchParams.set('scope', scope);
    const back = new URL(await this.#options.authorize(url));
    const query = back.searchParams;
    if (query.get('error'))
      throw clientError('SNODO_ERR_UNAUTHORIZED', `OAuth: authorization refused (${query.get('error')})`);
    if (query.get('state') !== state)
      throw clientError('SNODO_ERR_UNAUTHORIZED', 'OAuth: the state does not match');
    const iss = query.get('iss');
    if (metadata.authorization_response_iss_parameter_supported === true && iss === null) {
      throw clientError(
        'SNODO_ERR_UNAUTHORIZED',
        'OAuth: the authorization response lacks the advertised iss',
      );
    }
    if (iss !== null && iss !== issuer) {
      throw clientError(
        'SNODO_ERR_UNAUTHORIZED',
        `OAuth: the authorization response names issuer ${iss}, not ${issuer}`,
      );
    }
    const code = query.get('code');
    if (!code) throw clientError('SNODO_ERR_UNAUTHORIZED', 'OAuth: the authorization response has no code');
    await this.#token(
      tokenEndpoint,
      registration,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: this.#options.redirectUrl,
        code_verifier: verifier,
        resource,
      },
      issuer,
      resource,
    );
  }

  async #token(
    endpoint: string,
    registration: Registration,
    fields: Record<string, string>,
    issuer: string,
    resource: string,
  ): Promise<void> {
    const body = new URLSearchParams(fields);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (registration.method === 'client_secret_basic' && registration.clientSecret !== undefined) {
      const id = encodeURIComponent(registration.clientId);
      const secret = encodeURIComponent(registration.clientSecret);
      headers.authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    } else {
      body.set('client_id', registration.clientId);
      if (registration.method === 'client_secret_post' && registration.clientSecret !== undefined) {
        body.set('client_secret', registration.clientSecret);
      }
    }
    const { status, body: answer } = await this.#json(endpoint, { method: 'POST', headers, body });
    if (status >= 300 || typeof answer?.access_token !== 'string') {
      throw clientError('SNODO_ERR_UNAUTHORIZED', `OAuth: the token request failed (HTTP ${status})`);
    }
    const expires = typeof answer.expires_in === 'number' ? Date.now() + answer.expires_in * 1000 : undefined;
    this.#tokens = {
      access: answer.access_token,
      refresh: typeof answer.refresh_token === 'string' ? answer.refresh_token : this.#tokens?.refresh,
      expiresAt: expires,
      issuer,
      resource,
      tokenEndpoint: endpoint,
    };
  }

  async #refresh(tokens: Tokens): Promise<void> {
    const registration = this.#registrations.get(tokens.issuer);
    if (!registration || !tokens.refresh) throw new Error('nothing to refresh with');
    await this.#token(
      tokens.tokenEndpoint,
      registration,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh, resource: tokens.resource },
      tokens.issuer,
      tokens.resource,
    );
  }
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The metadata's resource is this server: same origin, and the server's path within the resource's. */
function sameResource(resource: string, server: URL): boolean {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return false;
  }
  if (url.origin !== server.origin) return false;
  const base = url.pathname.replace(/\/$/, '');
  const path = server.pathname.replace(/\/$/, '');
  return path === base || path.startsWith(`${base}/`);
}
