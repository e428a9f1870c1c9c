// The fetch handler as a host of the resource server, CORS and health (what Hono, Bun, Deno and
// workers get), against a real authorization server (oidc-provider on loopback).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  clientCredentialsClient,
  clientCredentialsToken,
  startAuthorizationServer,
} from '../../../examples/protected-server/src/authorization-server.js';
import { createFetchHandler, createResourceServer, createServer, tool } from '../src/index.js';

const RESOURCE = 'https://mcp.example.test/mcp';
const CLIENT = { client_id: 'service', client_secret: 'service-secret-0123456789' };
const runtime = createServer({
  name: 'fetch-edge',
  version: '1.0.0',
  tools: [tool({ name: 'whoami', handler: (_args, context) => String(context.auth?.principal) })],
});

let as: AuthorizationServer;
beforeAll(async () => {
  as = await startAuthorizationServer({
    port: 0,
    acceptsResource: (resource) => resource === RESOURCE,
    clients: [clientCredentialsClient(CLIENT.client_id, CLIENT.client_secret, 'mcp:tools')],
  });
});
afterAll(() => as?.close());

function call(headers: Record<string, string> = {}): Request {
  return new Request(RESOURCE, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'whoami',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'whoami',
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

describe('createFetchHandler with auth, cors and health', () => {
  it('challenges, serves the metadata, and verifies a token of the authorization server', async () => {
    const auth = await createResourceServer({ resource: RESOURCE, authorizationServers: [as.issuer] });
    const handler = createFetchHandler(runtime, { auth });
    const metadata = await handler(
      new Request('https://mcp.example.test/.well-known/oauth-protected-resource/mcp'),
    );
    expect(await metadata.json()).toMatchObject({ resource: RESOURCE, authorization_servers: [as.issuer] });
    const refused = await handler(call());
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp"',
    );
    const token = await clientCredentialsToken(as.issuer, CLIENT, RESOURCE);
    const served = await handler(call({ authorization: `Bearer ${token}` }));
    expect((await served.json()).result.content[0].text).toBe('service');
  });

  it('answers a CORS preflight and adds Allow-Origin to the 401 a browser must read', async () => {
    const auth = await createResourceServer({ resource: RESOURCE, authorizationServers: [as.issuer] });
    const page = 'http://localhost:3000';
    const handler = createFetchHandler(runtime, { auth, cors: { origins: [page] } });
    const preflight = await handler(
      new Request(RESOURCE, {
        method: 'OPTIONS',
        headers: {
          origin: page,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization');
    const refused = await handler(call({ origin: page }));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(page);
    expect(refused.headers.get('access-control-expose-headers')).toContain('www-authenticate');
  });

  it('health: 200 with the executor stats, 503 once the shutdown signal is aborted', async () => {
    const shutdown = new AbortController();
    const handler = createFetchHandler(runtime, { health: true, shutdownSignal: shutdown.signal });
    const up = await handler(new Request('https://mcp.example.test/healthz'));
    expect(up.status).toBe(200);
    expect((await up.json()).executor.running).toBe(0);
    shutdown.abort();
    const closing = await handler(new Request('https://mcp.example.test/healthz'));
    expect(closing.status).toBe(503);
    expect(await closing.json()).toEqual({ status: 'closing' });
  });

  it('refuses authenticate together with auth', async () => {
    const auth = await createResourceServer({ resource: RESOURCE, authorizationServers: [as.issuer] });
    expect(() => createFetchHandler(runtime, { auth, authenticate: () => undefined })).toThrow(
      'authenticate and auth exclude each other',
    );
  });
});
