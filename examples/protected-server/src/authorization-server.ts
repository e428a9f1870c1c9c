// A real OAuth 2.1 authorization server on loopback (oidc-provider 8.x), as the example and the
// tests use it: client credentials, authorization code + PKCE with the login and consent
// interactions approved at once (no person in the loop), dynamic client registration, refresh
// tokens, introspection, resource indicators (RFC 8707: the token's audience is the resource the
// client named) and JWKS rotation. Not a production configuration: tokens and grants live in memory.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type ClientMetadata, type Configuration, errors, type JWK } from 'oidc-provider';

export interface AuthorizationServerOptions {
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** Scopes the resource servers accept (each token carries those it was granted). Default `mcp:tools`. */
  scopes?: readonly string[];
  /** Clients registered up front (client credentials, pre-registered authorization-code clients). */
  clients?: ClientMetadata[];
  /** `jwt` (default) or `opaque` access tokens (opaque ones are checked by introspection). */
  accessTokenFormat?: 'jwt' | 'opaque';
  /** Access token lifetime in seconds. Default 300. */
  accessTokenTtl?: number;
  /** Which resource indicators may be named (default: any http URL on loopback). */
  acceptsResource?: (resource: string) => boolean;
}

export interface AuthorizationServer {
  /** The issuer, e.g. `http://127.0.0.1:4101`. */
  readonly issuer: string;
  /** Replaces the signing key: tokens issued from now on carry a new `kid`; the old key is still published. */
  rotateKeys(): void;
  close(): Promise<void>;
}

const LOOPBACK_HTTP = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\//;

/** A fresh ES256 signing key as a private JWK with its `kid`. */
function signingKey(): JWK {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' }) as JWK;
  return { ...jwk, kid: randomBytes(8).toString('hex'), alg: 'ES256', use: 'sig' };
}

/**
 * Starts the authorization server on `http://127.0.0.1:<port>`. Its authorization endpoint sends the
 * user agent to `/interaction/<uid>`, which approves login (account `user-1`) and consent for every
 * scope and resource asked, and redirects back: a client following redirects (keeping cookies)
 * reaches its `redirect_uri` with a code.
 */
export async function startAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<AuthorizationServer> {
  const scopes = options.scopes ?? ['mcp:tools'];
  const format = options.accessTokenFormat ?? 'jwt';
  const ttl = options.accessTokenTtl ?? 300;
  const accepts = options.acceptsResource ?? ((resource: string) => LOOPBACK_HTTP.test(resource));
  const cookieKey = randomBytes(32).toString('hex');
  let keys: JWK[] = [signingKey()];

  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const configuration = (): Configuration => ({
    clients: options.clients ?? [],
    // The only key is ES256 (the default RS256 would need an RSA key too).
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    jwks: { keys },
    cookies: { keys: [cookieKey] },
    scopes: ['openid', 'offline_access', ...scopes],
    pkce: { required: () => true },
    // Refresh tokens for every client allowed the grant (not only for offline_access).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: ttl, ClientCredentials: ttl },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A request without `resource` is refused: every token must name its audience.
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (!accepts(resource)) throw new errors.InvalidTarget(`unknown resource ${resource}`);
          return {
            scope: scopes.join(' '),
            audience: resource,
            accessTokenTTL: ttl,
            accessTokenFormat: format,
            ...(format === 'jwt' ? { jwt: { sign: { alg: 'ES256' } } } : {}),
          };
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  });

  let provider = new Provider(issuer, configuration());
  const approve = async (req: IncomingMessage, res: ServerResponse) => {
    const interaction = await provider.interactionDetails(req, res);
    const { prompt, params } = interaction;
    if (prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: 'user-1' } });
      return;
    }
    const grant = interaction.grantId
      ? ((await provider.Grant.find(interaction.grantId)) ??
        new provider.Grant({ accountId: 'user-1', clientId: String(params.client_id) }))
      : new provider.Grant({ accountId: 'user-1', clientId: String(params.client_id) });
    const details = prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
    if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
    for (const [resource, granted] of Object.entries(details.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, granted.join(' '));
    }
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      approve(req, res).catch((error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(error instanceof Error ? error.message : String(error));
      });
      return;
    }
    provider.callback()(req, res);
  });

  return {
    issuer,
    rotateKeys() {
      const previous = keys[0] as JWK;
      keys = [signingKey(), previous];
      // The provider's keystore is fixed at construction: a new one signs with the new key first.
      provider = new Provider(issuer, configuration());
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The user-agent step of the authorization code flow without a browser: follows the authorization
 * server's redirects (keeping its cookies) through the approved interactions, and resolves with
 * the URL it redirects to under `redirectUrl` (carrying `code`, `state` and `iss`).
 */
export async function followAuthorization(
  url: string | URL,
  redirectUrl: string,
  maxRedirects = 10,
): Promise<URL> {
  const cookies = new Map<string, string>();
  let next = new URL(url);
  for (let hop = 0; hop < maxRedirects; hop++) {
    if (next.href.startsWith(redirectUrl)) return next;
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(next, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    await response.arrayBuffer();
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = response.headers.get('location');
    if (location === null)
      throw new Error(`the authorization server answered ${response.status} at ${next.href}`);
    next = new URL(location, next);
  }
  throw new Error(`more than ${maxRedirects} redirects`);
}

/** A client registered for the client-credentials grant only, allowed `scope`. */
export function clientCredentialsClient(
  clientId: string,
  clientSecret: string,
  scope = 'mcp:tools',
): ClientMetadata {
  return {
    client_id: clientId,
    client_secret: clientSecret,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    scope,
  };
}

/** A client-credentials access token from `issuer` for `resource` (RFC 8707), by hand (tests, curl-like use). */
export async function clientCredentialsToken(
  issuer: string,
  client: { client_id: string; client_secret: string },
  resource: string,
  scope = 'mcp:tools',
): Promise<string> {
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (typeof body.access_token !== 'string') throw new Error(`no token: ${JSON.stringify(body)}`);
  return body.access_token;
}
