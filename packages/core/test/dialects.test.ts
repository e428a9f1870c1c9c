import { describe, expect, it } from 'vitest';
import type { Dialect } from '../src/dialects/dialect.js';
import {
  createServer,
  DIALECTS,
  decodeMessage,
  dispatchBatch,
  ErrorCode,
  encodeJson,
  ProtocolError,
} from '../src/index.js';
import { demoServer, initialize, legacy, MODERN, modern } from './helpers/demo.js';
import { run } from './helpers/run.js';
import { expectResponse } from './helpers/wire-schema.js';

const linking = createServer({
  name: 'links',
  version: '1',
  tools: [
    {
      name: 'link',
      handler: () => ({
        content: [
          { type: 'text', text: 'see', _meta: { 'dev.snodo/x': 1 } },
          { type: 'resource_link', uri: 'demo://greeting', name: 'greeting', title: 'Greeting' },
        ],
        structuredContent: [1, 2],
      }),
    },
  ],
});

async function call(version: string) {
  if (version === MODERN) return (await run(linking, modern('tools/call', { name: 'link' }))).response;
  const { outcome } = await run(linking, initialize(version));
  return (await run(linking, legacy('tools/call', { name: 'link' }), { session: (outcome as any).session }))
    .response;
}

describe('dialects shape the neutral result for their wire', () => {
  it('one dialect per revision, each with its own method registry', () => {
    expect(DIALECTS.map((d) => d.version)).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']);
    const [modernDialect, , , oldest] = DIALECTS;
    expect(modernDialect?.classify('server/discover', 'request')).toBe('ok');
    expect(modernDialect?.classify('ping', 'request')).toBe('absent');
    expect(modernDialect?.classify('tools/list', 'notification')).toBe('invalid');
    expect(oldest?.classify('initialize', 'request')).toBe('ok');
    expect(oldest?.classify('subscriptions/listen', 'request')).toBe('absent');
    expect(DIALECTS.map((d) => d.batches)).toEqual([false, false, false, true]);
  });

  it('2026-07-28 keeps resource links and any structuredContent value', async () => {
    const response = await call(MODERN);
    expectResponse(MODERN, 'tools/call', response);
    expect(response.result.content[1].type).toBe('resource_link');
    expect(response.result.structuredContent).toEqual([1, 2]);
  });

  it('2025-06-18 keeps resource links and drops a non-object structuredContent', async () => {
    const response = await call('2025-06-18');
    expectResponse('2025-06-18', 'tools/call', response);
    expect(response.result.content[1].type).toBe('resource_link');
    expect(response.result.structuredContent).toBeUndefined();
  });

  it('2025-03-26 turns resource links into text and drops fields it does not know', async () => {
    const response = await call('2025-03-26');
    expectResponse('2025-03-26', 'tools/call', response);
    expect(response.result.content).toEqual([
      { type: 'text', text: 'see' },
      { type: 'text', text: 'greeting: demo://greeting' },
    ]);
    expect(response.result.structuredContent).toBeUndefined();
  });

  it('initialize serverInfo carries only the fields of the revision', async () => {
    const titled = createServer({
      name: 'n',
      version: '1',
      title: 'Nice',
      websiteUrl: 'https://example.com',
    });
    const old = await run(titled, initialize('2025-03-26'));
    expectResponse('2025-03-26', 'initialize', old.response);
    expect(old.response.result.serverInfo).toEqual({ name: 'n', version: '1' });
    const mid = await run(titled, initialize('2025-06-18'));
    expect(mid.response.result.serverInfo).toEqual({ name: 'n', version: '1', title: 'Nice' });
    const recent = await run(titled, initialize('2025-11-25'));
    expect(recent.response.result.serverInfo.websiteUrl).toBe('https://example.com');
  });

  it('shapeResult copies the fields in order, never mutates its input, keeps an own __proto__ field', () => {
    const [modernDialect, , mid, oldest] = DIALECTS as [Dialect, Dialect, Dialect, Dialect];
    const shaping = { serverInfo: { name: 's', version: '1' }, ttlMs: 7, cacheScope: 'public' as const };
    const result = JSON.parse(
      '{"content":[],"__proto__":{"x":1},"ttlMs":5,"cacheScope":"private","structuredContent":3,"_meta":{"a":1,"__proto__":2}}',
    );
    const before = JSON.stringify(result);
    const shaped = modernDialect.shapeResult('tools/call', result, shaping);
    expect(JSON.stringify(shaped)).toBe(
      '{"content":[],"__proto__":{"x":1},"structuredContent":3,"_meta":{"a":1,"__proto__":2,"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"resultType":"complete"}',
    );
    expect(Object.getPrototypeOf(shaped)).toBe(Object.prototype);
    // Cacheable: its own hints stay in place, missing ones come last; a task keeps its ttlMs.
    expect(
      JSON.stringify(
        modernDialect.shapeResult('tools/list', { ttlMs: 5, tools: [], resultType: 'complete' }, shaping),
      ),
    ).toBe(
      '{"ttlMs":5,"tools":[],"resultType":"complete","cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}',
    );
    expect(modernDialect.shapeResult('tools/call', { resultType: 'task', ttlMs: 9 }, shaping).ttlMs).toBe(9);
    expect(modernDialect.shapeResult('x/extension', { ttlMs: 9 }, shaping).ttlMs).toBe(9);
    expect(JSON.stringify(mid.shapeResult('tools/call', result, shaping))).toBe(
      '{"content":[],"__proto__":{"x":1},"_meta":{"a":1,"__proto__":2}}',
    );
    expect(
      JSON.stringify(
        oldest.shapeResult('tools/list', { tools: [], resultType: 'complete', nextCursor: 'c' }, shaping),
      ),
    ).toBe('{"tools":[],"nextCursor":"c"}');
    expect(JSON.stringify(result)).toBe(before);
  });

  it('resource not found is -32602 on 2026-07-28 and -32002 before', () => {
    const error = ProtocolError.resourceNotFound('demo://missing');
    const byVersion = Object.fromEntries(DIALECTS.map((d) => [d.version, d.shapeError(error)]));
    expect(byVersion['2026-07-28']).toEqual({
      code: -32602,
      message: 'Resource not found: demo://missing',
      data: { uri: 'demo://missing' },
    });
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      expect(byVersion[version]?.code).toBe(ErrorCode.ResourceNotFoundLegacy);
    }
  });
});

