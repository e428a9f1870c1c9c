import { createGunzip, gzipSync } from 'node:zlib';
import { createHttpHandler, Executor, isStreamResponse, SnodoError } from '@snodo/core';
import Fastify from 'fastify';
import { fastifyPlugin } from 'fastify-plugin';
import { afterEach, describe, expect, it } from 'vitest';
import { PLUGIN_NAME, type SnodoFastifyOptions, snodo } from '../src/index.js';
import { bearer, modern, Probe, sseMessages, testApp, testServer, toolCall } from './helpers.js';

const apps: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});
async function app(...args: Parameters<typeof testApp>) {
  const instance = await testApp(...args);
  apps.push(instance);
  return instance;
}

describe('routing and coexistence', () => {
  it('serves the route under the prefix of the scope it is registered in, and nowhere else', async () => {
    const probe = new Probe();
    const server = await app({}, {}, probe);
    const call = toolCall('whoami');
    const served = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...call.headers, ...bearer() },
      payload: call.body,
    });
    expect(served.statusCode).toBe(200);
    expect(served.json()).toMatchObject({ id: call.id, result: { content: [{ text: 'alice' }] } });
    const unprefixed = await server.inject({
      method: 'POST',
      url: '/mcp',
      headers: call.headers,
      payload: call.body,
    });
    expect(unprefixed.statusCode).toBe(404);
    expect(probe.calls).toBe(1);
  });

  it("adds the register call's own prefix, and `path` picks the route inside it", async () => {
    const server = Fastify();
    apps.push(server);
    await server.register(snodo, { runtime: testServer(), prefix: '/v1', path: '/rpc' });
    const call = toolCall('whoami');
    const served = await server.inject({
      method: 'POST',
      url: '/v1/rpc',
      headers: call.headers,
      payload: call.body,
    });
    expect(served.json()).toMatchObject({ result: { content: [{ text: 'anonymous' }] } });
    expect((await server.inject({ method: 'POST', url: '/v1/mcp', payload: call.body })).statusCode).toBe(
      404,
    );
  });

  it('defaults path to /mcp', async () => {
    const server = Fastify();
    apps.push(server);
    await server.register(snodo, { runtime: testServer() });
    const call = toolCall('whoami');
    const served = await server.inject({
      method: 'POST',
      url: '/mcp',
      headers: call.headers,
      payload: call.body,
    });
    expect(served.statusCode).toBe(200);
  });

  it("leaves the application's JSON parsing on every other route, in the same scope too", async () => {
    const server = await app();
    const parsed = await server.inject({
      method: 'POST',
      url: '/api/echo',
      headers: { ...bearer(), 'content-type': 'application/json' },
      payload: '{"a":[1,2,{"b":null}]}',
    });
    expect(parsed.json()).toEqual({ parsed: { a: [1, 2, { b: null }] } });
    const invalid = await server.inject({
      method: 'POST',
      url: '/api/echo',
      headers: { ...bearer(), 'content-type': 'application/json' },
      payload: '{"a":',
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().code).toBe('FST_ERR_CTP_INVALID_JSON_BODY');
    // text/plain has Fastify's parser elsewhere; on the MCP route core answers with its JSON-RPC 415.
    const text = await server.inject({
      method: 'POST',
      url: '/api/echo',
      headers: { ...bearer(), 'content-type': 'text/plain' },
      payload: 'hi',
    });
    expect(text.json()).toEqual({ parsed: 'hi' });
    const mcpText = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...toolCall('whoami').headers, ...bearer(), 'content-type': 'text/plain' },
      payload: 'hi',
    });
    expect(mcpText.statusCode).toBe(415);
    expect(mcpText.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it('hands core the raw bytes: a big-integer id comes back digit for digit', async () => {
    const server = await app();
    const call = toolCall('whoami');
    const payload = call.body.replace(`"id":${call.id}`, '"id":9223372036854775807');
    const served = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...call.headers, ...bearer() },
      payload,
    });
    expect(served.body).toContain('"id":9223372036854775807,');
  });

  it("passes core's refusals through unchanged: status, headers and JSON-RPC body", async () => {
    const runtime = testServer();
    const server = Fastify();
    apps.push(server);
    await server.register(snodo, { runtime });
    const cases: {
      method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
      headers: Record<string, string>;
      body?: string;
    }[] = [
      { method: 'GET', headers: { accept: 'text/event-stream' } },
      { method: 'PUT', headers: {}, body: '{}' },
      { method: 'PATCH', headers: {}, body: '{}' },
      { method: 'DELETE', headers: {} },
      { method: 'POST', headers: { ...toolCall('whoami').headers, accept: 'application/json' }, body: '{}' },
      {
        method: 'POST',
        headers: { ...toolCall('whoami').headers, 'mcp-method': 'tools/list' },
        body: toolCall('whoami').body,
      },
    ];
    for (const { method, headers, body } of cases) {
      const expected = await createHttpHandler(runtime).handle({
        method,
        path: '/mcp',
        headers,
        body: new TextEncoder().encode(body ?? ''),
        signal: new AbortController().signal,
      });
      if (isStreamResponse(expected)) throw new Error('expected a JSON refusal');
      expect(expected.status).toBeGreaterThanOrEqual(400);
      const got = await server.inject({
        method,
        url: '/mcp',
        headers,
        ...(body === undefined ? {} : { payload: body }),
      });
      expect(got.statusCode).toBe(expected.status);
      for (const [name, value] of Object.entries(expected.headers)) {
        expect(got.headers[name], name).toBe(value);
      }
      expect(got.body).toBe(expected.body);
    }
  });

  it('keeps its parser and @fastify/sse inside its own context, under its own name', async () => {
    const server = Fastify();
    apps.push(server);
    await server.register(snodo, { runtime: testServer() });
    // A plugin declaring the dependency loads after it.
    await server.register(fastifyPlugin(async () => {}, { name: 'needs-mcp', dependencies: [PLUGIN_NAME] }));
    await server.ready();
    expect(server.hasPlugin(PLUGIN_NAME)).toBe(true);
    expect(server.hasContentTypeParser('application/json')).toBe(true);
    expect(server.hasPlugin('@fastify/sse')).toBe(false);
  });
});

