import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createServer, ErrorCode, ProtocolError, SnodoError } from '../src/index.js';
import { demoServer, initialize, legacy, MODERN, modern } from './helpers/demo.js';
import { run } from './helpers/run.js';
import { expectResponse } from './helpers/wire-schema.js';

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

describe('tools on 2026-07-28', () => {
  const runtime = demoServer();

  it('lists tools in name order with resultType, cache hints and serverInfo', async () => {
    const { response } = await run(runtime, modern('tools/list'));
    expectResponse(MODERN, 'tools/list', response);
    expect(response.result.tools.map((t: { name: string }) => t.name)).toEqual(['add', 'echo']);
    expect(response.result.resultType).toBe('complete');
    expect(response.result.ttlMs).toBe(60_000);
    expect(response.result.cacheScope).toBe('private');
    expect(response.result._meta[SERVER_INFO]).toEqual({ name: 'demo', version: '1.0.0' });
    const echo = response.result.tools.find((t: { name: string }) => t.name === 'echo');
    expect(echo.inputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
  });

  it('gives the same order on every call', async () => {
    const first = await run(runtime, modern('tools/list'));
    const second = await run(runtime, modern('tools/list'));
    expect(second.response.result.tools).toEqual(first.response.result.tools);
  });

  it('pages with opaque cursors and refuses a bad cursor with -32602', async () => {
    const paged = demoServer({ pageSize: 1 });
    const first = await run(paged, modern('tools/list'));
    expect(first.response.result.tools.map((t: { name: string }) => t.name)).toEqual(['add']);
    const cursor = first.response.result.nextCursor;
    expect(typeof cursor).toBe('string');
    const second = await run(paged, modern('tools/list', { cursor }));
    expectResponse(MODERN, 'tools/list', second.response);
    expect(second.response.result.tools.map((t: { name: string }) => t.name)).toEqual(['echo']);
    expect(second.response.result.nextCursor).toBeUndefined();
    for (const bad of ['nope!', 'djE6OTk', 42, '']) {
      const { response } = await run(paged, modern('tools/list', { cursor: bad }));
      expectResponse(MODERN, 'tools/list', response);
      expect(response.error.code).toBe(ErrorCode.InvalidParams);
    }
  });

  it('calls a tool and returns its text with resultType complete', async () => {
    const { response } = await run(
      runtime,
      modern('tools/call', { name: 'echo', arguments: { text: 'hi' } }),
    );
    expectResponse(MODERN, 'tools/call', response);
    expect(response.result.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(response.result.resultType).toBe('complete');
    expect(response.result.ttlMs).toBeUndefined();
  });

  it('validates structuredContent against outputSchema and adds a JSON text block', async () => {
    const { response } = await run(runtime, modern('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }));
    expectResponse(MODERN, 'tools/call', response);
    expect(response.result.structuredContent).toEqual({ sum: 5 });
    const broken = createServer({
      name: 'b',
      version: '1',
      tools: [
        {
          name: 'bad',
          outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
          handler: () => ({ content: [], structuredContent: { sum: 'five' } }),
        },
      ],
    });
    const bad = await run(broken, modern('tools/call', { name: 'bad', arguments: {} }));
    expect(bad.response.error.code).toBe(ErrorCode.InternalError);
    expect(bad.response.error.message).toContain('/sum');
  });

  it('refuses an unknown tool with -32602', async () => {
    const { response } = await run(runtime, modern('tools/call', { name: 'nope', arguments: {} }));
    expectResponse(MODERN, 'tools/call', response);
    expect(response.error.code).toBe(ErrorCode.InvalidParams);
    expect(response.error.message).toContain('nope');
  });

  it('turns a thrown handler error into an isError result', async () => {
    const failing = createServer({
      name: 'f',
      version: '1',
      tools: [
        {
          name: 'fail',
          handler: () => {
            throw new Error('disk on fire');
          },
        },
      ],
    });
    const { response } = await run(failing, modern('tools/call', { name: 'fail' }));
    expectResponse(MODERN, 'tools/call', response);
    expect(response.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'disk on fire' }],
    });
  });

  // A handler may answer synchronously, with a promise or with any thenable: each way, the same answer.
  const ways = {
    sync: (f: () => unknown) => f,
    async: (f: () => unknown) => async () => f(),
    thenable: (f: () => unknown) => () => ({
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise, on purpose
      then: (resolve: (v: unknown) => void, reject: (e: unknown) => void) => {
        try {
          resolve(f());
        } catch (error) {
          reject(error);
        }
      },
    }),
  };
  it.each(Object.keys(ways) as (keyof typeof ways)[])(
    'a %s handler: its result, throw, ProtocolError, bad return and output mismatch answer alike',
    async (way) => {
      const reported: unknown[] = [];
      const outputSchema = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
      const handlers: Record<string, () => unknown> = {
        ok: () => 'fine',
        fail: () => {
          throw new Error('disk on fire');
        },
        refuse: () => {
          throw ProtocolError.invalidParams('no such thing');
        },
        shapeless: () => 42,
        mismatch: () => ({ content: [], structuredContent: { sum: 'five' } }),
        unstructured: () => ({ content: [{ type: 'text', text: 'x' }] }),
      };
      const server = createServer({
        name: 'w',
        version: '1',
        onError: (error) => reported.push(error),
        tools: Object.entries(handlers).map(([name, f]) => ({
          name,
          handler: ways[way](f) as () => string,
          ...(name === 'mismatch' || name === 'unstructured' ? { outputSchema } : {}),
        })),
      });
      const answer = async (name: string) => (await run(server, modern('tools/call', { name }))).response;
      expect((await answer('ok')).result.content).toEqual([{ type: 'text', text: 'fine' }]);
      expect((await answer('fail')).result).toMatchObject({
        isError: true,
        content: [{ text: 'disk on fire' }],
      });
      expect((await answer('refuse')).error).toMatchObject({ code: -32602, message: 'no such thing' });
      expect((await answer('shapeless')).result).toMatchObject({ isError: true });
      expect((await answer('mismatch')).error.message).toContain('does not match its outputSchema');
      expect((await answer('unstructured')).error.message).toContain('returned no structuredContent');
      // The handler's own failures (fail, shapeless) and the two -32603s are reported; the ProtocolError is not.
      expect(reported).toHaveLength(4);
    },
  );

  it('refuses a call needing an undeclared client capability with -32021', async () => {
    const asking = createServer({
      name: 'a',
      version: '1',
      tools: [{ name: 'ask', requiredClientCapabilities: { elicitation: {} }, handler: () => 'ok' }],
    });
    const refused = await run(asking, modern('tools/call', { name: 'ask' }));
    expectResponse(MODERN, 'tools/call', refused.response);
    expect(refused.response.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: {} } },
    });
    const declared = await run(
      asking,
      modern(
        'tools/call',
        { name: 'ask' },
        { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
      ),
    );
    expect(declared.response.result.content[0].text).toBe('ok');
  });
});

