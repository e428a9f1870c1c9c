import type { webcrypto } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { optionError } from './errors.js';
import {
  challengeParams,
  type Json,
  protectedResource,
  requestOptions,
  sameResource,
  serverMetadata,
  stringList,
  unauthorized,
} from './oauth-discovery.js';

export { challengeParams } from './oauth-discovery.js';

/**
 * OAuth 2.1 for Streamable HTTP (MCP authorization), on oauth4webapi: on a 401 (or a 403
 * `insufficient_scope`) the client discovers the Protected Resource Metadata (RFC 9728) and checks
 * that its `resource` is this server, discovers the authorization server (RFC 8414 and OpenID,
 * path-aware), and gets a token: the authorization-code flow with PKCE S256, `state`, `resource`
 * (RFC 8707) and the `iss` check (RFC 9207) after registering (pre-registered credentials, a Client
 * ID Metadata Document, or Dynamic Client Registration); or the client-credentials grant of the
 * `io.modelcontextprotocol/oauth-client-credentials` extension. Credentials are kept per issuer.
 */
export interface OAuthOptions {
  /** Where the authorization server sends the user back (registered as the redirect URI). Authorization code only. */
  redirectUrl?: string;
  /**
   * The user-agent step of the authorization code flow: show `url` to the user (a browser) and
   * resolve with the URL the authorization server redirected to (it carries `code`, `state`, maybe `iss`).
   */
  authorize?(url: URL): Promise<string | URL>;
  /**
   * The client-credentials grant (no user, no redirect): `clientSecret` authenticates with
   * `client_secret_basic` (or `client_secret_post` when the server offers only that), `privateKey`
   * with `private_key_jwt` (RFC 7523).
   */
  clientCredentials?:
    | { clientId: string; clientSecret: string }
    | { clientId: string; privateKey: webcrypto.CryptoKey; keyId?: string };
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
  readonly client: oauth.Client;
  readonly auth: oauth.ClientAuth;
}

interface Tokens {
  access: string;
  refresh: string | undefined;
  expiresAt: number | undefined;
  server: oauth.AuthorizationServer;
  resource: string;
}

/** What a challenge resolved to: the authorization server, the resource to name, the scope to ask. */
interface Target {
  server: oauth.AuthorizationServer;
  resource: string;
  scope: string | undefined;
}

/**
 * `client_secret_basic` (RFC 6749 §2.3.1) with the id and secret percent-encoded as
 * `encodeURIComponent` does. oauth4webapi's own also encodes `-`, `.`, `_`, `~` (`%2D`…), which
 * authorization servers that do not decode the pair (the conformance suite's among them) refuse.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  return (_server, client, body, headers) => {
    body.delete('client_id');
    const pair = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`;
    headers.set('authorization', `Basic ${btoa(pair)}`);
  };
}

/**
 * The client a Dynamic Client Registration answer (RFC 7591 §3.2.1) describes. Read here rather
 * than with oauth4webapi's `processDynamicClientRegistrationResponse`, which refuses an answer with
 * a `client_secret` but no `client_secret_expires_at`: a field many servers leave out.
 */
async function registeredClient(response: Response): Promise<oauth.Client> {
  const text = await response.text();
  if (response.status !== 201 && response.status !== 200) throw new Error(`HTTP ${response.status}`);
  const body = JSON.parse(text) as Record<string, unknown>;
  if (typeof body.client_id !== 'string' || body.client_id === '')
    throw new Error('the answer has no client_id');
  return body as oauth.Client;
}

export class OAuthClient {
  readonly maxAttempts: number;
  readonly #options: OAuthOptions;
  readonly #fetch: typeof fetch;
  readonly #registrations = new Map<string, Registration>();
  #tokens: Tokens | undefined;
  /** Scopes asked for so far: a re-authorization asks for their union with the new challenge (SEP-2350). */
  #requested = new Set<string>();
  /** The challenge being answered: concurrent 401s wait for it instead of authorizing again. */
  #answering: Promise<void> | undefined;

  constructor(options: OAuthOptions) {
    if (typeof options !== 'object' || options === null) throw optionError('oauth must be an object');
    const { clientCredentials } = options;
    if (clientCredentials !== undefined) {
      const secret =
        'clientSecret' in clientCredentials && typeof clientCredentials.clientSecret === 'string';
      const key = 'privateKey' in clientCredentials && typeof clientCredentials.privateKey === 'object';
      if (typeof clientCredentials?.clientId !== 'string' || secret === key) {
        throw optionError(
          'oauth.clientCredentials must be { clientId, clientSecret } or { clientId, privateKey }',
        );
      }
    } else if (typeof options.redirectUrl !== 'string' || typeof options.authorize !== 'function') {
      throw optionError('oauth needs redirectUrl and authorize (authorization code), or clientCredentials');
    }
    this.#options = options;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.maxAttempts = options.maxAttempts ?? 3;
  }