describe('identity from the application', () => {
  it('a request the hook refuses (401, 403) never reaches core', async () => {
    const probe = new Probe();
    const executor = new Executor();
    const server = await app({ executor }, {}, probe);
    const call = toolCall('whoami');
    const missing = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: call.headers,
      payload: call.body,
    });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({ error: 'unauthorized' });
    const wrong = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...call.headers, ...bearer('mallory') },
      payload: call.body,
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json()).toEqual({ error: 'forbidden' });
    expect(probe.calls).toBe(0);
    const { completed, rejected, cancelled, timedOut } = executor.stats();
    expect({ completed, rejected, cancelled, timedOut }).toEqual({
      completed: 0,
      rejected: 0,
      cancelled: 0,
      timedOut: 0,
    });
  });

  it('the principal the hook verified reaches the handler; headers cannot claim one', async () => {
    const server = await app();
    for (const [token, principal] of [
      ['alice-token', 'alice'],
      ['bob-token', 'bob'],
    ] as const) {
      const call = toolCall('whoami');
      const served = await server.inject({
        method: 'POST',
        url: '/api/mcp',
        headers: { ...call.headers, ...bearer(token), 'x-mcp-principal': 'root', principal: 'root' },
        payload: call.body,
      });
      expect(served.json().result.content[0].text).toBe(principal);
    }
  });

  it('takes the identity a preHandler hook of the application sets, as from onRequest', async () => {
    const server = Fastify();
    apps.push(server);
    await server.register(async (api) => {
      api.addHook('preHandler', async (request, reply) => {
        if (request.headers.authorization !== 'Bearer carol-token') {
          return reply.code(401).send({ error: 'unauthorized' });
        }
        request.mcpAuth = { principal: 'carol' };
      });
      await api.register(snodo, { runtime: testServer() });
    });
    const call = toolCall('whoami');
    const served = await server.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...call.headers, authorization: 'Bearer carol-token' },
      payload: call.body,
    });
    expect(served.json().result.content[0].text).toBe('carol');
    const denied = await server.inject({
      method: 'POST',
      url: '/mcp',
      headers: call.headers,
      payload: call.body,
    });
    expect(denied.statusCode).toBe(401);
  });

  it('binds MRTR state to the principal: bob cannot finish what alice was asked', async () => {
    const server = await app();
    const meta = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const post = (token: string, params: Record<string, unknown>) => {
      const request = modern('tools/call', { name: 'ask', arguments: {}, ...params }, meta);
      return server.inject({
        method: 'POST',
        url: '/api/mcp',
        headers: { ...request.headers, ...bearer(token) },
        payload: request.body,
      });
    };
    const asked = (await post('alice-token', {})).json();
    expect(asked.result.resultType).toBe('input_required');
    const answer = {
      requestState: asked.result.requestState,
      inputResponses: { elicit: { action: 'accept', content: { name: 'Ada' } } },
    };
    const byBob = (await post('bob-token', answer)).json();
    expect(byBob.error).toMatchObject({ code: -32602 });
    expect(byBob.error.message).toMatch(/different principal/);
    const byAlice = (await post('alice-token', answer)).json();
    expect(byAlice.result.content[0].text).toBe('Hello, Ada');
  });
});