describe('handler context', () => {
  it('reports strictly increasing progress as notifications before the response, only with a progressToken', async () => {
    const seen: unknown[] = [];
    const runtime = createServer({
      name: 'p',
      version: '1',
      tools: [
        {
          name: 'work',
          handler: (_args, ctx) => {
            seen.push(ctx.canReportProgress);
            ctx.progress(1, 3, 'one');
            ctx.progress(2, 3);
            expect(() => ctx.progress(2)).toThrow(RangeError);
            return 'done';
          },
        },
      ],
    });
    const withToken = await run(runtime, modern('tools/call', { name: 'work' }, { progressToken: 'tok' }));
    expect(withToken.outcome.type).toBe('stream');
    expect(withToken.notifications).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 1, total: 3, message: 'one' },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 2, total: 3 },
      },
    ]);
    expect(withToken.response.result.content[0].text).toBe('done');
    const without = await run(runtime, modern('tools/call', { name: 'work' }));
    expect(without.outcome.type).toBe('response');
    expect(seen).toEqual([true, false]);
  });

  it('buffers at most maxStreamBuffer notifications for a reader that has not read yet, never dropping the response', async () => {
    const runtime = createServer({
      name: 'p',
      version: '1',
      tools: [
        {
          name: 'burst',
          handler: (_args, ctx) => {
            for (let i = 1; i <= 10; i++) ctx.progress(i);
            return 'done';
          },
        },
      ],
    });
    const request = () => modern('tools/call', { name: 'burst' }, { progressToken: 1 });
    const atLimit = await run(runtime, request(), { maxStreamBuffer: 10 });
    expect(atLimit.notifications).toHaveLength(10);
    const bounded = await run(runtime, request(), { maxStreamBuffer: 9 });
    expect(bounded.notifications.map((n: any) => n.params.progress)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(bounded.response.result.content[0].text).toBe('done');
  });

  it('passes the signal, capabilities, revision and principal to the handler', async () => {
    let captured: any;
    const runtime = createServer({
      name: 'c',
      version: '1',
      tools: [
        {
          name: 'who',
          handler: (_a, ctx) => {
            captured = ctx;
            return 'ok';
          },
        },
      ],
    });
    const controller = new AbortController();
    await run(
      runtime,
      modern('tools/call', { name: 'who' }, { 'io.modelcontextprotocol/clientCapabilities': { roots: {} } }),
      {
        signal: controller.signal,
        auth: { principal: 'alice' },
      },
    );
    expect(captured.signal).toBe(controller.signal);
    expect(captured.clientCapabilities).toEqual({ roots: {} });
    expect(captured.protocolVersion).toBe(MODERN);
    expect(captured.auth.principal).toBe('alice');
  });

  it('sends log messages at or above the requested level only', async () => {
    const runtime = createServer({
      name: 'l',
      version: '1',
      tools: [
        {
          name: 'chatty',
          handler: (_a, ctx) => {
            ctx.log('debug', 'hidden');
            ctx.log('warning', 'shown', 'disk');
            return 'ok';
          },
        },
      ],
    });
    const logged = await run(
      runtime,
      modern('tools/call', { name: 'chatty' }, { 'io.modelcontextprotocol/logLevel': 'info' }),
    );
    expect(logged.notifications).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'warning', data: 'shown', logger: 'disk' },
      },
    ]);
    const silent = await run(runtime, modern('tools/call', { name: 'chatty' }));
    expect(silent.notifications).toEqual([]);
  });
});

