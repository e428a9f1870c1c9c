import { createFetchHandler, createServer, sandboxDomain, UI_EXTENSION, uiResource } from '@snodo/core';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../src/index.js';
import { closeAll, headersFor, modern, post, raw, rawRequest } from './helpers.js';

// Issue 10: `domain: 'auto'` is the sandbox domain of the URL the request arrived on.
const runtime = createServer({
  name: 'ui',
  version: '1',
  resources: [uiResource({ uri: 'ui://demo/page.html', name: 'page', html: '<p>hi</p>' })],
});
const read = () =>
  modern(
    'resources/read',
    { uri: 'ui://demo/page.html' },
    {
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [UI_EXTENSION]: {} } },
    },
  );

async function domainVia(url: string, extra: Record<string, string> = {}): Promise<string | undefined> {
  const response = await post(url, read(), extra);
  expect(response.status).toBe(200);
  const body = await response.json();
  return body.result.contents[0]._meta.ui.domain;
}

afterEach(closeAll);

describe('UI resources: the sandbox domain of the URL the request arrived on', () => {
  it('native listener: scheme, host, port and path as the client used them', async () => {
    const server = await listen({ runtime, port: 0 });
    try {
      const url = server.url();
      expect(await domainVia(url)).toBe(await sandboxDomain(url));
      // A client that reached the server as localhost (Host header) gets the domain of that URL;
      // the query is not part of the endpoint.
      const port = Number(new URL(url).port);
      const client = await raw(port);
      client.socket.write(rawRequest(read(), { host: `localhost:${port}`, connection: 'close' }, '/mcp?x=1'));
      await client.closed;
      const text = client.received();
      const body = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
      expect(body.result.contents[0]._meta.ui.domain).toBe(
        await sandboxDomain(`http://localhost:${port}/mcp`),
      );
    } finally {
      await server.close();
    }
  });

  it('native listener behind a proxy: a configured publicUrl wins over the socket address', async () => {
    const publicUrl = 'https://mcp.example.com/tools/mcp';
    const server = await listen({ runtime, port: 0, publicUrl });
    try {
      expect(await domainVia(server.url())).toBe(await sandboxDomain(publicUrl));
    } finally {
      await server.close();
    }
    await expect(listen({ runtime, port: 0, publicUrl: 'not a url' })).rejects.toThrow(
      /publicUrl must be an absolute http\(s\) URL/,
    );
  });

  it('fetch adapter: the Request URL', async () => {
    const handler = createFetchHandler(runtime, { allowedOriginHosts: ['localhost'] });
    const message = read();
    const url = 'http://localhost:8787/mcp';
    const response = await handler(
      new Request(`${url}?session=ignored`, {
        method: 'POST',
        headers: headersFor(message),
        body: JSON.stringify(message),
      }),
    );
    const body = await response.json();
    expect(body.result.contents[0]._meta.ui.domain).toBe(await sandboxDomain(url));
    expect(body.result.contents[0]._meta.ui.domain).not.toBe(
      await sandboxDomain('http://localhost:8787/other'),
    );
  });

  it('fetch adapter: a configured publicUrl over the Request URL; a bad one is refused at creation', async () => {
    const publicUrl = 'https://mcp.example.com/mcp';
    const handler = createFetchHandler(runtime, { allowedOriginHosts: ['localhost'], publicUrl });
    const message = read();
    const response = await handler(
      new Request('http://localhost:8787/mcp', {
        method: 'POST',
        headers: headersFor(message),
        body: JSON.stringify(message),
      }),
    );
    const body = await response.json();
    expect(body.result.contents[0]._meta.ui.domain).toBe(await sandboxDomain(publicUrl));
    expect(() => createFetchHandler(runtime, { publicUrl: 'ftp://example.com/mcp' })).toThrow(
      /publicUrl must be an absolute http\(s\) URL/,
    );
  });
});
