import type { Client } from '@snodo/client';
import { dispatch } from '@snodo/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy, type McpProxy, ProxyError } from '../src/index.js';
import { catalogServer, frontend, rpcError } from './helpers/proxy.js';
import { demoStdio, everythingStdio } from './helpers/servers.js';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function addRefused(proxy: McpProxy, spec: Parameters<McpProxy['addBackend']>[0]): Promise<ProxyError> {
  try {
    await proxy.addBackend(spec);
  } catch (error) {
    if (ProxyError.is(error)) return error;
    throw error;
  }
  throw new Error(`addBackend(${spec.id}) succeeded`);
}

describe('the merged catalog of the demo server and server-everything', () => {
  let proxy: McpProxy;
  let client: Client;

  beforeAll(async () => {
    proxy = await createProxy({
      pageSize: 7,
      maxBackends: 4,
      backends: [
        // Pinned: the cache-hint tests need it on 2026-07-28, and on a loaded machine the
        // server/discover probe could time out and fall back to initialize.
        { id: 'demo', target: demoStdio(), clientOptions: { protocolVersions: ['2026-07-28'] } },
        { id: 'everything', target: everythingStdio(), prefix: 'ev' },
      ],
    });
    client = await frontend(proxy.runtime());
  });

  afterAll(async () => {
    await client?.close();
    await proxy?.close();
  });

  it('names tools and prompts <prefix>.<name> (the id by default), sorted, over one compound cursor', async () => {
    const first = await client.listTools();
    expect(first.items).toHaveLength(7);
    expect(first.nextCursor).toEqual(expect.any(String));
    const all = await client.allTools();
    const names = all.map((tool) => tool.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(
      expect.arrayContaining(['demo.echo', 'demo.sleep', 'demo.ask', 'ev.echo', 'ev.get-sum']),
    );
    expect(names.filter((name) => !name.startsWith('demo.') && !name.startsWith('ev.'))).toEqual([]);
    // One cursor spans both backends: the second page holds the rest of demo's and the start of ev's.
    const second = await client.listTools({ cursor: first.nextCursor as string });
    expect(second.items.map((t) => t.name.split('.')[0])).toEqual(expect.arrayContaining(['demo', 'ev']));
    expect(JSON.parse(Buffer.from(first.nextCursor as string, 'base64url').toString())).toEqual({
      v: 1,
      k: 'tools',
      a: (first.items[6] as { name: string }).name,
    });
    const prompts = (await client.allPrompts()).map((p) => p.name);
    expect(prompts).toEqual(
      expect.arrayContaining(['demo.greet', 'ev.simple-prompt', 'ev.args-prompt', 'ev.completable-prompt']),
    );
    const echo = all.find((tool) => tool.name === 'ev.echo');
    expect(echo?.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
  });

  it('refuses a cursor it did not make, and one of another list', async () => {
    expect((await rpcError(client.listTools({ cursor: 'not-a-cursor' }))).code).toBe(-32602);
    const resources = await client.listResources();
    expect(resources.nextCursor).toBeDefined();
    expect((await rpcError(client.listTools({ cursor: resources.nextCursor as string }))).code).toBe(-32602);
  });

  it('exposes resources and templates as mcp-proxy://<id>/<original>, and reads need that form', async () => {
    const resources = (await client.allResources()).map((r) => r.uri);
    expect(resources).toEqual(
      expect.arrayContaining([
        'mcp-proxy://demo/demo://greeting',
        'mcp-proxy://everything/demo://resource/static/document/architecture.md',
      ]),
    );
    const templates = (await client.allResourceTemplates()).map((t) => t.uriTemplate);
    expect(templates).toEqual(
      expect.arrayContaining([
        'mcp-proxy://demo/demo://items/{id}',
        'mcp-proxy://everything/demo://resource/dynamic/text/{resourceId}',
      ]),
    );
    const exact = await client.readResource('mcp-proxy://demo/demo://greeting');
    expect(exact.contents).toEqual([
      {
        uri: 'mcp-proxy://demo/demo://greeting',
        mimeType: 'text/plain',
        text: 'Hello from the Snodo everything demo!',
      },
    ]);
    const templated = await client.readResource('mcp-proxy://everything/demo://resource/dynamic/text/3');
    expect(templated.contents[0]).toMatchObject({
      uri: 'mcp-proxy://everything/demo://resource/dynamic/text/3',
    });
    expect(String((templated.contents[0] as { text?: string }).text)).toMatch(/^Resource 3: /);
    // The backend's own URI is not in the proxy's catalog.
    expect((await rpcError(client.readResource('demo://greeting'))).code).toBe(-32602);
    expect((await rpcError(client.readResource('mcp-proxy://demo/demo://nothing'))).code).toBe(-32602);
    expect((await rpcError(client.readResource('mcp-proxy://nobody/demo://greeting'))).code).toBe(-32602);
  });

  it('calls tools and gets prompts by their exposed names, on the owning backend', async () => {
    expect(await client.callTool('demo.echo', { text: 'hi' })).toMatchObject({
      content: [{ type: 'text', text: 'hi' }],
    });
    expect(await client.callTool('ev.echo', { message: 'hi' })).toMatchObject({
      content: [{ type: 'text', text: 'Echo: hi' }],
    });
    const added = await client.callTool('demo.add', { a: 2, b: 3 });
    expect(added.structuredContent).toEqual({ sum: 5 });
    const prompt = await client.getPrompt('ev.args-prompt', { city: 'Paris', state: 'TX' });
    expect(JSON.stringify(prompt.messages)).toContain("What's weather in Paris, TX?");
    const greet = await client.getPrompt('demo.greet', { name: 'Ada' });
    expect(greet.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Please greet Ada warmly.' } },
    ]);
  });

  it('answers unknown or removed components with invalid params, naming them', async () => {
    const tool = await rpcError(client.callTool('demo.nope', {}));
    expect([tool.code, tool.message, tool.data]).toEqual([
      -32602,
      'Unknown tool: demo.nope',
      { name: 'demo.nope' },
    ]);
    // The backend's own name is not a name of the proxy.
    expect((await rpcError(client.callTool('echo', { text: 'x' }))).code).toBe(-32602);
    const prompt = await rpcError(client.getPrompt('ev.nope'));
    expect([prompt.code, prompt.message]).toEqual([-32602, 'Unknown prompt: ev.nope']);
    // The backend's own answers come through as they are: on 2026-07-28 invalid arguments are a
    // tool execution error naming the failing paths (SEP-1303).
    const invalid = await client.callTool('demo.add', { a: 'x' });
    expect(invalid.isError).toBe(true);
    expect(invalid.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^Invalid arguments for tool "add": .*\/a: /) },
    ]);
  });

  it('rewrites resource links in tool results and embedded resources in prompt messages', async () => {
    const links = await client.callTool('ev.get-resource-links', { count: 2 });
    const linked = (links.content as { type: string; uri?: string }[]).filter(
      (block) => block.type === 'resource_link',
    );
    expect(linked.map((block) => block.uri)).toEqual([
      'mcp-proxy://everything/demo://resource/dynamic/blob/1',
      'mcp-proxy://everything/demo://resource/dynamic/text/2',
    ]);
    // The rewritten link is readable through the proxy.
    const read = await client.readResource(linked[1]?.uri as string);
    expect(String((read.contents[0] as { text?: string }).text)).toMatch(/^Resource 2: /);
    const reference = await client.callTool('ev.get-resource-reference', {
      resourceType: 'Text',
      resourceId: 4,
    });
    const embedded = (reference.content as { type: string; resource?: { uri: string } }[]).find(
      (b) => b.type === 'resource',
    );
    expect(embedded?.resource?.uri).toBe('mcp-proxy://everything/demo://resource/dynamic/text/4');
    const prompt = await client.getPrompt('ev.resource-prompt', { resourceType: 'Text', resourceId: '2' });
    const message = prompt.messages.find((m) => (m.content as { type: string }).type === 'resource');
    expect((message?.content as { resource?: { uri: string } } | undefined)?.resource?.uri).toBe(
      'mcp-proxy://everything/demo://resource/dynamic/text/2',
    );
  });

  it('routes completion/complete to the owning backend, with the original names', async () => {
    const demo = await client.complete(
      { type: 'ref/prompt', name: 'demo.greet' },
      { name: 'name', value: 'A' },
    );
    expect(demo.completion.values).toEqual(['Ada', 'Alan']);
    const ev = await client.complete(
      { type: 'ref/prompt', name: 'ev.completable-prompt' },
      { name: 'department', value: 'S' },
    );
    expect(ev.completion.values).toEqual(['Sales', 'Support']);
    const dependent = await client.complete(
      { type: 'ref/prompt', name: 'ev.completable-prompt' },
      { name: 'name', value: '' },
      { arguments: { department: 'Engineering' } },
    );
    expect(dependent.completion.values).toEqual(['Alice', 'Bob', 'Charlie']);
    const template = await client.complete(
      { type: 'ref/resource', uri: 'mcp-proxy://demo/demo://items/{id}' },
      { name: 'id', value: '1' },
    );
    expect(template.completion.values).toEqual(['1', '10']);
    const unknown = await rpcError(
      client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: '' }),
    );
    expect(unknown.code).toBe(-32602);
  });

  it('gives merged lists the smallest ttlMs of the backends on the page, private if any was', async () => {
    // The first page holds demo tools only (2026-07-28: core's default hint, 60 s, private).
    expect((await client.listTools()).result).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
    // server-everything is initialize-based: its lists carry no ttlMs (0) and no scope (private).
    const templates = await client.listResourceTemplates();
    expect(templates.items.map((t) => t.uriTemplate)).toEqual([
      'mcp-proxy://demo/demo://items/{id}',
      'mcp-proxy://everything/demo://resource/dynamic/blob/{resourceId}',
      'mcp-proxy://everything/demo://resource/dynamic/text/{resourceId}',
    ]);
    expect(templates.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });

  it('declares what a proxy serves, and proxy/health only to frontends with the dev.snodo/proxy extension', async () => {
    const runtime = proxy.runtime();
    const discover = await dispatch(runtime, {
      jsonrpc: '2.0',
      id: 1,
      method: 'server/discover',
      params: { _meta: MODERN_META },
    });
    expect(
      discover.type === 'response' && 'result' in discover.message && discover.message.result,
    ).toMatchObject({
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        completions: {},
        extensions: { 'dev.snodo/proxy': {} },
      },
    });
    const denied = await dispatch(runtime, {
      jsonrpc: '2.0',
      id: 2,
      method: 'proxy/health',
      params: { _meta: MODERN_META },
    });
    expect(denied.type === 'response' && 'error' in denied.message && denied.message.error.code).toBe(-32601);
    const health = await frontend(runtime, { capabilities: { extensions: { 'dev.snodo/proxy': {} } } });
    try {
      // The aggregate only: no backend ids, no error details.
      expect(await health.request('proxy/health')).toEqual({
        status: 'up',
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'snodo-proxy', version: '0.1.0' } },
      });
    } finally {
      await health.close();
    }
  });

  it('refuses a backend with a taken id, or names another backend has, listing them; the catalog is unchanged', async () => {
    const before = proxy.catalog();
    const id = await addRefused(proxy, { id: 'demo', target: demoStdio() });
    expect([id.kind, id.details]).toEqual(['duplicate_id', { id: 'demo' }]);
    const names = await addRefused(proxy, { id: 'demo2', target: demoStdio(), prefix: 'demo' });
    expect(names.kind).toBe('duplicate_name');
    expect(names.code).toBe('SNODO_ERR_DUPLICATE_NAME');
    expect(names.details.names).toEqual(expect.arrayContaining(['demo.echo', 'demo.sleep']));
    expect(names.message).toContain('"demo.echo" (backend "demo")');
    expect(proxy.catalog()).toEqual(before);
    expect(proxy.health().backends.map((b) => b.id)).toEqual(['demo', 'everything']);
  });

  it('refuses past maxBackends and past maxCatalogItems', async () => {
    const other = await createProxy({
      maxBackends: 1,
      backends: [{ id: 'one', target: catalogServer({ tools: [] }) }],
    });
    try {
      const limit = await addRefused(other, { id: 'two', target: catalogServer({}) });
      expect([limit.kind, limit.code, limit.details]).toEqual([
        'backend_limit',
        'SNODO_ERR_BACKEND_LIMIT',
        { limit: 1 },
      ]);
    } finally {
      await other.close();
    }
    const small = await createProxy({
      maxCatalogItems: 3,
      backends: [{ id: 'a', target: catalogServer({ tools: [tool('x'), tool('y')] }) }],
    });
    try {
      const items = await addRefused(small, {
        id: 'b',
        target: catalogServer({ tools: [tool('x'), tool('z')] }),
      });
      expect([items.kind, items.code]).toEqual(['catalog_limit', 'SNODO_ERR_CATALOG_LIMIT']);
      expect(items.details).toMatchObject({ limit: 3, backend: 'b', size: 4 });
      expect(small.catalog().tools.map((t) => t.name)).toEqual(['a.x', 'a.y']);
    } finally {
      await small.close();
    }
  });
});

