// OAuth in a Fastify application, against a real authorization server (oidc-provider on loopback):
// the application's own authentication comes first; core's verifier (the `auth` option, or the
// `mcpBearerAuth` hook) checks the requests it leaves, with the challenges and metadata of RFC 9728.
import { createResourceServer, createServer, tool } from '@snodo/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  clientCredentialsClient,
  clientCredentialsToken,
  startAuthorizationServer,
} from '../../../examples/protected-server/src/authorization-server.js';
import { mcpBearerAuth, snodo } from '../src/index.js';

const CLIENT = { client_id: 'service', client_secret: 'service-secret-0123456789' };
const runtime = createServer({
  name: 'fastify-auth',
  version: '1.0.0',
  tools: [tool({ name: 'whoami', handler: (_args, context) => String(context.auth?.principal) })],
});

let as: AuthorizationServer;
let app: FastifyInstance | undefined;

beforeAll(async () => {
  as = await startAuthorizationServer({
    port: 0,
    clients: [clientCredentialsClient(CLIENT.client_id, CLIENT.client_secret, 'mcp:tools')],
  });
});
afterAll(() => as?.close());
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** The resource URL tokens name: an identifier, so it need not carry the test's port. */
const RESOURCE = 'http://127.0.0.1/mcp';
const METADATA = 'http://127.0.0.1/.well-known/oauth-protected-resource/mcp';

/** An application on a free port; `prepare` registers its routes and hooks. Resolves with the MCP URL. */
async function start(prepare: (app: FastifyInstance) => Promise<void>): Promise<string> {
  app = Fastify();
  await prepare(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}/mcp`;
}

const token = (resource: string) => clientCredentialsToken(as.issuer, CLIENT, resource);

function call(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
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
        arguments: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

const text = async (response: Response) => (await response.json()).result.content[0].text;

describe('the auth option', () => {
  it('verifies the bearer tokens the application leaves, serves the metadata, and lets the app authenticate first', async () => {
    const url = await start(async (app) => {
      const auth = await createResourceServer({ resource: RESOURCE, authorizationServers: [as.issuer] });
      // The application's own scheme for its staff; everyone else goes through OAuth.
      app.addHook('onRequest', async (request) => {
        if (request.headers['x-staff'] === 'yes') request.mcpAuth = { principal: 'staff' };
      });
      await app.register(snodo, { runtime, auth });
    });
    const metadata = await fetch(url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp'));
    expect((await metadata.json()).resource).toBe(RESOURCE);

    const anonymous = await call(url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${METADATA}"`);
    expect(await text(await call(url, { authorization: `Bearer ${await token(RESOURCE)}` }))).toBe('service');
    expect(await text(await call(url, { 'x-staff': 'yes' }))).toBe('staff');
  });

  it('cors and health are refused: Fastify applications have their own', async () => {
    const app = Fastify();
    await expect(app.register(snodo, { runtime, cors: { origins: ['*'] } } as never).ready()).rejects.toThrow(
      "cors is the application's in Fastify: register @fastify/cors",
    );
  });
});

describe('the mcpBearerAuth hook', () => {
  it('sets mcpAuth from a verified token, or replies with the challenge', async () => {
    const url = await start(async (app) => {
      const auth = await createResourceServer({ resource: RESOURCE, authorizationServers: [as.issuer] });
      await app.register(async (scope) => {
        scope.addHook('onRequest', mcpBearerAuth(auth));
        await scope.register(snodo, { runtime });
      });
    });
    const refused = await call(url, { authorization: 'Bearer nope' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await refused.json()).toMatchObject({ error: { code: -32600, data: { error: 'invalid_token' } } });
    expect(await text(await call(url, { authorization: `Bearer ${await token(RESOURCE)}` }))).toBe('service');
  });
});
