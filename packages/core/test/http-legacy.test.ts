import { describe, expect, it } from 'vitest';
import {
  createServer,
  Executor,
  isStreamResponse,
  MemorySessionStore,
  resolveHttpOptions,
  tool,
} from '../src/index.js';
import { createSession } from '../src/internal.js';
import {
  handle,
  httpRequest,
  httpServer,
  LEGACY_HEADERS,
  modernMessage,
  newProbe,
  parseSse,
  post,
  postModern,
  read,
  textStream,
} from './http-helpers.js';

let nextId = 1000;
const initialize = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: nextId++,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'legacy-test', version: '0' } },
});
const request = (method: string, params?: Record<string, unknown>) =>
  params === undefined
    ? { jsonrpc: '2.0', id: nextId++, method }
    : { jsonrpc: '2.0', id: nextId++, method, params };

/** Opens a session and returns the headers later requests carry. */
async function open(runtime: ReturnType<typeof httpServer>, options: object, version: string) {
  const answer = await post(runtime, initialize(version), LEGACY_HEADERS, options);
  expect(answer.status).toBe(200);
  const sessionId = answer.headers['mcp-session-id'] as string;
  const headers: Record<string, string> = { ...LEGACY_HEADERS, 'mcp-session-id': sessionId };
  if (version !== '2025-03-26') headers['mcp-protocol-version'] = version;
  return { sessionId, headers, answer };
}

describe.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
  'initialize-based revision %s over HTTP',
  (version) => {
    const runtime = httpServer();

    it('initialize mints a random visible-ASCII Mcp-Session-Id of at least 128 bits', async () => {
      const options = {};
      const first = await open(runtime, options, version);
      const second = await open(runtime, options, version);
      expect(first.answer.body.result.protocolVersion).toBe(version);
      expect(first.sessionId).toMatch(/^[\x21-\x7e]{22,}$/);
      expect(first.sessionId).not.toBe(second.sessionId);
    });

    it('serves requests carrying the session; notifications get 202', async () => {
      const options = {};
      const { headers } = await open(runtime, options, version);
      const initialized = await post(
        runtime,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        headers,
        options,
      );
      expect(initialized.status).toBe(202);
      expect(initialized.text).toBe('');
      const list = await post(runtime, request('tools/list'), headers, options);
      expect(list.status).toBe(200);
      expect(list.body.result.tools.length).toBeGreaterThan(0);
      expect(list.body.result.resultType).toBeUndefined();
    });

    it('a request without Mcp-Session-Id gets 400', async () => {
      const answer = await post(runtime, request('tools/list'), LEGACY_HEADERS, {});
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe(-32600);
    });

    it('an unknown session id gets 404', async () => {
      const answer = await post(
        runtime,
        request('tools/list'),
        { ...LEGACY_HEADERS, 'mcp-session-id': 'nope' },
        {},
      );
      expect(answer.status).toBe(404);
    });

    it('DELETE ends the session (204); the id then gets 404', async () => {
      const options = {};
      const { headers } = await open(runtime, options, version);
      const deleted = await read(await handle(runtime, httpRequest({ method: 'DELETE', headers }), options));
      expect(deleted.status).toBe(204);
      expect((await post(runtime, request('tools/list'), headers, options)).status).toBe(404);
      const again = await read(await handle(runtime, httpRequest({ method: 'DELETE', headers }), options));
      expect(again.status).toBe(404);
    });

    it('JSON-RPC errors are ordinary results on this revision: -32601 is 200', async () => {
      const options = {};
      const { headers } = await open(runtime, options, version);
      const answer = await post(runtime, request('foo/bar'), headers, options);
      expect(answer.status).toBe(200);
      expect(answer.body.error.code).toBe(-32601);
    });

    it('a client response nobody waits for gets 400 -32600, not 202', async () => {
      const options = {};
      const { headers } = await open(runtime, options, version);
      const answer = await post(runtime, { jsonrpc: '2.0', id: 'srv-1', result: {} }, headers, options);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe(-32600);
    });

    it('a notifications/cancelled that cancels nothing gets 400 -32602, not 202', async () => {
      const options = {};
      const { headers } = await open(runtime, options, version);
      const cancel = {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 'never-sent' },
      };
      const answer = await post(runtime, cancel, headers, options);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe(-32602);
    });

    it('a MCP-Protocol-Version naming no revision served gets 400 -32022', async () => {
      const options = {};
      const { headers } = await open(runtime, options, version);
      const answer = await post(
        runtime,
        request('tools/list'),
        { ...headers, 'mcp-protocol-version': '1999-01-01' },
        options,
      );
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe(-32022);
    });

    it('GET with the session but without Accept: text/event-stream is 406', async () => {
      const options = {};
      const { headers } = await open(runtime, options, version);
      const answer = await read(
        await handle(
          runtime,
          httpRequest({ method: 'GET', headers: { ...headers, accept: 'application/json' } }),
          options,
        ),
      );
      expect(answer.status).toBe(406);
    });
  },
);