describe('instructions', () => {
  it('are a string or a function of the request', async () => {
    const fixed = await run(demoServer(), modern('server/discover'));
    expect(fixed.response.result.instructions).toBe('Use echo to repeat text.');
    const computed = demoServer({
      instructions: (ctx) => `for ${ctx.auth?.principal} on ${ctx.protocolVersion}`,
    });
    const discovered = await run(computed, modern('server/discover'), { auth: { principal: 'bob' } });
    expect(discovered.response.result.instructions).toBe(`for bob on ${MODERN}`);
    const initialized = await run(computed, initialize('2025-06-18'), { auth: { principal: 'eve' } });
    expect(initialized.response.result.instructions).toBe('for eve on 2025-06-18');
  });
});

describe('definitions are checked once, at createServer', () => {
  it('refuses bad tool names, duplicates, non-object schemas and bad options', () => {
    const make =
      (tools: any[], extra = {}) =>
      () =>
        createServer({ name: 's', version: '1', tools, ...extra });
    expect(make([{ name: 'has space', handler: () => '' }])).toThrow(/tool name "has space" is invalid/);
    expect(
      make([
        { name: 'a', handler: () => '' },
        { name: 'a', handler: () => '' },
      ]),
    ).toThrow(/duplicate tool name "a"/);
    expect(make([{ name: 'a', inputSchema: z.string(), handler: () => '' }])).toThrow(/type "object"/);
    expect(make([{ name: 'a' }])).toThrow(/handler must be a function/);
    expect(make([], { pageSize: 0 })).toThrow(/pageSize must be a positive integer, got 0/);
    expect(make([], { cache: { cacheScope: 'shared' } })).toThrow(
      /cache.cacheScope must be one of "public", "private"/,
    );
    expect(make([], { protocolVersions: ['2024-11-05'] })).toThrow(/unknown revision/);
    try {
      make([{ name: '' }])();
    } catch (error) {
      expect(SnodoError.is(error)).toBe(true);
      expect((error as SnodoError).code).toBe('SNODO_ERR_INVALID_DEFINITION');
    }
  });
});