describe('requestTimeout', () => {
  it('a request past its deadline is aborted and answered with -32001', async () => {
    const probe = new Probe();
    const server = await app({ requestTimeout: 50 }, {}, probe);
    const call = toolCall('block');
    const answered = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...call.headers, ...bearer() },
      payload: call.body,
    });
    expect(answered.statusCode).toBe(200);
    expect(answered.json()).toMatchObject({ error: { code: -32001 } });
    await probe.blockAborted.promise;
    expect((await probe.blocked.promise).aborted).toBe(true);
  });
});

describe('cross-request cancellation', () => {
  it('notifications/cancelled stops a request of the same client instance only', async () => {
    const probe = new Probe();
    const server = await app({}, {}, probe);
    const call = toolCall('block');
    const running = server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...call.headers, ...bearer('alice-token') },
      payload: call.body,
    });
    const signal = await probe.blocked.promise;
    const cancel = (token: string) => {
      const notification = JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: {
          requestId: call.id,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      });
      return server.inject({
        method: 'POST',
        url: '/api/mcp',
        headers: { ...modern('notifications/cancelled').headers, ...bearer(token) },
        payload: notification,
      });
    };
    // The same user on another device, and another user: accepted, but they cancel nothing.
    for (const token of ['alice-phone-token', 'bob-token']) {
      expect((await cancel(token)).statusCode).toBe(202);
      expect(signal.aborted).toBe(false);
    }
    expect((await cancel('alice-token')).statusCode).toBe(202);
    expect(signal.aborted).toBe(true);
    await probe.blockAborted.promise;
    const answer = await running;
    expect(answer.body).toBe(''); // a cancelled request gets no response
  });
});

