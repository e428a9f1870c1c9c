// The client's protocol logic against scripted servers (a custom transport): negotiation by the
// dual-era rules, _meta, resultType, MRTR retries, caching and invalidation, listen demultiplexing.
import type { JsonRpcRequest } from '@snodo/core';
import { describe, expect, it } from 'vitest';
import { connect, ProtocolError, SnodoError } from '../src/index.js';
import { DISCOVER, INITIALIZE, ScriptedTransport } from './helpers/scripted.js';

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';

function legacyServer(
  version = '2025-11-25',
  discover: unknown = { error: { code: -32601, message: 'Method not found' } },
) {
  return new ScriptedTransport((request) => {
    if (request.method === 'server/discover') return discover as never;
    if (request.method === 'initialize') return INITIALIZE(version);
    if (request.method === 'tools/list') return { tools: [] };
    return {};
  });
}

describe('negotiation', () => {
  it('stays on 2026-07-28 when server/discover answers, and reports serverInfo from _meta', async () => {
    const transport = new ScriptedTransport((r) => (r.method === 'server/discover' ? DISCOVER : {}));
    const client = await connect({ transport });
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(client.era).toBe('modern');
    expect(client.serverInfo).toEqual({ name: 'scripted', version: '1.0.0' });
    expect(transport.requests().map((r) => r.method)).toEqual(['server/discover']);
    const meta = transport.requests()[0]?.params?._meta as Record<string, unknown>;
    expect(meta[META_VERSION]).toBe('2026-07-28');
    expect(meta[META_CAPS]).toEqual({});
    expect(meta['io.modelcontextprotocol/clientInfo']).toEqual({ name: '@snodo/client', version: '0.1.0' });
  });

  it.each([
    ['-32601', { error: { code: -32601, message: 'Method not found' } }],
    ['-32602', { error: { code: -32602, message: 'Invalid params' } }],
    ['-32000', { error: { code: -32000, message: 'Bad Request: Server not initialized' } }],
    ['a result without supportedVersions', {}],
  ])('falls back to initialize when discover answers %s (never keyed on one code)', async (_, discover) => {
    const transport = legacyServer('2025-11-25', discover);
    const client = await connect({ transport });
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo?.name).toBe('scripted-legacy');
    const methods = transport.sent.map((s) => ('method' in s.message ? s.message.method : 'response'));
    expect(methods).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    const init = transport.requests('initialize')[0]?.params;
    expect(init).toEqual({ protocolVersion: '2025-11-25', capabilities: {}, clientInfo: expect.any(Object) });
  });

  it('falls back when the probe times out (a silent legacy server)', async () => {
    const transport = legacyServer('2025-06-18', 'silent');
    transport.probeNeedsTimeout = true;
    const client = await connect(
      { transport },
      { probeTimeout: 50, protocolVersions: ['2026-07-28', '2025-06-18'] },
    );
    expect(client.protocolVersion).toBe('2025-06-18');
  });

  it('offers the older revision -32022 names, and retries discover on -32022 naming 2026-07-28', async () => {
    const older = legacyServer('2025-03-26', {
      error: {
        code: -32022,
        message: 'Unsupported',
        data: { supported: ['2025-03-26'], requested: '2026-07-28' },
      },
    });
    expect((await connect({ transport: older })).protocolVersion).toBe('2025-03-26');
    expect(older.requests('initialize')[0]?.params?.protocolVersion).toBe('2025-03-26');

    let first = true;
    const picky = new ScriptedTransport((r) => {
      if (first) {
        first = false;
        return {
          error: {
            code: -32022,
            message: 'Unsupported',
            data: { supported: ['2026-07-28'], requested: 'x' },
          },
        };
      }
      return r.method === 'server/discover' ? DISCOVER : {};
    });
    const client = await connect({ transport: picky });
    expect(client.protocolVersion).toBe('2026-07-28');
    const ids = picky.requests('server/discover').map((r) => r.id);
    expect(ids).toHaveLength(2);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('skips the probe when protocolVersions allows only initialize-based revisions', async () => {
    const transport = legacyServer('2025-06-18');
    const client = await connect({ transport }, { protocolVersions: ['2025-06-18'] });
    expect(client.protocolVersion).toBe('2025-06-18');
    expect(transport.requests('server/discover')).toHaveLength(0);
  });

  it('fails with SNODO_ERR_NEGOTIATION when protocolVersions excludes what the server speaks', async () => {
    await expect(
      connect({ transport: legacyServer() }, { protocolVersions: ['2026-07-28'] }),
    ).rejects.toMatchObject({
      code: 'SNODO_ERR_NEGOTIATION',
    });
    const transport = legacyServer('2025-11-25');
    await expect(connect({ transport }, { protocolVersions: ['2025-03-26'] })).rejects.toMatchObject({
      code: 'SNODO_ERR_NEGOTIATION',
    });
    expect(transport.closed).toBe(true);
  });

  it('validates options once, naming the option', async () => {
    await expect(
      connect({ transport: legacyServer() }, { protocolVersions: ['1999-01-01' as never] }),
    ).rejects.toThrow(/protocolVersions/);
    await expect(connect({ transport: legacyServer() }, { timeout: -1 })).rejects.toMatchObject({
      code: 'SNODO_ERR_INVALID_OPTION',
    });
    await expect(connect({ transport: {} as never })).rejects.toThrow(/ClientTransport/);
  });
});

function modern(handler: (request: JsonRpcRequest) => unknown) {
  return new ScriptedTransport((request) => {
    if (request.method === 'server/discover') return DISCOVER;
    return handler(request) as never;
  });
}

describe('results and errors', () => {
  it('treats a missing resultType as complete and an unknown one as invalid', async () => {
    const transport = modern((r) =>
      (r.params as { name: string }).name === 'weird'
        ? { resultType: 'weird', content: [] }
        : { content: [{ type: 'text', text: 'ok' }] },
    );
    const client = await connect({ transport });
    expect((await client.callTool('plain')).content).toEqual([{ type: 'text', text: 'ok' }]);
    await expect(client.callTool('weird')).rejects.toMatchObject({ code: 'SNODO_ERR_INVALID_RESULT' });
  });

  it('throws ProtocolError with code, message and data for a JSON-RPC error', async () => {
    const client = await connect({
      transport: modern(() => ({
        error: { code: -32602, message: 'Unknown tool: nope', data: { name: 'nope' } },
      })),
    });
    const error = await client.callTool('nope').catch((e: unknown) => e);
    expect(ProtocolError.is(error)).toBe(true);
    expect(error).toMatchObject({ code: -32602, message: 'Unknown tool: nope', data: { name: 'nope' } });
    expect(SnodoError.is(error)).toBe(false);
  });

  it('retries a request once, with a new id, when -32022 names the revision in use', async () => {
    let calls = 0;
    const transport = modern(() =>
      ++calls === 1
        ? {
            error: {
              code: -32022,
              message: 'Unsupported',
              data: { supported: ['2026-07-28'], requested: '?' },
            },
          }
        : { tools: [], resultType: 'complete' },
    );
    const client = await connect({ transport });
    await client.listTools();
    const [a, b] = transport.requests('tools/list');
    expect(b?.id).not.toBe(a?.id);
    expect(calls).toBe(2);
  });

  it('times out with TimeoutError and stays usable', async () => {
    const transport = modern((r) =>
      (r.params as { name?: string }).name === 'slow' ? 'silent' : { content: [] },
    );
    const client = await connect({ transport });
    await expect(client.callTool('slow', {}, { timeout: 30 })).rejects.toMatchObject({
      code: 'SNODO_ERR_TIMEOUT',
    });
    await expect(client.callTool('fast')).resolves.toEqual({ content: [] });
  });

  it('aborts with SNODO_ERR_ABORTED carrying the reason', async () => {
    const client = await connect({ transport: modern(() => 'silent') });
    const controller = new AbortController();
    const call = client.callTool('slow', {}, { signal: controller.signal });
    controller.abort(new Error('user gave up'));
    await expect(call).rejects.toMatchObject({ code: 'SNODO_ERR_ABORTED', message: /user gave up/ });
  });

  it('a custom transport gets a real AbortSignal for each call, which the caller’s signal aborts', async () => {
    let reached!: () => void;
    const called = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const transport = modern(() => {
      reached();
      return 'silent';
    });
    const client = await connect({ transport });
    const controller = new AbortController();
    const call = client.callTool('slow', {}, { signal: controller.signal });
    await called;
    const signal = transport.sent.at(-1)?.options.signal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal?.aborted).toBe(false);
    controller.abort(new Error('user gave up'));
    await expect(call).rejects.toMatchObject({ code: 'SNODO_ERR_ABORTED' });
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toMatchObject({ code: 'SNODO_ERR_ABORTED', message: /user gave up/ });
  });

  it('follows cursors in all* helpers, bounded by maxPages', async () => {
    const transport = modern((r) => {
      const cursor = (r.params as { cursor?: string }).cursor;
      const n = cursor === undefined ? 0 : Number(cursor);
      return {
        resultType: 'complete',
        tools: [{ name: `t${n}`, inputSchema: { type: 'object' } }],
        nextCursor: n < 4 ? String(n + 1) : undefined,
      };
    });
    const client = await connect({ transport }, { maxPages: 5 });
    expect((await client.allTools()).map((t) => t.name)).toEqual(['t0', 't1', 't2', 't3', 't4']);
    const short = await connect({ transport }, { maxPages: 3 });
    await expect(short.allTools()).rejects.toMatchObject({ code: 'SNODO_ERR_PAGE_LIMIT' });
    const page = await client.listTools({ cursor: '2' });
    expect(page.items.map((t) => t.name)).toEqual(['t2']);
    expect(page.nextCursor).toBe('3');
  });
});