describe('MCP-Protocol-Version after initialize', () => {
  // The 2025-06-18 transport: a server without the header and with "no other way to identify the
  // version" assumes 2025-03-26; a session's negotiated revision is such a way, so it serves.
  const runtime = createServer({
    name: 'revision',
    version: '1.0.0',
    tools: [tool({ name: 'revision', handler: (_args, context) => context.protocolVersion })],
  });
  const revisionOf = (answer: { body: { result?: { content?: { text: string }[] } } }) =>
    answer.body.result?.content?.[0]?.text;

  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
    'absent on %s: the request is served at the session’s revision',
    async (version) => {
      const options = {};
      const { headers } = await open(runtime, options, version);
      const without = { ...headers, 'mcp-protocol-version': undefined };
      const answer = await post(runtime, request('tools/call', { name: 'revision' }), without, options);
      expect(answer.status).toBe(200);
      expect(revisionOf(answer)).toBe(version);
      const note = { jsonrpc: '2.0', method: 'notifications/initialized' };
      expect((await post(runtime, note, without, options)).status).toBe(202);
      const deleted = await handle(runtime, httpRequest({ method: 'DELETE', headers: without }), options);
      expect(deleted.status).toBe(204);
    },
  );

  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
    'present on %s and naming another served revision: still the session’s revision (conformance 0.1.16 sends 2025-03-26)',
    async (version) => {
      const options = {};
      const { headers } = await open(runtime, options, version);
      for (const other of ['2025-11-25', '2025-06-18', '2025-03-26'].filter((v) => v !== version)) {
        const answer = await post(
          runtime,
          request('tools/call', { name: 'revision' }),
          { ...headers, 'mcp-protocol-version': other },
          options,
        );
        expect(answer.status).toBe(200);
        expect(revisionOf(answer)).toBe(version);
      }
    },
  );

  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
    'present on %s and naming no revision served here: 400 -32022 {supported, requested}, on POST, GET and DELETE',
    async (version) => {
      const options = {};
      const only = createServer({
        name: 'only',
        version: '1.0.0',
        protocolVersions: [version as '2025-11-25'],
        tools: [tool({ name: 'revision', handler: (_args, context) => context.protocolVersion })],
      });
      const { headers } = await open(only, options, version);
      for (const other of [version === '2025-06-18' ? '2025-11-25' : '2025-06-18', 'not-a-version']) {
        const wrong = { ...headers, 'mcp-protocol-version': other };
        const answer = await post(only, request('tools/call', { name: 'revision' }), wrong, options);
        expect(answer.status).toBe(400);
        expect(answer.body.error).toMatchObject({
          code: -32022,
          data: { supported: [version], requested: other },
        });
        const streamHeaders = { ...wrong, accept: 'text/event-stream' };
        for (const method of ['GET', 'DELETE']) {
          const refused = await read(
            await handle(only, httpRequest({ method, headers: streamHeaders }), options),
          );
          expect(refused.status).toBe(400);
          expect(refused.body.error.code).toBe(-32022);
        }
      }
    },
  );

  it('present and equal on 2025-03-26 (whose clients need not send it) is served', async () => {
    const options = {};
    const { headers } = await open(runtime, options, '2025-03-26');
    expect(headers['mcp-protocol-version']).toBeUndefined();
    const answer = await post(
      runtime,
      request('tools/call', { name: 'revision' }),
      { ...headers, 'mcp-protocol-version': '2025-03-26' },
      options,
    );
    expect(revisionOf(answer)).toBe('2025-03-26');
  });
});