describe('body bounds', () => {
  /** A tools/call of `echo` padded with spaces to exactly `size` bytes. */
  function echoOfSize(size: number) {
    const call = toolCall('echo', { text: 'x' });
    expect(size).toBeGreaterThanOrEqual(call.body.length);
    return { ...call, body: call.body + ' '.repeat(size - call.body.length) };
  }

  it('accepts a body of exactly maxBodyBytes (2 MB by default, over Fastify’s 1 MiB bodyLimit)', async () => {
    const server = await app();
    const call = echoOfSize(2_000_000);
    const served = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...call.headers, ...bearer() },
      payload: call.body,
    });
    expect(served.statusCode).toBe(200);
    expect(served.json().result.content[0].text).toBe('x');
  });

  it('refuses one byte more with 413 SNODO_ERR_BODY_TOO_LARGE, keeping the connection (the rest is drained)', async () => {
    const probe = new Probe();
    const server = await app({}, {}, probe);
    const call = echoOfSize(2_000_001);
    const refused = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...call.headers, ...bearer() },
      payload: call.body,
    });
    expect(refused.statusCode).toBe(413);
    expect(refused.headers.connection).toBe('keep-alive');
    expect(refused.json()).toMatchObject({ code: 'SNODO_ERR_BODY_TOO_LARGE', statusCode: 413 });
    expect(probe.calls).toBe(0);
  });

  it('maxBodyBytes is independent of Fastify’s bodyLimit, in both directions', async () => {
    const server = await app({ maxBodyBytes: 500 }, { bodyLimit: 100 });
    const fits = echoOfSize(500);
    const served = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...fits.headers, ...bearer() },
      payload: fits.body,
    });
    expect(served.statusCode).toBe(200);
    const tooBig = echoOfSize(501);
    const refused = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...tooBig.headers, ...bearer() },
      payload: tooBig.body,
    });
    expect(refused.statusCode).toBe(413);
    const json = await server.inject({
      method: 'POST',
      url: '/api/echo',
      headers: { ...bearer(), 'content-type': 'application/json' },
      payload: JSON.stringify({ text: 'y'.repeat(200) }),
    });
    expect(json.json().code).toBe('FST_ERR_CTP_BODY_TOO_LARGE');
  });

  it('counts the bytes an application preParsing hook produces (a decompressed body)', async () => {
    const server = Fastify();
    apps.push(server);
    server.addHook('preParsing', async (request, _reply, payload) => {
      if (request.headers['content-encoding'] !== 'gzip') return payload;
      delete request.headers['content-encoding'];
      return payload.pipe(createGunzip());
    });
    await server.register(snodo, { runtime: testServer(), maxBodyBytes: 1_000 });
    const post = (size: number) => {
      const call = echoOfSize(size);
      return server.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...call.headers, 'content-encoding': 'gzip' },
        payload: gzipSync(call.body),
      });
    };
    const fits = await post(1_000);
    expect(fits.statusCode).toBe(200);
    expect(fits.json().result.content[0].text).toBe('x');
    const over = await post(1_001);
    expect(over.statusCode).toBe(413);
    expect(over.json().code).toBe('SNODO_ERR_BODY_TOO_LARGE');
  });

  it('reads a chunked body (Transfer-Encoding) like one with Content-Length: core answers it', async () => {
    const probe = new Probe();
    const server = await app({}, {}, probe);
    const call = toolCall('whoami');
    const answered = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...call.headers, ...bearer(), 'transfer-encoding': 'chunked' },
      payload: call.body,
    });
    expect(answered.statusCode).toBe(200);
    expect(probe.calls).toBe(1);
  });

  it("routes HTTP-level refusals through the application's error handler", async () => {
    const server = Fastify();
    apps.push(server);
    server.setErrorHandler((error: { code?: string; statusCode?: number }, _request, reply) => {
      reply.code(error.statusCode ?? 500).send({ problem: error.code });
    });
    await server.register(snodo, { runtime: testServer(), maxBodyBytes: 10 });
    const call = toolCall('whoami');
    const refused = await server.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...call.headers, 'transfer-encoding': 'chunked' },
      payload: call.body,
    });
    expect(refused.statusCode).toBe(413);
    expect(refused.json()).toEqual({ problem: 'SNODO_ERR_BODY_TOO_LARGE' });
  });
});