describe('MRTR (2026-07-28)', () => {
  const elicit = {
    method: 'elicitation/create',
    params: { message: 'Name?', requestedSchema: { type: 'object' } },
  };

  it('retries with a new id, the same params, inputResponses and the exact requestState', async () => {
    const transport = modern((r) => {
      const p = r.params as Record<string, unknown>;
      if (p.inputResponses === undefined) {
        return {
          resultType: 'input_required',
          inputRequests: { who: elicit, roots: { method: 'roots/list' } },
          requestState: 'opaque "state" ✓',
        };
      }
      return { resultType: 'complete', content: [{ type: 'text', text: 'done' }] };
    });
    const client = await connect(
      { transport },
      {
        onElicit: (params) => ({
          action: 'accept',
          content: { name: String(params.message) },
          resultType: 'x',
        }),
        onRoots: () => ({ roots: [{ uri: 'file:///w' }] }),
      },
    );
    expect((await client.callTool('ask', { q: 1 })).content).toEqual([{ type: 'text', text: 'done' }]);
    const [first, retry] = transport.requests('tools/call');
    expect(retry?.id).not.toBe(first?.id);
    const { _meta: m1, ...p1 } = (first?.params ?? {}) as Record<string, unknown>;
    const {
      _meta: m2,
      inputResponses,
      requestState,
      ...p2
    } = (retry?.params ?? {}) as Record<string, unknown>;
    expect(p2).toEqual(p1);
    expect(m2).toEqual(m1);
    expect(requestState).toBe('opaque "state" ✓');
    expect(inputResponses).toEqual({
      who: { action: 'accept', content: { name: 'Name?' } },
      roots: { roots: [{ uri: 'file:///w' }] },
    });
    expect((m1 as Record<string, unknown>)[META_CAPS]).toEqual({ elicitation: {}, roots: {} });
  });

  it('sends no requestState when the server gave none, and may retry a state-only result at once', async () => {
    let round = 0;
    const transport = modern(() => {
      round++;
      if (round === 1) return { resultType: 'input_required', inputRequests: { who: elicit } };
      if (round === 2) return { resultType: 'input_required', requestState: 'busy' };
      return { resultType: 'complete', messages: [] };
    });
    const client = await connect({ transport }, { onElicit: () => ({ action: 'decline' }) });
    await client.getPrompt('p');
    const [, second, third] = transport
      .requests('prompts/get')
      .map((r) => r.params as Record<string, unknown>);
    expect(second).not.toHaveProperty('requestState');
    expect(second?.inputResponses).toEqual({ who: { action: 'decline' } });
    expect(third).toMatchObject({ requestState: 'busy' });
    expect(third).not.toHaveProperty('inputResponses');
  });

  it('stops after maxInputRounds, and fails without a handler for the input asked', async () => {
    const transport = modern(() => ({ resultType: 'input_required', requestState: 'again' }));
    const client = await connect({ transport }, { maxInputRounds: 3 });
    await expect(client.callTool('loop')).rejects.toMatchObject({ code: 'SNODO_ERR_INPUT_ROUNDS' });
    expect(transport.requests('tools/call')).toHaveLength(4);
    const asks = await connect({
      transport: modern(() => ({ resultType: 'input_required', inputRequests: { who: elicit } })),
    });
    await expect(asks.callTool('ask')).rejects.toMatchObject({ code: 'SNODO_ERR_NO_INPUT_HANDLER' });
  });

  it('refuses input_required on a method that cannot ask for input', async () => {
    const client = await connect({
      transport: modern(() => ({ resultType: 'input_required', requestState: 's' })),
    });
    await expect(client.listTools()).rejects.toMatchObject({ code: 'SNODO_ERR_INVALID_RESULT' });
  });
});

