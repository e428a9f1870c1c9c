import { createServer, sandboxDomain, UI_EXTENSION, uiResource } from '@snodo/core';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { snodo } from '../src/index.js';

// Issue 10: `domain: 'auto'` is the sandbox domain of the URL the request arrived on.
const runtime = createServer({
  name: 'ui',
  version: '1',
  resources: [uiResource({ uri: 'ui://demo/page.html', name: 'page', html: '<p>hi</p>' })],
});

const message = {
  jsonrpc: '2.0',
  id: 1,
  method: 'resources/read',
  params: {
    uri: 'ui://demo/page.html',
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [UI_EXTENSION]: {} } },
    },
  },
};

async function domainOf(
  app: ReturnType<typeof Fastify>,
  url: string,
  host = 'localhost:3000',
): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url,
    headers: {
      host,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'resources/read',
      'mcp-name': 'ui://demo/page.html',
    },
    payload: JSON.stringify(message),
  });
  expect(response.statusCode).toBe(200);
  return response.json().result.contents[0]._meta.ui.domain;
}

describe('UI sandbox domain through the Fastify plugin', () => {
  it('is derived from the prefixed mount as the client used it (query left out)', async () => {
    const app = Fastify();
    await app.register(async (api) => api.register(snodo, { runtime }), { prefix: '/api' });
    expect(await domainOf(app, '/api/mcp?x=1')).toBe(await sandboxDomain('http://localhost:3000/api/mcp'));
    await app.close();
  });

  it('takes the configured publicUrl over the socket address behind a proxy', async () => {
    const publicUrl = 'https://mcp.example.com/api/mcp';
    const app = Fastify();
    await app.register(async (api) => api.register(snodo, { runtime, publicUrl }), { prefix: '/api' });
    expect(await domainOf(app, '/api/mcp')).toBe(await sandboxDomain(publicUrl));
    await app.close();
    const bad = Fastify();
    await expect(bad.register(snodo, { runtime, publicUrl: 'mcp.example.com' }).ready()).rejects.toThrow(
      /publicUrl must be an absolute/,
    );
  });

  it('honours Fastify trustProxy (X-Forwarded-Proto and Host)', async () => {
    const app = Fastify({ trustProxy: true });
    await app.register(snodo, { runtime });
    const response = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        host: 'localhost:3000',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'localhost',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'resources/read',
        'mcp-name': 'ui://demo/page.html',
      },
      payload: JSON.stringify(message),
    });
    expect(response.json().result.contents[0]._meta.ui.domain).toBe(
      await sandboxDomain('https://localhost/mcp'),
    );
    await app.close();
  });
});
