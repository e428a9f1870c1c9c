import { type Client, connect } from '@snodo/client';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizationPolicy, createProxy, type McpProxy } from '../src/index.js';
import { catalogServer, frontend, reader, rpcError } from './helpers/proxy.js';
import { demoStdio, everythingStdio } from './helpers/servers.js';

const GREETING = 'mcp-proxy://demo/demo://greeting';
const PAGE = 'mcp-proxy://demo/ui://everything/greeting.html';

describe('subscriptions through the proxy', () => {
  let proxy: McpProxy;
  let http: McpHttpServer;
  const clients: Client[] = [];
  // Who may receive updates of what; changed while subscriptions are open.
  const grants = new Map<string, Set<string>>();
  const policy: AuthorizationPolicy = {
    canSubscribe: (principal, item) =>
      grants.get(principal?.principal ?? 'anonymous')?.has(item.uri ?? '') === true,
  };

  async function as(user: string): Promise<Client> {
    const client = await connect({ http: http.url() }, { headers: { 'x-user': user } });
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    proxy = await createProxy({
      authorization: policy,
      backends: [
        { id: 'demo', target: demoStdio() },
        { id: 'ev', target: everythingStdio() },
        { id: 'cat', target: catalogServer({ resources: [{ uri: 'x://a', name: 'a' }] }) },
      ],
    });
    http = await listen({
      runtime: proxy.runtime(),
      port: 0,
      authenticate: (request) => ({ principal: String(request.headers['x-user'] ?? 'anonymous') }),
    });
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    await http?.close();
    await proxy?.close();
  });

  it('admits exact catalog resources the backend listener accepted and the policy allows; re-checks before each update', async () => {
    grants.set('ada', new Set([GREETING, PAGE, 'mcp-proxy://cat/x://a', 'mcp-proxy://demo/demo://items/1']));
    const ada = await as('ada');
    const subscription = ada.listen({
      resourceSubscriptions: [
        GREETING,
        PAGE,
        // A template instance: the proxy opens no demand-driven upstream listener, so no.
        'mcp-proxy://demo/demo://items/1',
        // A backend without resources.subscribe accepted nothing.
        'mcp-proxy://cat/x://a',
        // Not in the catalog, and the backend's own form.
        'mcp-proxy://demo/demo://nothing',
        'demo://greeting',
        // In the catalog, accepted upstream, but not granted to ada.
        'mcp-proxy://ev/demo://resource/static/document/features.md',
      ],
    });
    expect(await subscription.ready).toEqual({ resourceSubscriptions: [GREETING, PAGE] });
    const next = reader(subscription);
    await ada.callTool('demo.touch', { uri: 'demo://greeting' });
    expect((await next()).params).toMatchObject({ uri: GREETING });
    // The policy changes while the subscription is open: the next greeting update is withheld.
    grants.get('ada')?.delete(GREETING);
    await ada.callTool('demo.touch', { uri: 'demo://greeting' });
    await ada.callTool('demo.touch', { uri: 'ui://everything/greeting.html' });
    const after = await next();
    expect(after).toMatchObject({ method: 'notifications/resources/updated', params: { uri: PAGE } });
    // Granted again: delivered again.
    grants.get('ada')?.add(GREETING);
    await ada.callTool('demo.touch', { uri: 'demo://greeting' });
    expect((await next()).params).toMatchObject({ uri: GREETING });
    await subscription.close();
  });

  it('decides per principal: the same request is admitted for one caller and not another', async () => {
    grants.set('bob', new Set([PAGE]));
    const bob = await as('bob');
    const eve = await as('eve');
    const bobs = bob.listen({ resourceSubscriptions: [GREETING, PAGE] });
    const eves = eve.listen({ resourceSubscriptions: [GREETING, PAGE], toolsListChanged: true });
    expect(await bobs.ready).toEqual({ resourceSubscriptions: [PAGE] });
    expect(await eves.ready).toEqual({ toolsListChanged: true });
    const bobNext = reader(bobs);
    const eveNext = reader(eves);
    await bob.callTool('demo.touch', { uri: 'ui://everything/greeting.html' });
    expect((await bobNext()).params).toMatchObject({ uri: PAGE });
    // List changes reach every subscriber that asked, through the same hub.
    await proxy.addBackend({
      id: 'late',
      target: catalogServer({ tools: [{ name: 't', inputSchema: { type: 'object' } }] }),
    });
    expect(await eveNext()).toMatchObject({ method: 'notifications/tools/list_changed' });
    await proxy.removeBackend('late');
    expect(await eveNext()).toMatchObject({ method: 'notifications/tools/list_changed' });
    await bobs.close();
    await eves.close();
  });

  it('server-everything (initialize-based): its accepted resources can be subscribed through the proxy', async () => {
    const features = 'mcp-proxy://ev/demo://resource/static/document/features.md';
    grants.set('cy', new Set([features]));
    const cy = await as('cy');
    const subscription = cy.listen({ resourceSubscriptions: [features] });
    expect(await subscription.ready).toEqual({ resourceSubscriptions: [features] });
    await subscription.close();
  });

  it('a legacy resources/subscribe the proxy cannot honour is refused with the reason, never answered {}', async () => {
    // An initialize-based HTTP session is admitted, and its stream checked, as its verified principal.
    grants.set('dan', new Set([GREETING, 'mcp-proxy://cat/x://a', 'mcp-proxy://demo/demo://items/1']));
    const dan = await connect(
      { http: http.url() },
      { headers: { 'x-user': 'dan' }, protocolVersions: ['2025-11-25'] },
    );
    clients.push(dan);
    const subscribe = (uri: string) => rpcError(dan.request('resources/subscribe', { uri }));
    // A template instance: no upstream listener will ever report it.
    expect(await subscribe('mcp-proxy://demo/demo://items/1')).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/instance of the template mcp-proxy:\/\/demo\/demo:\/\/items\/\{id\}/),
      data: { uri: 'mcp-proxy://demo/demo://items/1', reason: 'not_subscribable' },
    });
    // An exact resource whose backend does not offer resources.subscribe.
    expect(await subscribe('mcp-proxy://cat/x://a')).toMatchObject({
      code: -32602,
      data: { uri: 'mcp-proxy://cat/x://a', reason: 'not_subscribable' },
    });
    // Not in the catalog: not found, as on any server.
    expect(await subscribe('mcp-proxy://demo/demo://nothing')).toMatchObject({
      code: -32002,
      data: { uri: 'mcp-proxy://demo/demo://nothing' },
    });
    // Listed, but the policy does not let this caller subscribe to it.
    expect(await subscribe(PAGE)).toMatchObject({ code: -32602, data: { uri: PAGE, reason: 'forbidden' } });
    // What the proxy honours is acknowledged, and its updates come.
    expect(await dan.request('resources/subscribe', { uri: GREETING })).toEqual({});
    const subscription = dan.listen({ resourceSubscriptions: [GREETING, 'mcp-proxy://demo/demo://items/1'] });
    // The client's listen keeps what was honoured, as the 2026-07-28 acknowledgement does.
    expect(await subscription.ready).toEqual({ resourceSubscriptions: [GREETING] });
    const next = reader(subscription);
    await dan.callTool('demo.touch', { uri: 'demo://greeting' });
    expect(await next()).toMatchObject({ params: { uri: GREETING } });
    await subscription.close();
  });

  it('an unauthenticated initialize-based frontend (in-process) gets what an anonymous caller may receive', async () => {
    grants.set('anonymous', new Set([PAGE]));
    const old = await frontend(proxy.runtime(), { protocolVersions: ['2025-11-25'] });
    clients.push(old);
    const subscription = old.listen({ resourceSubscriptions: [GREETING, PAGE] });
    await subscription.ready;
    const next = reader(subscription);
    await old.callTool('demo.touch', { uri: 'demo://greeting' });
    await old.callTool('demo.touch', { uri: 'ui://everything/greeting.html' });
    expect(await next()).toMatchObject({ method: 'notifications/resources/updated', params: { uri: PAGE } });
    await subscription.close();
  });
});