  /** The access token to send, refreshed first when it expired and a refresh token is held. */
  async accessToken(): Promise<string | undefined> {
    await this.#answering?.catch(() => {});
    const tokens = this.#tokens;
    if (tokens?.expiresAt !== undefined && Date.now() >= tokens.expiresAt) {
      if (tokens.refresh) await this.#refresh(tokens).catch(() => this.#forget());
      else this.#forget();
    }
    return this.#tokens?.access;
  }

  /** Answers a 401 / 403 challenge: refresh, or run the whole flow. Throws when it cannot. */
  async challenge(serverUrl: URL, status: number, wwwAuthenticate: string | undefined): Promise<void> {
    if (this.#answering) return this.#answering;
    this.#answering = this.#answer(serverUrl, status, wwwAuthenticate);
    try {
      await this.#answering;
    } finally {
      this.#answering = undefined;
    }
  }

  async #answer(serverUrl: URL, status: number, wwwAuthenticate: string | undefined): Promise<void> {
    const params = challengeParams(wwwAuthenticate);
    const held = this.#tokens;
    if (status === 401 && held?.refresh) {
      try {
        await this.#refresh(held);
        return;
      } catch {
        this.#forget();
      }
    }
    const target = await this.#target(serverUrl, params.resource_metadata, params.scope);
    if (this.#options.clientCredentials) await this.#clientCredentials(target);
    else await this.#authorizationCode(target);
  }

  #forget(): void {
    this.#tokens = undefined;
  }