describe('tools on the initialize-based revisions', () => {
  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
    '%s: list and call, shaped for the revision',
    async (version) => {
      const runtime = demoServer();
      const init = await run(runtime, initialize(version));
      expectResponse(version, 'initialize', init.response);
      const session = (init.outcome as { session: any }).session;
      expect(session.protocolVersion).toBe(version);
      const list = await run(runtime, legacy('tools/list'), { session });
      expectResponse(version, 'tools/list', list.response);
      expect(list.response.result.resultType).toBeUndefined();
      expect(list.response.result.ttlMs).toBeUndefined();
      const add = list.response.result.tools.find((t: { name: string }) => t.name === 'add');
      const echo = list.response.result.tools.find((t: { name: string }) => t.name === 'echo');
      const call = await run(runtime, legacy('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }), {
        session,
      });
      expectResponse(version, 'tools/call', call.response);
      if (version === '2025-03-26') {
        expect(add.outputSchema).toBeUndefined();
        expect(echo.title).toBeUndefined();
        expect(call.response.result.structuredContent).toBeUndefined();
      } else {
        expect(add.outputSchema).toBeDefined();
        expect(echo.title).toBe('Echo');
        expect(call.response.result.structuredContent).toEqual({ sum: 3 });
      }
      expect(call.response.result.content).toEqual([{ type: 'text', text: '{"sum":3}' }]);
    },
  );
});