function tool(name: string) {
  return { name, inputSchema: { type: 'object' } };
}

describe('catalogs the proxy refuses at add time, and what it accepts', () => {
  let proxy: McpProxy;

  beforeAll(async () => {
    proxy = await createProxy();
  });

  afterAll(async () => {
    await proxy?.close();
  });

  it('names that break ^[A-Za-z0-9_.-]{1,64}$ once prefixed, listing every offender', async () => {
    const long = 'n'.repeat(62);
    const error = await addRefused(proxy, {
      id: 'wide',
      target: catalogServer({
        tools: [tool(long), tool('ok'), tool('has space')],
        prompts: [{ name: 'p/q' }],
      }),
    });
    expect([error.kind, error.code]).toEqual(['invalid_name', 'SNODO_ERR_INVALID_NAME']);
    expect(error.details.names).toEqual([`wide.${long}`, 'wide.has space', 'wide.p/q']);
    expect(error.message).toContain(`"wide.${long}"`);
    expect(proxy.catalog().tools).toEqual([]);
  });

  it('the separator is an option, and prefix "" keeps names as they are', async () => {
    const dashed = await createProxy({
      separator: '__',
      backends: [{ id: 'a', target: catalogServer({ tools: [tool('t')] }) }],
    });
    try {
      await dashed.addBackend({ id: 'bare', prefix: '', target: catalogServer({ tools: [tool('plain')] }) });
      expect(dashed.catalog().tools.map((t) => [t.name, t.original, t.backend])).toEqual([
        ['a__t', 't', 'a'],
        ['plain', 'plain', 'bare'],
      ]);
      const client = await frontend(dashed.runtime());
      expect(await client.callTool('a__t')).toMatchObject({ content: [{ text: 't called' }] });
      expect(await client.callTool('plain')).toMatchObject({ content: [{ text: 'plain called' }] });
      await client.close();
    } finally {
      await dashed.close();
    }
  });

  it('templates outside the supported RFC 6570 subset: unsupported_template with the template and the reason', async () => {
    const error = await addRefused(proxy, {
      id: 'query',
      target: catalogServer({ templates: [{ uriTemplate: 'x://search{?q}', name: 'search' }] }),
    });
    expect([error.kind, error.code]).toEqual(['unsupported_template', 'SNODO_ERR_BACKEND_TEMPLATE']);
    expect(error.details).toMatchObject({ backend: 'query', template: 'x://search{?q}' });
    expect(String(error.details.reason)).toMatch(/query/);
  });

  it('exact URI collisions', async () => {
    const error = await addRefused(proxy, {
      id: 'twice',
      target: catalogServer({
        resources: [
          { uri: 'x://a', name: 'a' },
          { uri: 'x://a', name: 'again' },
        ],
      }),
    });
    expect([error.kind, error.code, error.details.uris]).toEqual([
      'uri_collision',
      'SNODO_ERR_URI_COLLISION',
      ['mcp-proxy://twice/x://a'],
    ]);
  });

  it('a backend that cannot connect or cannot list cannot be added', async () => {
    const spawn = await addRefused(proxy, {
      id: 'ghost',
      target: { stdio: { command: '/nonexistent/server' } },
    });
    expect([spawn.kind, spawn.code]).toEqual(['connect_failed', 'SNODO_ERR_BACKEND_CONNECT']);
    const refused = await addRefused(proxy, { id: 'closed', target: { http: 'http://127.0.0.1:9/mcp' } });
    expect(refused.kind).toBe('connect_failed');
    expect(proxy.health().backends).toEqual([]);
  });

  it('two templates of one backend matching one URI: an ambiguity error, not a choice', async () => {
    await proxy.addBackend({
      id: 'amb',
      target: catalogServer({
        templates: [
          { uriTemplate: 'x://a/{id}', name: 'by-id' },
          { uriTemplate: 'x://{kind}/1', name: 'first' },
        ],
        resources: [{ uri: 'x://exact', name: 'exact' }],
      }),
    });
    const client = await frontend(proxy.runtime());
    try {
      const error = await rpcError(client.readResource('mcp-proxy://amb/x://a/1'));
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(
        /^Ambiguous resource URI: mcp-proxy:\/\/amb\/x:\/\/a\/1 matches 2 templates/,
      );
      expect(error.data).toEqual({
        uri: 'mcp-proxy://amb/x://a/1',
        templates: ['mcp-proxy://amb/x://a/{id}', 'mcp-proxy://amb/x://{kind}/1'],
        reason: 'ambiguous',
      });
      // One matching template, or an exact resource, is not ambiguous.
      expect((await client.readResource('mcp-proxy://amb/x://a/2')).contents[0]).toEqual({
        uri: 'mcp-proxy://amb/x://a/2',
        text: 'read x://a/2',
      });
      expect((await client.readResource('mcp-proxy://amb/x://b/1')).contents[0]).toMatchObject({
        text: 'read x://b/1',
      });
      expect((await client.readResource('mcp-proxy://amb/x://exact')).contents[0]).toMatchObject({
        text: 'read x://exact',
      });
      expect((await rpcError(client.readResource('mcp-proxy://amb/x://b/2'))).code).toBe(-32602);
    } finally {
      await client.close();
      await proxy.removeBackend('amb');
    }
  });

  it('a hostile URI for a {year}-{month}-{day} template: a frontend read is not found, a backend link stays as written', async () => {
    // Before matching was linear each of these blocked the proxy's event loop for ~31 s
    // (core's uri-template.test.ts counts the steps); a hostile backend's link froze it for everyone.
    const hostile = `calendar://${'-'.repeat(4000)}!`;
    await proxy.addBackend({
      id: 'cal',
      target: catalogServer({
        tools: [tool('links')],
        templates: [{ uriTemplate: 'calendar://{year}-{month}-{day}', name: 'day' }],
        links: [hostile, 'calendar://2026-07-28'],
      }),
    });
    const client = await frontend(proxy.runtime());
    try {
      const read = await rpcError(client.readResource(`mcp-proxy://cal/${hostile}`));
      expect([read.code, read.data]).toEqual([-32602, { uri: `mcp-proxy://cal/${hostile}` }]);
      const result = await client.callTool('cal.links', {});
      expect(result.content.map((block) => (block as { uri?: string }).uri)).toEqual([
        undefined,
        hostile,
        'mcp-proxy://cal/calendar://2026-07-28',
      ]);
      expect((await client.readResource('mcp-proxy://cal/calendar://2026-07-28')).contents[0]).toMatchObject({
        text: 'read calendar://2026-07-28',
      });
    } finally {
      await client.close();
      await proxy.removeBackend('cal');
    }
  });

  it('cache hints: the smallest ttlMs, public only when every contributing backend is', async () => {
    await proxy.addBackend({
      id: 'pub',
      target: catalogServer({ tools: [tool('p')], cache: { ttlMs: 5000, cacheScope: 'public' } }),
    });
    await proxy.addBackend({
      id: 'pub2',
      target: catalogServer({ tools: [tool('q')], cache: { ttlMs: 9000, cacheScope: 'public' } }),
    });
    const client = await frontend(proxy.runtime());
    try {
      expect((await client.listTools()).result).toMatchObject({ ttlMs: 5000, cacheScope: 'public' });
      await proxy.addBackend({
        id: 'priv',
        target: catalogServer({ tools: [tool('r')], cache: { ttlMs: 2000, cacheScope: 'private' } }),
      });
      expect((await client.listTools({ fresh: true })).result).toMatchObject({
        ttlMs: 2000,
        cacheScope: 'private',
      });
      // A policy that filters lists makes them per principal: private.
      const filtered = await frontend(proxy.runtime({ authorization: { canList: () => true } }));
      expect((await filtered.listTools()).result).toMatchObject({ cacheScope: 'private' });
      await filtered.close();
    } finally {
      await client.close();
      for (const id of ['pub', 'pub2', 'priv']) await proxy.removeBackend(id);
    }
  });
});
