// The listener as an OAuth 2.1 resource server against a real authorization server (oidc-provider
// on loopback, started here): protected resource metadata, 401/403 challenges, JWT verification
// with the issuer's JWKS (audience, rotation), introspection of opaque tokens, a verify hook,
// requiredScopes, and configuration errors at start-up.
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createResourceServer,
  createServer,
  prompt,
  type Runtime,
  resource,
  resourceTemplate,
  SnodoError,
  tool,
} from '@snodo/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type AuthorizationServer,
  clientCredentialsClient,
  clientCredentialsToken,
  startAuthorizationServer,
} from '../../../examples/protected-server/src/authorization-server.js';
import { listen, type McpHttpServer } from '../src/index.js';
import { modern, post } from './helpers.js';

const CLIENT = { client_id: 'service', client_secret: 'service-secret-0123456789' };
const SCOPES = ['mcp:tools', 'mcp:admin'];

function runtime(): Runtime {
  return createServer({
    name: 'protected',
    version: '1.0.0',
    tools: [
      tool({
        name: 'whoami',
        handler: (_args, context) =>
          JSON.stringify({
            principal: context.auth?.principal,
            clientId: context.auth?.clientId,
            scopes: context.auth?.scopes,
          }),
      }),
      tool({ name: 'reset', requiredScopes: ['mcp:admin'], handler: () => 'reset done' }),
    ],
    prompts: [
      prompt({ name: 'greet', get: () => 'Hello' }),
      prompt({ name: 'audit', requiredScopes: ['mcp:admin'], get: () => 'Audit everything' }),
    ],
    resources: [
      resource({ uri: 'admin://log', name: 'log', requiredScopes: ['mcp:admin'], read: () => 'the log' }),
    ],
    resourceTemplates: [
      resourceTemplate({
        uriTemplate: 'admin://users/{id}',
        name: 'user',
        requiredScopes: ['mcp:admin'],
        read: ({ id }) => `user ${id}`,
      }),
    ],
  });
}

let as: AuthorizationServer;
let opaque: AuthorizationServer;
const servers: McpHttpServer[] = [];
const others: Server[] = [];

beforeAll(async () => {
  const clients = [
    clientCredentialsClient(CLIENT.client_id, CLIENT.client_secret, SCOPES.join(' ')),
    clientCredentialsClient('narrow', 'narrow-secret-0123456789', 'mcp:tools'),
  ];
  as = await startAuthorizationServer({ port: 0, scopes: SCOPES, clients });
  opaque = await startAuthorizationServer({ port: 0, scopes: SCOPES, clients, accessTokenFormat: 'opaque' });
});