describe('arguments that fail the input schema (SEP-1303 from 2025-11-25 on)', () => {
  /** Runs one message at `version`: statelessly on 2026-07-28, in a fresh session before. */
  async function call(version: string, params: Record<string, unknown>) {
    const runtime = demoServer();
    if (version === MODERN) return (await run(runtime, modern('tools/call', params))).response;
    const init = await run(runtime, initialize(version));
    const session = (init.outcome as { session: any }).session;
    return (await run(runtime, legacy('tools/call', params), { session })).response;
  }

  it.each([MODERN, '2025-11-25'])(
    '%s: an isError result whose text names each failing path (zod and JSON Schema)',
    async (version) => {
      const zod = await call(version, { name: 'echo', arguments: { text: 7 } });
      expect(zod.error).toBeUndefined();
      expect(zod.result.isError).toBe(true);
      expect(zod.result.content).toHaveLength(1);
      expect(zod.result.content[0].type).toBe('text');
      expect(zod.result.content[0].text).toMatch(/^Invalid arguments for tool "echo": \/text: /);
      const json = await call(version, { name: 'add', arguments: { a: 'x', b: 'y' } });
      expect(json.result.isError).toBe(true);
      expect(json.result.content[0].text).toContain('/a: ');
      expect(json.result.content[0].text).toContain('/b: ');
      // An isError result carries no structuredContent, even for a tool with an outputSchema.
      expect(json.result.structuredContent).toBeUndefined();
    },
  );

  it.each(['2025-06-18', '2025-03-26'])(
    '%s: -32602 with data.issues[].path, as that revision lists invalid arguments',
    async (version) => {
      const zod = await call(version, { name: 'echo', arguments: { text: 7 } });
      expect(zod.error.code).toBe(ErrorCode.InvalidParams);
      expect(zod.error.data.issues[0].path).toBe('/text');
      const json = await call(version, { name: 'add', arguments: { a: 1, b: 'x' } });
      expect(json.error.code).toBe(ErrorCode.InvalidParams);
      expect(json.error.data.issues.map((i: { path: string }) => i.path)).toContain('/b');
    },
  );

  it('-32602 reports at most 20 issues (20 failing properties: 20, 21: 20)', async () => {
    for (const failing of [20, 21]) {
      const properties = Object.fromEntries(
        Array.from({ length: failing }, (_, i) => [`p${i}`, { type: 'string' }]),
      );
      const runtime = createServer({
        name: 'many',
        version: '1',
        tools: [{ name: 'many', inputSchema: { type: 'object', properties }, handler: () => 'ok' }],
      });
      const init = await run(runtime, initialize('2025-06-18'));
      const session = (init.outcome as { session: any }).session;
      const args = Object.fromEntries(Object.keys(properties).map((key) => [key, 1]));
      const { response } = await run(runtime, legacy('tools/call', { name: 'many', arguments: args }), {
        session,
      });
      expect(response.error.data.issues).toHaveLength(20);
      expect(response.error.message).toMatch(new RegExp(`; and ${failing - 5} more$`));
    }
  });

  it.each([MODERN, '2025-11-25', '2025-06-18', '2025-03-26'])(
    '%s: an unknown tool and arguments that are not an object stay -32602',
    async (version) => {
      expect((await call(version, { name: 'nope', arguments: {} })).error.code).toBe(ErrorCode.InvalidParams);
      expect((await call(version, { name: 'add', arguments: [1, 2] })).error.code).toBe(
        ErrorCode.InvalidParams,
      );
      expect((await call(version, { name: 42 })).error.code).toBe(ErrorCode.InvalidParams);
    },
  );
});

describe('a tool whose outputSchema is not an object schema', () => {
  const runtime = createServer({
    name: 'array-output',
    version: '1.0.0',
    tools: [
      {
        name: 'numbers',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'array', items: { type: 'number' } },
        handler: () => ({ content: [], structuredContent: [1, 2] }),
      },
    ],
  });

  it('keeps it on 2026-07-28', async () => {
    const list = await run(runtime, modern('tools/list'));
    expectResponse(MODERN, 'tools/list', list.response);
    expect(list.response.result.tools[0].outputSchema).toEqual({ type: 'array', items: { type: 'number' } });
  });

  it.each(['2025-11-25', '2025-06-18'])(
    '%s: is listed without it, since that schema types outputSchema as an object',
    async (version) => {
      const init = await run(runtime, initialize(version));
      const session = (init.outcome as { session: any }).session;
      const list = await run(runtime, legacy('tools/list'), { session });
      expectResponse(version, 'tools/list', list.response);
      expect(list.response.result.tools[0].name).toBe('numbers');
      expect('outputSchema' in list.response.result.tools[0]).toBe(false);
    },
  );
});

describe('requiredClientCapabilities on the initialize-based revisions', () => {
  const asking = createServer({
    name: 'a',
    version: '1',
    tools: [{ name: 'ask', requiredClientCapabilities: { sampling: {} }, handler: () => 'ok' }],
  });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
    '%s: -32021 unless the session declared the capability at initialize',
    async (version) => {
      const bare = (await run(asking, initialize(version))).outcome as { session: any };
      const refused = await run(asking, legacy('tools/call', { name: 'ask' }), { session: bare.session });
      expect(refused.response.error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { sampling: {} } },
      });
      const declaring = (await run(asking, initialize(version, { sampling: {} }))).outcome as {
        session: any;
      };
      const served = await run(asking, legacy('tools/call', { name: 'ask' }), { session: declaring.session });
      expect(served.response.result.content[0].text).toBe('ok');
    },
  );
});