describe('caching (2026-07-28)', () => {
  function cachedServer() {
    let version = 0;
    return modern((r) => {
      if (r.method === 'tools/list')
        return {
          resultType: 'complete',
          tools: [{ name: `v${version++}`, inputSchema: {} }],
          ttlMs: 60_000,
          cacheScope: 'public',
        };
      if (r.method === 'resources/read') {
        const uri = (r.params as { uri: string }).uri;
        return {
          resultType: 'complete',
          contents: [{ uri, text: `read ${version++}` }],
          ttlMs: 60_000,
          cacheScope: 'private',
        };
      }
      return { resultType: 'complete' };
    });
  }

  it('serves list and read results from the cache for ttlMs, refreshes on fresh, and is off by option', async () => {
    const transport = cachedServer();
    const client = await connect({ transport });
    const a = await client.listTools();
    const b = await client.listTools();
    expect(b.items).toEqual(a.items);
    expect(transport.requests('tools/list')).toHaveLength(1);
    expect((await client.listTools({ fresh: true })).items).not.toEqual(a.items);
    const off = cachedServer();
    const uncached = await connect({ transport: off }, { cache: false });
    await uncached.listTools();
    await uncached.listTools();
    expect(off.requests('tools/list')).toHaveLength(2);
  });

  it('invalidates on list-changed and resource-updated notifications', async () => {
    const transport = cachedServer();
    const client = await connect({ transport });
    await client.listTools();
    await client.readResource('a://1');
    await client.readResource('a://2');
    transport.sink?.message({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    transport.sink?.message({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'a://1' },
    });
    await client.listTools();
    await client.readResource('a://1');
    await client.readResource('a://2');
    expect(transport.requests('tools/list')).toHaveLength(2);
    expect(transport.requests('resources/read').map((r) => (r.params as { uri: string }).uri)).toEqual([
      'a://1',
      'a://2',
      'a://1',
    ]);
  });

  it('keys private entries by the authorization in use', async () => {
    const transport = cachedServer();
    const client = await connect({ transport });
    transport.auth = 'token-a';
    const a = await client.readResource('a://1');
    transport.auth = 'token-b';
    const b = await client.readResource('a://1');
    expect(b).not.toEqual(a);
    transport.auth = 'token-a';
    expect(await client.readResource('a://1')).toEqual(a);
    expect(transport.requests('resources/read')).toHaveLength(2);
  });

  it('never caches results computed from input answers', async () => {
    const transport = modern((r) => {
      const p = r.params as Record<string, unknown>;
      if (p.requestState === undefined) return { resultType: 'input_required', requestState: 's1' };
      return { resultType: 'complete', contents: [], ttlMs: 60_000, cacheScope: 'public' };
    });
    const client = await connect({ transport });
    await client.readResource('a://x');
    await client.readResource('a://x');
    expect(transport.requests('resources/read')).toHaveLength(4);
  });
});

describe('listen demultiplexing', () => {
  it('routes notifications by subscriptionId, resolves ready with the acknowledged filter, and ends on the listen result', async () => {
    const pending = new Map<unknown, (value: unknown) => void>();
    const transport = new ScriptedTransport((r) => {
      if (r.method === 'server/discover') return DISCOVER;
      if (r.method === 'subscriptions/listen')
        return new Promise((resolve) => pending.set(r.id, resolve as never)) as never;
      return {};
    });
    const client = await connect({ transport });
    const one = client.listen({ toolsListChanged: true, promptsListChanged: true });
    const two = client.listen({ resourceSubscriptions: ['a://1'] });
    const [l1, l2] = transport.requests('subscriptions/listen');
    const tag = (id: unknown) => ({ _meta: { 'io.modelcontextprotocol/subscriptionId': id } });
    transport.sink?.message({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true }, ...tag(l1?.id) },
    });
    transport.sink?.message({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { resourceSubscriptions: ['a://1'] }, ...tag(l2?.id) },
    });
    expect(await one.ready).toEqual({ toolsListChanged: true });
    expect(await two.ready).toEqual({ resourceSubscriptions: ['a://1'] });
    transport.sink?.message({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'a://1', ...tag(l2?.id) },
    });
    transport.sink?.message({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: tag(l1?.id),
    });
    pending.get(l1?.id)?.({ resultType: 'complete', ...tag(l1?.id) });
    const seen: string[] = [];
    for await (const n of one) seen.push(n.method);
    expect(seen).toEqual(['notifications/tools/list_changed']);
    for await (const n of two) {
      expect(n).toMatchObject({ method: 'notifications/resources/updated', params: { uri: 'a://1' } });
      break;
    }
    expect(two.ended).toBe(true);
  });
});

describe('log level', () => {
  it('is sent in _meta on 2026-07-28 and with logging/setLevel once initialized before', async () => {
    const modernServer = new ScriptedTransport((r) =>
      r.method === 'server/discover' ? DISCOVER : { tools: [] },
    );
    const modernClient = await connect({ transport: modernServer }, { logLevel: 'warning' });
    await modernClient.listTools();
    const meta = modernServer.requests('tools/list')[0]?.params?._meta as Record<string, unknown>;
    expect(meta['io.modelcontextprotocol/logLevel']).toBe('warning');

    const legacy = new ScriptedTransport((r) =>
      r.method === 'initialize'
        ? { ...INITIALIZE('2025-06-18'), capabilities: { logging: {} } }
        : r.method === 'server/discover'
          ? { error: { code: -32601, message: 'nope' } }
          : {},
    );
    await connect({ transport: legacy }, { logLevel: 'info' });
    expect(legacy.requests('logging/setLevel').map((r) => r.params)).toEqual([{ level: 'info' }]);
  });
});