afterAll(async () => {
  await Promise.all([as?.close(), opaque?.close()]);
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(others.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function protect(options: Record<string, unknown> = {}): Promise<McpHttpServer> {
  const server = await listen({
    runtime: runtime(),
    port: 0,
    auth: { authorizationServers: [as.issuer], jwksCooldown: 0, ...options },
  });
  servers.push(server);
  return server;
}

/** A client-credentials token from `issuer` for `resource` (RFC 8707). */
function token(issuer: string, resource: string, scope = 'mcp:tools', client = CLIENT): Promise<string> {
  return clientCredentialsToken(issuer, client, resource, scope);
}

const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
const metadataUrl = (server: McpHttpServer) =>
  server.url().replace('/mcp', '/.well-known/oauth-protected-resource/mcp');

async function callTool(server: McpHttpServer, name: string, headers: Record<string, string>) {
  return post(server.url(), modern('tools/call', { name, arguments: {} }), headers);
}

describe('protected resource metadata (RFC 9728)', () => {
  it('is served at the path-suffixed well-known URL and at the root one, without a token', async () => {
    const server = await protect();
    for (const url of [
      metadataUrl(server),
      server.url().replace('/mcp', '/.well-known/oauth-protected-resource'),
    ]) {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        resource: server.url(),
        authorization_servers: [as.issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['mcp:admin'],
      });
    }
  });

  it('answers 405 with Allow for another method', async () => {
    const server = await protect();
    const response = await fetch(metadataUrl(server), { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });

  it('lists scopesSupported and requiredScopes as configured', async () => {
    const server = await protect({
      requiredScopes: ['mcp:tools'],
      scopesSupported: ['mcp:tools', 'mcp:admin'],
    });
    expect((await (await fetch(metadataUrl(server))).json()).scopes_supported).toEqual([
      'mcp:tools',
      'mcp:admin',
    ]);
  });
});

describe('401 and 403 challenges (RFC 6750)', () => {
  it('401 without a token: a challenge naming the metadata, before any MCP work', async () => {
    const server = await protect({ requiredScopes: ['mcp:tools'] });
    const response = await callTool(server, 'whoami', {});
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer scope="mcp:tools", resource_metadata="${metadataUrl(server)}"`,
    );
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Unauthorized' },
    });
  });

  it('401 invalid_token for a token that is not valid', async () => {
    const server = await protect();
    const response = await callTool(server, 'whoami', bearer('not-a-token'));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", error_description="the token is not a JWT of an accepted authorization server", resource_metadata="${metadataUrl(server)}"`,
    );
    const body = await response.json();
    expect(body.error.data).toEqual({ error: 'invalid_token' });
  });

  it('400 invalid_request for a malformed Bearer header', async () => {
    const server = await protect();
    const response = await callTool(server, 'whoami', { authorization: 'Bearer two tokens' });
    expect(response.status).toBe(400);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_request"/);
  });

  it('401 invalid_token for a token longer than maxTokenLength, not for one at the bound', async () => {
    const server = await protect({ maxTokenLength: 16 });
    const at = await callTool(server, 'whoami', bearer('a'.repeat(16)));
    expect(at.headers.get('www-authenticate')).not.toContain('longer than');
    const over = await callTool(server, 'whoami', bearer('a'.repeat(17)));
    expect(over.status).toBe(401);
    expect(over.headers.get('www-authenticate')).toContain('the token is longer than 16 characters');
  });

  it('403 insufficient_scope when the token lacks requiredScopes, naming what to ask for', async () => {
    const server = await protect({ requiredScopes: ['mcp:admin'] });
    const narrow = await token(as.issuer, server.url(), 'mcp:tools');
    const response = await callTool(server, 'whoami', bearer(narrow));
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", error_description="this request needs the scope mcp:admin", scope="mcp:tools mcp:admin", resource_metadata="${metadataUrl(server)}"`,
    );
  });
});

describe('JWT access tokens from the authorization server', () => {
  it('a token for this resource reaches the handler as context.auth', async () => {
    const server = await protect();
    const response = await callTool(server, 'whoami', bearer(await token(as.issuer, server.url())));
    expect(response.status).toBe(200);
    const text = (await response.json()).result.content[0].text;
    expect(JSON.parse(text)).toEqual({ principal: 'service', clientId: 'service', scopes: ['mcp:tools'] });
  });

  it('a token for another audience is refused (RFC 8707)', async () => {
    const server = await protect();
    const other = await token(as.issuer, 'http://127.0.0.1:9/other');
    const response = await callTool(server, 'whoami', bearer(other));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      `error_description="the token's audience is not this resource (${server.url()})"`,
    );
  });

  it('a token of an issuer that is not configured is refused', async () => {
    const server = await protect();
    // Refused on its claimed issuer, before any key is looked up.
    const [header, , signature] = (await token(as.issuer, server.url())).split('.');
    const payload = btoa(JSON.stringify({ iss: 'http://127.0.0.1:9', aud: server.url() })).replace(/=+$/, '');
    const response = await callTool(server, 'whoami', bearer(`${header}.${payload}.${signature}`));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('tokens of this issuer are not accepted');
  });

  it('a token whose signature was altered is refused', async () => {
    const server = await protect();
    const [header, payload, signature = ''] = (await token(as.issuer, server.url())).split('.');
    const altered = `${header}.${payload}.${signature.slice(0, -4)}AAAA`;
    const response = await callTool(server, 'whoami', bearer(altered));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain("the token's signature is not valid");
  });

  it('an expired token is refused; within clockSkew after exp it is still accepted (the boundary)', async () => {
    const server = await protect({ clockSkew: 30_000 });
    const jwt = await token(as.issuer, server.url());
    const { exp } = JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString());
    // The resource server's clock (this process's Date) moves; the token stays as issued.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(exp * 1000 + 29_000);
      expect((await callTool(server, 'whoami', bearer(jwt))).status).toBe(200);
      vi.setSystemTime(exp * 1000 + 31_000);
      const response = await callTool(server, 'whoami', bearer(jwt));
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain(
        'error="invalid_token", error_description="the token expired"',
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it('after the authorization server rotates its keys, a token with the new kid is verified (JWKS refetched)', async () => {
    const server = await protect();
    const before = await token(as.issuer, server.url());
    expect((await callTool(server, 'whoami', bearer(before))).status).toBe(200);
    as.rotateKeys();
    const after = await token(as.issuer, server.url());
    const kid = (jwt: string) => JSON.parse(atob(jwt.split('.')[0] as string)).kid;
    expect(kid(after)).not.toBe(kid(before));
    expect((await callTool(server, 'whoami', bearer(after))).status).toBe(200);
    expect((await callTool(server, 'whoami', bearer(before))).status).toBe(200);
  });
});

describe('requiredScopes of tools, prompts, resources and templates', () => {
  it('tools/list hides a tool the token has no scope for; calling it is 403 with the step-up scopes', async () => {
    const server = await protect();
    const narrow = bearer(await token(as.issuer, server.url(), 'mcp:tools'));
    const listed = await (await post(server.url(), modern('tools/list'), narrow)).json();
    expect(listed.result.tools.map((t: { name: string }) => t.name)).toEqual(['whoami']);
    const response = await callTool(server, 'reset', narrow);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('scope="mcp:tools mcp:admin"');

    const wide = bearer(await token(as.issuer, server.url(), 'mcp:tools mcp:admin'));
    const all = await (await post(server.url(), modern('tools/list'), wide)).json();
    expect(all.result.tools.map((t: { name: string }) => t.name)).toEqual(['reset', 'whoami']);
    expect((await (await callTool(server, 'reset', wide)).json()).result.content[0].text).toBe('reset done');
  });

  it('prompts, resources and templates with requiredScopes: hidden from lists and 403 without the scope, served with it', async () => {
    const server = await protect();
    const narrow = bearer(await token(as.issuer, server.url(), 'mcp:tools'));
    const wide = bearer(await token(as.issuer, server.url(), 'mcp:tools mcp:admin'));
    const names = async (method: string, key: string, headers: Record<string, string>) =>
      (
        (await (await post(server.url(), modern(method), headers)).json()).result[key] as { name: string }[]
      ).map((item) => item.name);
    expect(await names('prompts/list', 'prompts', narrow)).toEqual(['greet']);
    expect(await names('resources/list', 'resources', narrow)).toEqual([]);
    expect(await names('resources/templates/list', 'resourceTemplates', narrow)).toEqual([]);
    for (const [method, params] of [
      ['prompts/get', { name: 'audit' }],
      ['resources/read', { uri: 'admin://log' }],
      ['resources/read', { uri: 'admin://users/7' }],
    ] as const) {
      const refused = await post(server.url(), modern(method, params), narrow);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    }
    expect(await names('prompts/list', 'prompts', wide)).toEqual(['audit', 'greet']);
    expect(await names('resources/list', 'resources', wide)).toEqual(['log']);
    expect(await names('resources/templates/list', 'resourceTemplates', wide)).toEqual(['user']);
    const read = await (
      await post(server.url(), modern('resources/read', { uri: 'admin://users/7' }), wide)
    ).json();
    expect(read.result.contents[0].text).toBe('user 7');
    const got = await (await post(server.url(), modern('prompts/get', { name: 'audit' }), wide)).json();
    expect(got.result.messages[0].content.text).toBe('Audit everything');
  });

  it("with the host's own authenticate: an anonymous call of a scoped tool is 401, a caller without the scope 403", async () => {
    const server = await listen({
      runtime: runtime(),
      port: 0,
      authenticate: (request) =>
        request.headers.authorization === 'Bearer admin'
          ? { principal: 'a', scopes: ['mcp:admin'] }
          : undefined,
    });
    servers.push(server);
    const anonymous = await callTool(server, 'reset', {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer scope="mcp:admin"');
    expect((await callTool(server, 'reset', bearer('admin'))).status).toBe(200);
  });

  it("the host's own authenticate refusing: 401 with a Bearer challenge", async () => {
    const server = await listen({
      runtime: runtime(),
      port: 0,
      authenticate: () => {
        throw new Error('no');
      },
    });
    servers.push(server);
    expect((await callTool(server, 'whoami', {})).headers.get('www-authenticate')).toBe('Bearer');
    expect((await callTool(server, 'whoami', bearer('x'))).headers.get('www-authenticate')).toBe(
      'Bearer error="invalid_token"',
    );
  });
});

describe('opaque tokens', () => {
  it('are introspected (RFC 7662) with the resource server credentials, audience checked', async () => {
    const server = await listen({
      runtime: runtime(),
      port: 0,
      auth: {
        authorizationServers: [opaque.issuer],
        introspection: { clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret },
      },
    });
    servers.push(server);
    const mine = await token(opaque.issuer, server.url());
    expect(mine.split('.')).toHaveLength(1);
    const response = await callTool(server, 'whoami', bearer(mine));
    expect(response.status).toBe(200);
    expect(JSON.parse((await response.json()).result.content[0].text).principal).toBe('service');

    const other = await token(opaque.issuer, 'http://127.0.0.1:9/other');
    const refused = await callTool(server, 'whoami', bearer(other));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain("the token's audience is not this resource");
  });

  it('are checked by the verify hook when given', async () => {
    const server = await protect({
      verify: (value: string) => (value === 'opaque-ok' ? { principal: 'hook', scopes: [] } : undefined),
    });
    expect((await callTool(server, 'whoami', bearer('opaque-ok'))).status).toBe(200);
    expect((await callTool(server, 'whoami', bearer('opaque-no'))).headers.get('www-authenticate')).toContain(
      'the token was refused',
    );
  });
});

/** A plain HTTP server on loopback answering with `answer`. */
async function fakeServer(
  answer: (path: string, origin: string) => { status: number; body?: unknown },
): Promise<string> {
  const server = createHttpServer((req, res) => {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { status, body } = answer(req.url ?? '/', origin);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  });
  others.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('bad configuration fails at start-up with a clear error', () => {
  it('an issuer without metadata', async () => {
    const issuer = await fakeServer(() => ({ status: 404 }));
    const error = await listen({
      runtime: runtime(),
      port: 0,
      auth: { authorizationServers: [issuer] },
    }).catch((e: unknown) => e);
    expect(SnodoError.is(error) && error.code).toBe('SNODO_ERR_AUTH_METADATA');
    expect((error as Error).message).toContain(`authorization server ${issuer} has no usable metadata`);
    expect((error as Error).message).toContain(`${issuer}/.well-known/openid-configuration`);
  });

  it('a JWKS that cannot be fetched', async () => {
    const issuer = await fakeServer((path, origin) =>
      path === '/.well-known/oauth-authorization-server'
        ? {
            status: 200,
            body: { issuer: origin, token_endpoint: `${origin}/token`, jwks_uri: `${origin}/jwks` },
          }
        : { status: 500 },
    );
    const error = await listen({
      runtime: runtime(),
      port: 0,
      auth: { authorizationServers: [issuer] },
    }).catch((e: unknown) => e);
    expect(SnodoError.is(error) && error.code).toBe('SNODO_ERR_AUTH_JWKS');
    expect((error as Error).message).toContain(`its JWKS at ${issuer}/jwks cannot be fetched`);
  });

  it('a resource URL that is not absolute', async () => {
    const error = await createResourceServer({ resource: '/mcp', authorizationServers: [as.issuer] }).catch(
      (e: unknown) => e,
    );
    expect(SnodoError.is(error) && error.code).toBe('SNODO_ERR_INVALID_OPTION');
    expect((error as Error).message).toBe(
      'Invalid option: auth.resource must be an absolute http(s) URL without a fragment (this server\'s canonical URL), got "/mcp"',
    );
  });

  it('clockSkew is bounded: 300,000 ms is accepted, 300,001 refused', async () => {
    const resource = 'http://127.0.0.1:9/mcp';
    await expect(
      createResourceServer({ resource, authorizationServers: [as.issuer], clockSkew: 300_000 }),
    ).resolves.toBeDefined();
    await expect(
      createResourceServer({ resource, authorizationServers: [as.issuer], clockSkew: 300_001 }),
    ).rejects.toThrow('auth.clockSkew must be at most 300000 ms, got 300001');
  });

  it('authenticate and auth together', async () => {
    await expect(
      listen({
        runtime: runtime(),
        port: 0,
        authenticate: () => undefined,
        auth: { authorizationServers: [as.issuer] },
      }),
    ).rejects.toThrow('authenticate and auth exclude each other');
  });
});
