import { type Client, connect } from '@snodo/client';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationPolicy,
  type CatalogItem,
  createProxy,
  type McpProxy,
  type Principal,
} from '../src/index.js';
import { frontend, rpcError } from './helpers/proxy.js';
import { demoStdio } from './helpers/servers.js';

const who = (principal: Principal) => principal?.principal;

/** ada sees everything; eve sees no `fail`, may not call `add`, get `greet` or read the greeting. */
const policy: AuthorizationPolicy = {
  canList: (principal, item) => who(principal) === 'ada' || !item.name.endsWith('.fail'),
  canCall: (principal, item) => who(principal) === 'ada' || item.name !== 'demo.add',
  canGet: (principal, item) => who(principal) === 'ada' || item.name !== 'demo.greet',
  canRead: (principal, _item, uri) => who(principal) === 'ada' || uri !== 'mcp-proxy://demo/demo://greeting',
};

describe('the authorization policy filters discovery and checks every call, read and get', () => {
  let proxy: McpProxy;
  let http: McpHttpServer;
  let ada: Client;
  let eve: Client;
  const seen: { method: string; principal: string | undefined; item: string }[] = [];

  beforeAll(async () => {
    proxy = await createProxy({ backends: [{ id: 'demo', target: demoStdio() }], pageSize: 3 });
    const recording: AuthorizationPolicy = Object.fromEntries(
      Object.entries(policy).map(([method, check]) => [
        method,
        (principal: Principal, item: CatalogItem, uri?: string) => {
          seen.push({ method, principal: who(principal), item: item.name });
          return (check as (p: Principal, i: CatalogItem, u?: string) => boolean)(principal, item, uri);
        },
      ]),
    );
    http = await listen({
      runtime: proxy.runtime({ authorization: recording }),
      port: 0,
      authenticate: (request) => ({ principal: String(request.headers['x-user']) }),
    });
    ada = await connect({ http: http.url() }, { headers: { 'x-user': 'ada' } });
    eve = await connect({ http: http.url() }, { headers: { 'x-user': 'eve' } });
  });

  afterAll(async () => {
    await ada?.close();
    await eve?.close();
    await http?.close();
    await proxy?.close();
  });

  it('lists per principal, paging over what each may see (private lists)', async () => {
    const adaTools = (await ada.allTools()).map((t) => t.name);
    const eveTools = (await eve.allTools()).map((t) => t.name);
    expect(adaTools).toContain('demo.fail');
    expect(eveTools).toEqual(adaTools.filter((name) => name !== 'demo.fail'));
    const page = await eve.listTools();
    expect(page.items).toHaveLength(3);
    expect(page.result).toMatchObject({ cacheScope: 'private' });
    expect(seen.some((s) => s.method === 'canList' && s.principal === 'eve' && s.item === 'demo.fail')).toBe(
      true,
    );
  });

  it('what a caller cannot list is unknown to it; what it may list but not use is forbidden', async () => {
    expect(await rpcError(eve.callTool('demo.fail'))).toMatchObject({
      code: -32602,
      message: 'Unknown tool: demo.fail',
    });
    expect(await ada.callTool('demo.fail')).toMatchObject({ isError: true });
    expect(await rpcError(eve.callTool('demo.add', { a: 1, b: 2 }))).toMatchObject({
      code: -32602,
      data: { name: 'demo.add', reason: 'forbidden' },
    });
    expect((await ada.callTool('demo.add', { a: 1, b: 2 })).structuredContent).toEqual({ sum: 3 });
    expect(await rpcError(eve.getPrompt('demo.greet', { name: 'x' }))).toMatchObject({
      data: { reason: 'forbidden' },
    });
    expect(await rpcError(eve.readResource('mcp-proxy://demo/demo://greeting'))).toMatchObject({
      code: -32602,
      data: { uri: 'mcp-proxy://demo/demo://greeting', reason: 'forbidden' },
    });
    expect((await ada.readResource('mcp-proxy://demo/demo://greeting')).contents).toHaveLength(1);
    // Completions follow the prompt's get rule.
    expect(
      await rpcError(eve.complete({ type: 'ref/prompt', name: 'demo.greet' }, { name: 'name', value: '' })),
    ).toMatchObject({
      code: -32602,
    });
    expect(
      (await ada.complete({ type: 'ref/prompt', name: 'demo.greet' }, { name: 'name', value: 'G' }))
        .completion.values,
    ).toEqual(['Grace']);
  });

  it('a runtime policy overrides the proxy one, and a policy that throws denies', async () => {
    const open = await frontend(proxy.runtime());
    const closed = await frontend(
      proxy.runtime({
        authorization: {
          canCall: () => {
            throw new Error('policy store unreachable');
          },
        },
      }),
    );
    try {
      expect((await open.callTool('demo.add', { a: 2, b: 2 })).structuredContent).toEqual({ sum: 4 });
      expect(await rpcError(closed.callTool('demo.echo', { text: 'x' }))).toMatchObject({
        data: { reason: 'forbidden' },
      });
    } finally {
      await open.close();
      await closed.close();
    }
  });
});