describe('JSON-RPC batches (2025-03-26 only)', () => {
  const runtime = demoServer();

  async function session(version: string) {
    const { outcome } = await run(runtime, initialize(version));
    return (outcome as any).session;
  }

  it('runs the requests of a batch and answers them in order, skipping notifications', async () => {
    const batch = decodeMessage(
      JSON.stringify([
        {
          jsonrpc: '2.0',
          id: 'a',
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: 'one' } },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 'b', method: 'ping' },
        { jsonrpc: '2.0', id: 'c', method: 'nope' },
      ]),
    );
    if (batch.kind !== 'batch') throw new Error('expected a batch');
    const outcome = await dispatchBatch(runtime, batch.items, { session: await session('2025-03-26') });
    expect(outcome.responses.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect((outcome.responses[0] as any).result.content[0].text).toBe('one');
    expect((outcome.responses[2] as any).error.code).toBe(ErrorCode.MethodNotFound);
    expect(outcome.session?.initialized).toBe(true);
  });

  it('refuses batches on 2025-06-18, 2025-11-25, 2026-07-28 and without a session, as a whole (refused: one error to send alone)', async () => {
    const items = [{ kind: 'request' as const, id: 1, method: 'ping', params: undefined, message: {} }];
    for (const context of [
      { session: await session('2025-06-18') },
      { session: await session('2025-11-25') },
      {},
    ]) {
      const outcome = await dispatchBatch(runtime, items, context);
      expect(outcome.responses).toEqual([
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('2025-03-26') } },
      ]);
      expect(outcome.refused).toBe(true);
    }
    const served = await dispatchBatch(runtime, items, { session: await session('2025-03-26') });
    expect(served.refused).toBeUndefined();
  });

  it('refuses initialize inside a batch', async () => {
    const items = [{ kind: 'request' as const, id: 1, method: 'initialize', params: {}, message: {} }];
    const outcome = await dispatchBatch(runtime, items, { session: await session('2025-03-26') });
    expect((outcome.responses[0] as any).error.code).toBe(ErrorCode.InvalidRequest);
  });
});

describe('identity values are echoed byte for byte', () => {
  const runtime = demoServer();
  it.each(['9223372036854775807', '-9223372036854775808', '9007199254740993'])('id %s', async (literal) => {
    const text = `{"jsonrpc":"2.0","id":${literal},"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":${literal}}}}`;
    const { outcome, notifications } = await run(runtime, decodeMessage(text));
    expect(outcome.type).toBe('stream');
    expect(notifications).toEqual([]);
    const streamed = await run(
      createServer({
        name: 'p',
        version: '1',
        tools: [
          {
            name: 'p',
            handler: (_a, ctx) => {
              ctx.progress(1);
              return 'ok';
            },
          },
        ],
      }),
      decodeMessage(text.replace('"name":"echo"', '"name":"p"')),
    );
    const wire = streamed.notifications.map((n) => encodeJson(n)).concat(encodeJson(streamed.response));
    expect(wire[0]).toContain(`"progressToken":${literal}`);
    expect(wire[1]).toContain(`"id":${literal}`);
  });

  it('an out-of-range id is refused with -32600 and id null', async () => {
    const { response } = await run(
      runtime,
      decodeMessage('{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}'),
    );
    expect(response).toEqual({ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32600 }) });
  });

  it('an out-of-range progressToken is refused with -32602 echoing the id', async () => {
    const { response } = await run(
      runtime,
      decodeMessage(
        '{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"progressToken":9223372036854775808}}}',
      ),
    );
    expect(response.id).toBe(5);
    expect(response.error.code).toBe(-32602);
  });
});