  /** The authorization server and resource of this server, and the scope to ask for. */
  async #target(
    serverUrl: URL,
    advertised: string | undefined,
    challenged: string | undefined,
  ): Promise<Target> {
    const prm = await protectedResource(this.#fetch, serverUrl, advertised);
    if (prm === undefined) {
      // 2025-03-26 servers publish no resource metadata: the server's origin is the authorization
      // server, with its RFC 8414 metadata or else the default endpoints.
      const issuer = serverUrl.origin;
      const server = (await serverMetadata(this.#fetch, issuer, true)) ?? {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
      };
      return { server, resource: serverUrl.href, scope: this.#scope(challenged, {}, server) };
    }
    const resource = typeof prm.resource === 'string' ? prm.resource : undefined;
    if (resource === undefined || !sameResource(resource, serverUrl)) {
      throw unauthorized(
        `the protected resource metadata names ${JSON.stringify(resource)}, not this server (${serverUrl.href})`,
      );
    }
    const issuer = stringList(prm.authorization_servers)[0];
    if (!issuer) throw unauthorized('the resource names no authorization server');
    const server = (await serverMetadata(this.#fetch, issuer, false)) as oauth.AuthorizationServer;
    return { server, resource, scope: this.#scope(challenged, prm, server) };
  }

  #scope(challenged: string | undefined, prm: Json, server: oauth.AuthorizationServer): string | undefined {
    let scope = challenged ?? (stringList(prm.scopes_supported).join(' ') || this.#options.scope);
    const offline =
      !this.#options.clientCredentials &&
      stringList(server.scopes_supported).includes('offline_access') &&
      stringList(server.grant_types_supported).includes('refresh_token');
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

  #request(server: oauth.AuthorizationServer) {
    return requestOptions(server.issuer, this.#fetch);
  }

  /** The client-credentials grant with `resource` (RFC 8707). */
  async #clientCredentials({ server, resource, scope }: Target): Promise<void> {
    const credentials = this.#options.clientCredentials as NonNullable<OAuthOptions['clientCredentials']>;
    const client: oauth.Client = { client_id: credentials.clientId };
    let auth: oauth.ClientAuth;
    if ('privateKey' in credentials) {
      auth = oauth.PrivateKeyJwt(
        credentials.keyId === undefined
          ? credentials.privateKey
          : { key: credentials.privateKey, kid: credentials.keyId },
      );
    } else {
      const methods = stringList(server.token_endpoint_auth_methods_supported);
      auth =
        methods.includes('client_secret_post') && !methods.includes('client_secret_basic')
          ? oauth.ClientSecretPost(credentials.clientSecret)
          : clientSecretBasic(credentials.clientSecret);
    }
    const parameters: Record<string, string> = { resource };
    if (scope) parameters.scope = scope;
    await this.#tokenRequest(server, resource, async () => {
      const response = await oauth.clientCredentialsGrantRequest(
        server,
        client,
        auth,
        parameters,
        this.#request(server),
      );
      return oauth.processClientCredentialsResponse(server, client, response);
    });
  }

  async #authorizationCode({ server, resource, scope }: Target): Promise<void> {
    if (!server.authorization_endpoint || !server.token_endpoint) {
      throw unauthorized(`${server.issuer} has no authorization or token endpoint`);
    }
    const { client, auth } = await this.#register(server);
    const redirectUrl = this.#options.redirectUrl as string;
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(server.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', redirectUrl);
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('resource', resource);
    if (scope) url.searchParams.set('scope', scope);
    const back = new URL(await (this.#options.authorize as NonNullable<OAuthOptions['authorize']>)(url));
    let callback: URLSearchParams;
    try {
      // `state`, `error`, and `iss` (RFC 9207: required when advertised, compared when present).
      callback = oauth.validateAuthResponse(server, client, back.searchParams, state);
    } catch (error) {
      throw unauthorized(`the authorization response was refused (${(error as Error).message})`);
    }
    await this.#tokenRequest(server, resource, async () => {
      const response = await oauth.authorizationCodeGrantRequest(
        server,
        client,
        auth,
        callback,
        redirectUrl,
        verifier,
        {
          ...this.#request(server),
          additionalParameters: { resource },
        },
      );
      return oauth.processAuthorizationCodeResponse(server, client, response);
    });
  }

  /** The client at `server`: pre-registered, a Client ID Metadata Document, or Dynamic Client Registration. */
  async #register(server: oauth.AuthorizationServer): Promise<Registration> {
    const known = this.#registrations.get(server.issuer);
    if (known) return known;
    const supported = stringList(server.token_endpoint_auth_methods_supported);
    const { clientId, clientSecret, clientMetadataUrl } = this.#options;
    let registration: Registration;
    if (clientId !== undefined) {
      const post =
        clientSecret !== undefined &&
        supported.includes('client_secret_post') &&
        !supported.includes('client_secret_basic');
      registration = {
        client: { client_id: clientId },
        auth:
          clientSecret === undefined
            ? oauth.None()
            : post
              ? oauth.ClientSecretPost(clientSecret)
              : clientSecretBasic(clientSecret),
      };
    } else if (server.client_id_metadata_document_supported === true && clientMetadataUrl) {
      registration = { client: { client_id: clientMetadataUrl }, auth: oauth.None() };
    } else {
      if (typeof server.registration_endpoint !== 'string') {
        throw unauthorized(`${server.issuer} offers no registration and no client id is set`);
      }
      const method =
        supported.find((m) => m === 'none' || m === 'client_secret_basic' || m === 'client_secret_post') ??
        'none';
      let client: oauth.Client;
      try {
        const response = await oauth.dynamicClientRegistrationRequest(
          server,
          {
            client_name: '@snodo/client',
            redirect_uris: [this.#options.redirectUrl as string],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: method,
            application_type: 'native',
            ...this.#options.clientMetadata,
          },
          this.#request(server),
        );
        client = await registeredClient(response);
      } catch (error) {
        throw unauthorized(`registration at ${server.issuer} failed (${(error as Error).message})`);
      }
      const secret = typeof client.client_secret === 'string' ? client.client_secret : undefined;
      const registered =
        typeof client.token_endpoint_auth_method === 'string' ? client.token_endpoint_auth_method : method;
      registration = {
        client: { client_id: client.client_id },
        auth:
          secret === undefined || registered === 'none'
            ? oauth.None()
            : registered === 'client_secret_post'
              ? oauth.ClientSecretPost(secret)
              : clientSecretBasic(secret),
      };
    }
    this.#registrations.set(server.issuer, registration);
    return registration;
  }

  /** Runs a token request and keeps its tokens (a refresh token given before stays unless replaced). */
  async #tokenRequest(
    server: oauth.AuthorizationServer,
    resource: string,
    request: () => Promise<oauth.TokenEndpointResponse>,
  ): Promise<void> {
    let answer: oauth.TokenEndpointResponse;
    try {
      answer = await request();
    } catch (error) {
      throw unauthorized(`the token request failed (${(error as Error).message})`);
    }
    this.#tokens = {
      access: answer.access_token,
      refresh:
        answer.refresh_token ??
        (this.#tokens?.server.issuer === server.issuer ? this.#tokens.refresh : undefined),
      expiresAt: typeof answer.expires_in === 'number' ? Date.now() + answer.expires_in * 1000 : undefined,
      server,
      resource,
    };
  }

  async #refresh(tokens: Tokens): Promise<void> {
    const registration = this.#registrations.get(tokens.server.issuer);
    if (!registration || !tokens.refresh) throw new Error('nothing to refresh with');
    const { client, auth } = registration;
    const refresh = tokens.refresh;
    await this.#tokenRequest(tokens.server, tokens.resource, async () => {
      const response = await oauth.refreshTokenGrantRequest(tokens.server, client, auth, refresh, {
        ...this.#request(tokens.server),
        additionalParameters: { resource: tokens.resource },
      });
      return oauth.processRefreshTokenResponse(tokens.server, client, response);
    });
  }
}
