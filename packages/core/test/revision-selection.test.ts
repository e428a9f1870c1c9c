import { describe, expect, it } from 'vitest';
import { createServer, ErrorCode, LEGACY_VERSIONS, SUPPORTED_VERSIONS } from '../src/index.js';
import { demoServer, initialize, legacy, MODERN, modern } from './helpers/demo.js';
import { run } from './helpers/run.js';
import { expectResponse } from './helpers/wire-schema.js';

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';

async function sessionFor(version: string, runtime = demoServer()) {
  const { outcome } = await run(runtime, initialize(version));
  return (outcome as { session: any }).session;
}

describe('seed 002: the revision is selected per request', () => {
  const runtime = demoServer();

  it('initialize is served with initialize-based semantics and negotiates the version', async () => {
    for (const version of LEGACY_VERSIONS) {
      const { response, outcome } = await run(runtime, initialize(version));
      expectResponse(version, 'initialize', response);
      expect(response.result.protocolVersion).toBe(version);
      expect((outcome as any).session.protocolVersion).toBe(version);
    }
  });

  it('initialize with an unknown version answers with the latest initialize-based revision, not an error', async () => {
    const { response } = await run(runtime, initialize('1.0.0'));
    expect(response.result.protocolVersion).toBe('2025-11-25');
    const older = await run(runtime, initialize('2026-07-28'));
    expect(older.response.result.protocolVersion).toBe('2025-11-25');
  });

  it('a request declaring its version in _meta is served statelessly, even inside a session', async () => {
    const session = await sessionFor('2025-06-18');
    const { response } = await run(runtime, modern('tools/list'), { session });
    expectResponse(MODERN, 'tools/list', response);
    expect(response.result.resultType).toBe('complete');
  });

  it('an MCP-Protocol-Version header naming 2026-07-28 selects the stateless revision (then _meta is required)', async () => {
    const { response } = await run(runtime, legacy('tools/list', {}), { headerVersion: MODERN });
    expectResponse(MODERN, 'tools/list', response);
    expect(response.error.code).toBe(ErrorCode.InvalidParams);
    expect(response.error.data.missing).toEqual(['_meta']);
  });

  it('without version info the session decides', async () => {
    for (const version of LEGACY_VERSIONS) {
      const session = await sessionFor(version);
      const { response } = await run(runtime, legacy('tools/list'), { session, headerVersion: version });
      expectResponse(version, 'tools/list', response);
      expect(response.result.resultType).toBeUndefined();
    }
  });

  it('with no session and no version, only ping is answered; other requests get -32600 naming the fix', async () => {
    const ping = await run(runtime, legacy('ping'));
    expect(ping.response.result).toEqual({});
    const list = await run(runtime, legacy('tools/list'));
    expect(list.response.error.code).toBe(ErrorCode.InvalidRequest);
    expect(list.response.error.message).toContain('initialize');
    expect(list.response.error.data.supported).toEqual([...SUPPORTED_VERSIONS]);
  });

  it('a header naming an unknown revision without a session is served statelessly: -32602 without _meta, else -32022', async () => {
    const { response } = await run(runtime, legacy('tools/list'), { headerVersion: '2099-01-01' });
    expect(response.error.code).toBe(ErrorCode.InvalidParams);
    const declared = await run(runtime, modern('server/discover', {}, { [PV]: '2099-01-01' }), {
      headerVersion: '2099-01-01',
    });
    expect(declared.response.error.code).toBe(ErrorCode.UnsupportedProtocolVersion);
    expect(declared.response.error.data).toEqual({ supported: ['2026-07-28'], requested: '2099-01-01' });
  });

  it('initialize with a 2026-07-28 header is stateless, where initialize does not exist: -32601', async () => {
    const { response } = await run(runtime, modern('initialize'), { headerVersion: MODERN });
    expect(response.error.code).toBe(ErrorCode.MethodNotFound);
    const legacyHeader = await run(runtime, initialize('2025-11-25'), { headerVersion: '2025-11-25' });
    expect(legacyHeader.response.result.protocolVersion).toBe('2025-11-25');
  });
});