describe('core semantics through the plugin', () => {
  it('streams progress as SSE', async () => {
    const server = await app();
    const call = toolCall('steps', {}, { progressToken: 'p1' });
    const served = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...call.headers, ...bearer() },
      payload: call.body,
    });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('text/event-stream');
    expect(served.headers['x-accel-buffering']).toBe('no');
    const messages = sseMessages(served.body);
    expect(messages).toHaveLength(4);
    expect(messages.slice(0, 3)).toEqual(
      [1, 2, 3].map((progress) => ({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p1', progress, total: 3, message: `step ${progress}` },
      })),
    );
    expect(messages[3]).toMatchObject({ id: call.id, result: { content: [{ text: 'stepped' }] } });
  });

  it('checks Origin and Host with core’s rules (allowedOriginHosts, allowedHosts)', async () => {
    const server = await app({ allowedOriginHosts: ['app.example.com'], allowedHosts: ['api.example.com'] });
    const post = (headers: Record<string, string>) => {
      const call = toolCall('whoami');
      return server.inject({
        method: 'POST',
        url: '/api/mcp',
        headers: { ...call.headers, ...bearer(), ...headers },
        payload: call.body,
      });
    };
    expect((await post({ host: 'api.example.com', origin: 'https://app.example.com' })).statusCode).toBe(200);
    const badOrigin = await post({ host: 'api.example.com', origin: 'http://localhost:3000' });
    expect(badOrigin.statusCode).toBe(403);
    expect(badOrigin.json().error.message).toMatch(/Origin/);
    const badHost = await post({ host: 'evil.example.com' });
    expect(badHost.statusCode).toBe(403);
    expect(badHost.json().error.message).toMatch(/Host/);
  });

  it('serves the initialize-based revisions with sessions: initialize, call, DELETE, then 404', async () => {
    const server = await app();
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...bearer(),
    };
    const init = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers,
      payload: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(init.statusCode).toBe(200);
    const session = init.headers['mcp-session-id'] as string;
    expect(session).toMatch(/^[\x21-\x7e]+$/);
    const legacy = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const call = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: legacy,
      payload: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami' } }),
    });
    expect(call.json().result.content[0].text).toBe('alice');
    expect((await server.inject({ method: 'DELETE', url: '/api/mcp', headers: legacy })).statusCode).toBe(
      204,
    );
    const gone = await server.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: legacy,
      payload: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
    });
    expect(gone.statusCode).toBe(404);
  });
});

describe('registration', () => {
  it('refuses bad options when the application starts, naming the option', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /runtime is required/],
      [{ runtime: testServer(), path: 'mcp' }, /path must be a string starting with "\/"/],
      [
        { runtime: testServer(), bodyTimeout: -1 },
        /bodyTimeout must be an integer number of milliseconds from 1 to/,
      ],
      [
        { runtime: testServer(), bodyTimeout: 0 },
        /bodyTimeout must be an integer number of milliseconds from 1 to/,
      ],
      [{ runtime: testServer(), maxBodyBytes: 0 }, /maxBodyBytes must be a positive integer/],
      [{ runtime: testServer(), maxBodyByte: 10 }, /unknown @snodo\/fastify option "maxBodyByte"/],
      [{ runtime: testServer(), executor: new Executor(), maxSubscriptions: 3 }, /set it on the executor/],
    ];
    for (const [options, message] of cases) {
      const server = Fastify();
      server.register(snodo, options as unknown as SnodoFastifyOptions);
      const error = await server.ready().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(SnodoError.is(error), String(error)).toBe(true);
      expect((error as SnodoError).code).toBe('SNODO_ERR_INVALID_OPTION');
      expect((error as Error).message).toMatch(message);
      await server.close();
    }
  });

  it('declares its name and the Fastify versions it supports', () => {
    const meta = (
      snodo as unknown as Record<symbol, { name: string; fastify: string; encapsulate: boolean }>
    )[Symbol.for('plugin-meta')];
    expect(meta).toEqual({ name: '@snodo/fastify', fastify: '5.x', encapsulate: true });
  });
});