describe('JSON-RPC batches', () => {
  const runtime = httpServer();

  it('are served on 2025-03-26, one response per request, in order', async () => {
    const options = {};
    const { headers } = await open(runtime, options, '2025-03-26');
    const batch = [
      request('tools/call', { name: 'echo', arguments: { text: 'a' } }),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      request('tools/call', { name: 'echo', arguments: { text: 'b' } }),
    ];
    const answer = await post(runtime, batch, headers, options);
    expect(answer.status).toBe(200);
    expect(answer.body.map((r: any) => r.result.content[0].text)).toEqual(['a', 'b']);
  });

  it('of notifications only get 202', async () => {
    const options = {};
    const { headers } = await open(runtime, options, '2025-03-26');
    const answer = await post(
      runtime,
      [{ jsonrpc: '2.0', method: 'notifications/initialized' }],
      headers,
      options,
    );
    expect(answer.status).toBe(202);
  });

  it('are refused on 2025-06-18 with 400 and -32600', async () => {
    const options = {};
    const { headers } = await open(runtime, options, '2025-06-18');
    const answer = await post(runtime, [request('tools/list')], headers, options);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32600);
  });

  it('without a session get 400', async () => {
    expect((await post(runtime, [request('tools/list')], LEGACY_HEADERS, {})).status).toBe(400);
  });
});

describe('server-initiated requests on the initialize-based revisions', () => {
  it('go on the request’s SSE stream; the client’s answer (a POST, 202) resumes the handler', async () => {
    const runtime = httpServer();
    const options = resolveHttpOptions({});
    const init = await post(
      runtime,
      {
        jsonrpc: '2.0',
        id: nextId++,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: { elicitation: {} },
          clientInfo: { name: 'c', version: '0' },
        },
      },
      LEGACY_HEADERS,
      options,
    );
    const headers = {
      ...LEGACY_HEADERS,
      'mcp-session-id': init.headers['mcp-session-id'] as string,
      'mcp-protocol-version': '2025-06-18',
    };
    const call = request('tools/call', { name: 'ask', arguments: {} });
    const response = await handle(runtime, httpRequest({ headers, body: JSON.stringify(call) }), options);
    if (!isStreamResponse(response)) throw new Error('expected a stream');
    const iterator = textStream(response)[Symbol.asyncIterator]();
    const [asked] = parseSse((await iterator.next()).value as string);
    expect(asked).toMatchObject({ method: 'elicitation/create', params: { message: 'Name?' } });
    const answer = { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' } } };
    expect((await post(runtime, answer, headers, options)).status).toBe(202);
    const [final] = parseSse((await iterator.next()).value as string);
    expect(final).toMatchObject({ id: call.id, result: { content: [{ text: 'Hello, Ada!' }] } });
    expect((await iterator.next()).done).toBe(true);
  });
});

describe('cancellation on the initialize-based revisions', () => {
  it('a disconnect does not cancel; notifications/cancelled does', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const options = resolveHttpOptions({});
    const { headers } = await open(runtime, options, '2025-06-18');
    const client = new AbortController();
    const call = request('tools/call', { name: 'sleep', arguments: {} });
    const pending = handle(
      runtime,
      httpRequest({ headers, body: JSON.stringify(call), signal: client.signal }),
      options,
    );
    const handlerSignal = await probe.sleeping.promise;
    client.abort();
    expect(handlerSignal.aborted).toBe(false);
    expect(options.local.running).toBe(1);
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.id } };
    expect((await post(runtime, cancel, headers, options)).status).toBe(202);
    await probe.sleepAborted.promise;
    expect(handlerSignal.aborted).toBe(true);
    const answer = await read(await pending);
    expect(answer.events).toEqual([]);
    expect(options.local.running).toBe(0);
  });

  it('DELETE of the session stops its running requests', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const options = resolveHttpOptions({});
    const { headers } = await open(runtime, options, '2025-06-18');
    const call = request('tools/call', { name: 'sleep', arguments: {} });
    const pending = handle(runtime, httpRequest({ headers, body: JSON.stringify(call) }), options);
    const handlerSignal = await probe.sleeping.promise;
    await handle(runtime, httpRequest({ method: 'DELETE', headers }), options);
    expect(handlerSignal.aborted).toBe(true);
    await pending;
  });
});