describe('exact profile inspection of 2026-07-28 requests', () => {
  const runtime = demoServer();

  it('params and _meta are required: -32602', async () => {
    const noParams = await run(runtime, { jsonrpc: '2.0', id: 1, method: 'server/discover' });
    expectResponse(MODERN, 'server/discover', noParams.response);
    expect(noParams.response.error.code).toBe(ErrorCode.InvalidParams);
    const noMeta = await run(runtime, { jsonrpc: '2.0', id: 2, method: 'server/discover', params: {} });
    expect(noMeta.response.error.code).toBe(ErrorCode.InvalidParams);
  });

  it('missing protocolVersion or clientCapabilities: -32602 naming the key', async () => {
    const noCaps = await run(runtime, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/list',
      params: { _meta: { [PV]: MODERN } },
    });
    expectResponse(MODERN, 'tools/list', noCaps.response);
    expect(noCaps.response.error.code).toBe(ErrorCode.InvalidParams);
    expect(noCaps.response.error.data.missing).toEqual([CAPS]);
    const badCaps = await run(runtime, modern('tools/list', {}, { [CAPS]: 'all' }));
    expect(badCaps.response.error.data.missing).toEqual([CAPS]);
    const noVersion = await run(runtime, {
      jsonrpc: '2.0',
      id: 4,
      method: 'server/discover',
      params: { _meta: { [CAPS]: {} } },
    });
    expect(noVersion.response.error.code).toBe(ErrorCode.InvalidParams);
    expect(noVersion.response.error.data.missing).toEqual([PV]);
  });

  it('an unsupported version: -32022 with data.supported and data.requested', async () => {
    for (const requested of ['1900-01-01', '2025-06-18']) {
      const { response } = await run(runtime, modern('tools/list', {}, { [PV]: requested }));
      expectResponse(MODERN, 'tools/list', response);
      expect(response.error).toEqual({
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: ['2026-07-28'], requested },
      });
    }
  });

  it('a server that does not serve 2026-07-28 refuses it with -32022', async () => {
    const legacyOnly = demoServer({ protocolVersions: ['2025-06-18'] });
    const { response } = await run(legacyOnly, modern('tools/list'));
    expect(response.error.code).toBe(ErrorCode.UnsupportedProtocolVersion);
    expect(response.error.data.supported).toEqual(['2025-06-18']);
  });

  it('an invalid logLevel is -32602', async () => {
    const { response } = await run(
      runtime,
      modern('tools/list', {}, { 'io.modelcontextprotocol/logLevel': 'verbose' }),
    );
    expect(response.error.code).toBe(ErrorCode.InvalidParams);
  });

  it.each([
    'initialize',
    'ping',
    'logging/setLevel',
    'resources/subscribe',
    'resources/unsubscribe',
    'foo/bar',
  ])('%s does not exist in 2026-07-28: -32601', async (method) => {
    const request = method === 'initialize' ? { ...modern(method) } : modern(method);
    const { response } = await run(runtime, request);
    if (method === 'initialize') {
      // initialize is always initialize-based; on a modern-only server it names the supported versions.
      const modernOnly = demoServer({ protocolVersions: ['2026-07-28'] });
      const refused = await run(modernOnly, initialize('2025-06-18'));
      expect(refused.response.error.code).toBe(ErrorCode.MethodNotFound);
      expect(refused.response.error.data.supported).toEqual(['2026-07-28']);
      return;
    }
    expectResponse(MODERN, 'tools/list', response);
    expect(response.error.code).toBe(ErrorCode.MethodNotFound);
  });

  it('server/discover answers the stateless versions, capabilities, cache hints and serverInfo in _meta', async () => {
    const { response } = await run(runtime, modern('server/discover'));
    expectResponse(MODERN, 'server/discover', response);
    expect(response.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {}, logging: {} },
      ttlMs: 60_000,
      cacheScope: 'private',
    });
    expect(response.result.serverInfo).toBeUndefined();
    expect(response.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('demo');
  });

  it('capabilities are never carried over between requests (S12)', async () => {
    const asking = createServer({
      name: 'a',
      version: '1',
      tools: [{ name: 'ask', requiredClientCapabilities: { elicitation: {} }, handler: () => 'ok' }],
    });
    const withCaps = modern('tools/call', { name: 'ask' }, { [CAPS]: { elicitation: {} } });
    expect((await run(asking, withCaps)).response.result.content[0].text).toBe('ok');
    const without = await run(asking, modern('tools/call', { name: 'ask' }));
    expect(without.response.error.code).toBe(-32021);
  });
});

describe('methods per initialize-based revision', () => {
  it.each(LEGACY_VERSIONS)(
    '%s: ping and logging/setLevel work; unknown methods are -32601; server/discover stays a 2026-07-28 request',
    async (version) => {
      const runtime = demoServer();
      const session = await sessionFor(version, runtime);
      const ping = await run(runtime, legacy('ping'), { session });
      expectResponse(version, 'ping', ping.response);
      expect(ping.response.result).toEqual({});
      const level = await run(runtime, legacy('logging/setLevel', { level: 'warning' }), { session });
      expectResponse(version, 'logging/setLevel', level.response);
      expect((level.outcome as any).session.logLevel).toBe('warning');
      const badLevel = await run(runtime, legacy('logging/setLevel', { level: 'loud' }), { session });
      expect(badLevel.response.error.code).toBe(ErrorCode.InvalidParams);
      const unknown = await run(runtime, legacy('foo/bar'), { session });
      expectResponse(version, 'ping', unknown.response);
      expect(unknown.response.error.code).toBe(ErrorCode.MethodNotFound);
      // A 2026-07-28-only method inside a session is not the session's: it is selected statelessly,
      // so without its _meta it is -32602 naming what is missing (what a dual-era probe expects).
      const discover = await run(runtime, legacy('server/discover', {}), { session });
      expect(discover.response.error).toMatchObject({
        code: ErrorCode.InvalidParams,
        data: { missing: ['_meta'] },
      });
    },
  );

  it('notifications/initialized marks the session initialized; notifications produce no response', async () => {
    const runtime = demoServer();
    const session = await sessionFor('2025-06-18', runtime);
    expect(session.initialized).toBe(false);
    const { outcome } = await run(
      runtime,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { session },
    );
    expect(outcome.type).toBe('none');
    expect((outcome as any).session.initialized).toBe(true);
  });

  it('a notification method sent as a request is -32600', async () => {
    const runtime = demoServer();
    const session = await sessionFor('2025-06-18', runtime);
    const { response } = await run(runtime, legacy('notifications/initialized'), { session });
    expect(response.error.code).toBe(ErrorCode.InvalidRequest);
  });

  it('notifications/cancelled names the request to cancel', async () => {
    const runtime = demoServer();
    const { outcome } = await run(runtime, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7 },
    });
    expect(outcome).toEqual({ type: 'none', cancel: 7 });
  });
});
