// OAuth end to end against a real authorization server (oidc-provider, started here on loopback)
// and the protected demo (examples/protected-server's tools behind the listener's `auth`): our
// client (client credentials; authorization code + PKCE with dynamic client registration, scope
// step-up and refresh) and the official SDK clients (1.x and v2) obtain tokens and call it.
import {
  Client as SdkV2Client,
  ClientCredentialsProvider as SdkV2Credentials,
  StreamableHTTPClientTransport as SdkV2Transport,
} from '@modelcontextprotocol/client';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type AuthorizationServer,
  clientCredentialsClient,
  followAuthorization,
  startAuthorizationServer,
} from '../../../examples/protected-server/src/authorization-server.js';
import { createProtectedServer, DEMO_SCOPES } from '../../../examples/protected-server/src/server.js';
import { type Client, connect, OAuthClient } from '../src/index.js';

const SERVICE = { client_id: 'service', client_secret: 'service-secret-0123456789' };
const REDIRECT = 'http://127.0.0.1:53682/callback';

let as: AuthorizationServer;
let server: McpHttpServer;
const clients: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  as = await startAuthorizationServer({
    port: 0,
    scopes: DEMO_SCOPES,
    accessTokenTtl: 300,
    clients: [clientCredentialsClient(SERVICE.client_id, SERVICE.client_secret, 'mcp:tools')],
  });
  server = await listen({
    runtime: createProtectedServer(),
    port: 0,
    // The metadata offers mcp:tools only: mcp:admin comes by step-up, when a tool asks for it.
    auth: {
      authorizationServers: [as.issuer],
      requiredScopes: ['mcp:tools'],
      scopesSupported: ['mcp:tools'],
    },
  });
});

afterAll(async () => {
  await server?.close();
  await as?.close();
});

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function whoami(client: Client): Promise<Record<string, unknown>> {
  return (await client.callTool('whoami', {})).structuredContent as Record<string, unknown>;
}

describe('@snodo/client', () => {
  it('client credentials (the oauth-client-credentials extension): a token for this resource, then the call', async () => {
    const client = await connect(
      { http: server.url() },
      { oauth: { clientCredentials: { clientId: SERVICE.client_id, clientSecret: SERVICE.client_secret } } },
    );
    clients.push(client);
    expect(await whoami(client)).toEqual({
      principal: 'service',
      clientId: 'service',
      scopes: ['mcp:tools'],
    });
  });

  it('authorization code + PKCE with dynamic registration; a scope step-up on 403; a refresh once the token expired', async () => {
    const visits: URL[] = [];
    const oauth = new OAuthClient({
      redirectUrl: REDIRECT,
      authorize: async (url) => {
        visits.push(url);
        return followAuthorization(url, REDIRECT);
      },
    });
    const client = await connect({ http: server.url() }, { oauth, protocolVersions: ['2026-07-28'] });
    clients.push(client);
    const first = await whoami(client);
    expect(first.principal).toBe('user-1');
    expect(first.scopes).toEqual(expect.arrayContaining(['mcp:tools']));
    expect(first.scopes).not.toContain('mcp:admin');
    expect(visits).toHaveLength(1);
    expect(visits[0]?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(visits[0]?.searchParams.get('resource')).toBe(server.url());

    // reset_counters needs mcp:admin: 403 insufficient_scope, a second authorization asking for both.
    expect((await client.callTool('reset_counters', {})).content).toEqual([
      { type: 'text', text: expect.stringMatching(/^reset \d+ calls$/) },
    ]);
    expect(visits).toHaveLength(2);
    expect(visits[1]?.searchParams.get('scope')?.split(' ')).toEqual(
      expect.arrayContaining(['mcp:tools', 'mcp:admin']),
    );

    // Past the token's lifetime (the clock of this process, which the server and the
    // authorization server share): the refresh token gets a new one, with no authorization.
    const before = await oauth.accessToken();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 600_000);
    const after = await oauth.accessToken();
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    expect((await whoami(client)).principal).toBe('user-1');
    expect(visits).toHaveLength(2);
  });
});

describe('the official SDK clients', () => {
  it('SDK 1.x with its ClientCredentialsProvider lists and calls the protected tools', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(server.url()), {
      authProvider: new ClientCredentialsProvider({
        clientId: SERVICE.client_id,
        clientSecret: SERVICE.client_secret,
        expectedIssuer: as.issuer,
        scope: 'mcp:tools',
      }),
    });
    const client = new SdkClient({ name: 'sdk-1', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add', 'whoami']);
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(result.content).toEqual([{ type: 'text', text: '5' }]);
  });

  it('SDK v2 (2026-07-28) with its ClientCredentialsProvider calls the protected tools', async () => {
    const transport = new SdkV2Transport(new URL(server.url()), {
      authProvider: new SdkV2Credentials({
        clientId: SERVICE.client_id,
        clientSecret: SERVICE.client_secret,
        expectedIssuer: as.issuer,
        scope: 'mcp:tools',
      }),
    });
    const client = new SdkV2Client(
      { name: 'sdk-2', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(transport);
    clients.push(client);
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.structuredContent).toEqual({
      principal: 'service',
      clientId: 'service',
      scopes: ['mcp:tools'],
    });
  });
});