describe('a session store that fails', () => {
  it('while initialize stores the new session: the failure is the host’s (handle rejects, a host answers 500), never a 200 without a session', async () => {
    const sessionStore = {
      get: () => undefined,
      set: () => Promise.reject(new Error('store down')),
      delete: () => undefined,
    };
    await expect(
      post(httpServer(), initialize('2025-06-18'), LEGACY_HEADERS, { sessionStore }),
    ).rejects.toThrow('store down');
  });
});

describe('MemorySessionStore', () => {
  const session = createSession('2025-06-18', {}, undefined);

  it('evicts the least recently used session when full', () => {
    const store = new MemorySessionStore({ maxSessions: 2 });
    store.set('a', session);
    store.set('b', session);
    store.get('a');
    store.set('c', session);
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toBe(session);
    expect(store.get('c')).toBe(session);
    expect(store.size).toBe(2);
  });

  it('forgets a session idle for sessionIdleTimeout; use renews it', () => {
    let now = 0;
    const store = new MemorySessionStore({ sessionIdleTimeout: 100, now: () => now });
    store.set('a', session);
    store.set('b', session);
    now = 99;
    expect(store.get('a')).toBe(session);
    now = 150;
    expect(store.get('a')).toBe(session);
    expect(store.get('b')).toBeUndefined();
    now = 250;
    expect(store.get('a')).toBeUndefined();
  });

  it('an expired session gets 404 over HTTP', async () => {
    let now = 0;
    const runtime = httpServer();
    const options = { sessionStore: new MemorySessionStore({ sessionIdleTimeout: 10, now: () => now }) };
    const { headers } = await open(runtime, options, '2025-06-18');
    now = 20;
    expect((await post(runtime, request('tools/list'), headers, options)).status).toBe(404);
  });

  it('a custom store may be async', async () => {
    const map = new Map<string, typeof session>();
    const sessionStore = {
      get: async (id: string) => map.get(id),
      set: async (id: string, value: typeof session) => {
        map.set(id, value);
      },
      delete: async (id: string) => {
        map.delete(id);
      },
    };
    const runtime = httpServer();
    const options = { sessionStore };
    const { headers } = await open(runtime, options, '2025-06-18');
    expect(map.size).toBe(1);
    expect((await post(runtime, request('tools/list'), headers, options)).status).toBe(200);
  });

  it('options of the default store cannot be combined with a custom store', () => {
    expect(() => resolveHttpOptions({ sessionStore: new MemorySessionStore(), maxSessions: 3 })).toThrow(
      /maxSessions/,
    );
  });
});

describe('initialize over HTTP and the request options', () => {
  it('honours requestTimeout while it waits for a slot: -32001, not an unbounded wait', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const executor = new Executor({ maxConcurrency: 1, maxQueue: 4 });
    const options = { executor, requestTimeout: 50 };
    const patient = { executor }; // the executor's own 60 s deadline
    // The one slot is held by a 2026-07-28 call that waits for the probe.
    const holding = postModern(
      runtime,
      modernMessage('tools/call', { name: 'wait', arguments: {} }),
      patient,
    );
    await expect.poll(() => executor.stats().running).toBe(1);
    const answer = await post(runtime, initialize('2025-06-18'), LEGACY_HEADERS, options);
    expect(answer.body.error.code).toBe(-32001);
    expect(executor.stats().timedOut).toBe(1);
    probe.release.open();
    expect((await holding).status).toBe(200);
  });
});
