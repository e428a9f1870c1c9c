// What a forwarded tools/call result goes through (README "Forwarding"): a backend written without
// Snodo, over HTTP, answers exact bytes; the frontend sees the same JSON values except what the
// proxy replaces, drops or rewrites, and a malformed answer fails that call alone.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createProxy } from '../src/index.js';
import { exposedUri } from '../src/names.js';
import { frontend, rpcError } from './helpers/proxy.js';

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** The `shape` tool's result, as the backend writes it. */
const SHAPED = {
  resultType: 'complete',
  content: [
    { type: 'text', text: 'héllo ✓ 𝄞' },
    { type: 'resource_link', uri: 'note://a', name: 'a' },
    { type: 'resource_link', uri: 'elsewhere://b', name: 'b' },
  ],
  structuredContent: { n: 1.5, list: [1, 'two', null, true], nested: { deep: { deeper: 'x' } } },
  isError: true,
  ttlMs: 5_000,
  cacheScope: 'public',
  _meta: { [SERVER_INFO]: { name: 'raw-backend', version: '9' }, 'x.example/keep': { a: 1 } },
};

/** A 2026-07-28 server on 127.0.0.1 that answers fixed bytes: `shape`, `garbage`, `echo`. */
async function startScripted(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      const message = JSON.parse(body) as { id: number; method: string; params?: Record<string, unknown> };
      const send = (text: string) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(text);
      };
      const reply = (result: Record<string, unknown>) =>
        send(
          JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', ...result } }),
        );
      const listed = { ttlMs: 0, cacheScope: 'private' };
      switch (message.method) {
        case 'server/discover':
          return reply({
            supportedVersions: ['2026-07-28'],
            capabilities: { tools: {}, resources: {} },
            ...listed,
          });
        case 'tools/list':
          return reply({
            tools: ['shape', 'garbage', 'echo'].map((name) => ({ name, inputSchema: { type: 'object' } })),
            ...listed,
          });
        case 'resources/list':
          return reply({ resources: [{ uri: 'note://a', name: 'a' }], ...listed });
        case 'resources/templates/list':
          return reply({ resourceTemplates: [], ...listed });
      }
      const name = message.params?.name;
      if (name === 'shape') return send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: SHAPED }));
      // Cut short: not one JSON value.
      if (name === 'garbage') return send(`{"jsonrpc":"2.0","id":${message.id},"result":{"content":[`);
      const text = String((message.params?.arguments as { text?: unknown } | undefined)?.text);
      return reply({ content: [{ type: 'text', text }] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a forwarded tools/call result', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
  });

  async function setUp() {
    const backend = await startScripted();
    cleanup.push(() => backend.close());
    const proxy = await createProxy({ backends: [{ id: 'raw', target: { http: backend.url } }] });
    cleanup.push(() => proxy.close());
    const client = await frontend(proxy.runtime());
    cleanup.push(() => client.close());
    return { proxy, client };
  }

  it('keeps content, structuredContent, isError and other _meta keys; replaces serverInfo and resultType, drops ttlMs and cacheScope, rewrites a catalogued link', async () => {
    const { client } = await setUp();
    const result = (await client.callTool('raw.shape')) as Record<string, unknown>;
    expect(result.content).toEqual([
      SHAPED.content[0],
      { type: 'resource_link', uri: exposedUri('raw', 'note://a'), name: 'a' },
      // Not in the backend's catalog: left as the backend wrote it.
      SHAPED.content[2],
    ]);
    expect(result.structuredContent).toEqual(SHAPED.structuredContent);
    expect(result.isError).toBe(true);
    expect(result.resultType).toBe('complete');
    expect(result).not.toHaveProperty('ttlMs');
    expect(result).not.toHaveProperty('cacheScope');
    const meta = result._meta as Record<string, unknown>;
    expect(meta['x.example/keep']).toEqual({ a: 1 });
    expect(meta[SERVER_INFO]).toMatchObject({ name: 'snodo-proxy' });
  });

  it('a backend answer that is not one JSON value fails that call alone with a clear error; the backend stays up', async () => {
    const { proxy, client } = await setUp();
    const error = await rpcError(client.callTool('raw.garbage'));
    expect(error).toMatchObject({ code: -32603, data: { reason: 'invalid_response' } });
    expect(error.message).toMatch(/tool "raw\.garbage" answered something that is not a JSON-RPC response/);
    expect(proxy.health().backends).toMatchObject([{ id: 'raw', status: 'up' }]);
    expect((await client.callTool('raw.echo', { text: 'after' })).content).toEqual([
      { type: 'text', text: 'after' },
    ]);
  });
});
