import { describe, expect, it } from 'vitest';
import {
  createChangeHub,
  createServer,
  Executor,
  isStreamResponse,
  resource,
  type SessionOwner,
  tool,
} from '../src/index.js';
import { deriveRuntime } from '../src/internal.js';
import { handle, httpRequest, LEGACY_HEADERS, parseSse, post, textStream } from './http-helpers.js';

let nextId = 5000;

function server() {
  const hub = createChangeHub();
  const runtime = createServer({
    name: 'get-stream',
    version: '1',
    hub,
    tools: [tool({ name: 'noop', handler: () => 'ok' })],
    resources: [
      resource({ uri: 'demo://a', name: 'a', read: () => 'A' }),
      resource({ uri: 'demo://b', name: 'b', read: () => 'B' }),
    ],
  });
  return { runtime, hub };
}

async function session(runtime: ReturnType<typeof server>['runtime'], options: object) {
  const answer = await post(
    runtime,
    {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    },
    LEGACY_HEADERS,
    options,
  );
  return {
    ...LEGACY_HEADERS,
    'mcp-session-id': answer.headers['mcp-session-id'] as string,
    'mcp-protocol-version': '2025-06-18',
  };
}

/** Opens the GET stream and returns a reader of its SSE messages. */
async function openStream(
  runtime: any,
  headers: Record<string, string>,
  options: object,
  controller = new AbortController(),
) {
  const response = await handle(
    runtime,
    httpRequest({ method: 'GET', headers, signal: controller.signal }),
    options,
  );
  if (!isStreamResponse(response))
    throw new Error(`expected a stream, got ${response.status} ${response.body}`);
  const chunks = textStream(response)[Symbol.asyncIterator]();
  const next = async (): Promise<any> => {
    for (;;) {
      const chunk = await chunks.next();
      if (chunk.done) return undefined;
      const [message] = parseSse(chunk.value);
      if (message) return message;
    }
  };
  return { response, next, controller };
}

describe('the standalone GET stream of an initialize-based session', () => {
  it('delivers list changes and updates of the URIs the session subscribed to, as they change', async () => {
    const { runtime, hub } = server();
    const options = {};
    const headers = await session(runtime, options);
    const stream = await openStream(runtime, headers, options);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers['content-type']).toBe('text/event-stream');
    const subscribed = await post(
      runtime,
      { jsonrpc: '2.0', id: nextId++, method: 'resources/subscribe', params: { uri: 'demo://a' } },
      headers,
      options,
    );
    expect(subscribed.body.result).toEqual({});
    hub.notifyResourceUpdated('demo://b');
    hub.notifyResourceUpdated('demo://a');
    expect(await stream.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'demo://a' },
    });
    hub.notifyToolsChanged();
    expect((await stream.next()).method).toBe('notifications/tools/list_changed');
    await post(
      runtime,
      { jsonrpc: '2.0', id: nextId++, method: 'resources/unsubscribe', params: { uri: 'demo://a' } },
      headers,
      options,
    );
    hub.notifyResourceUpdated('demo://a');
    hub.notifyPromptsChanged();
    hub.notifyResourcesChanged();
    expect((await stream.next()).method).toBe('notifications/resources/list_changed');
    stream.controller.abort();
    expect(await stream.next()).toBeUndefined();
    expect(hub.size).toBe(0);
  });

  it('DELETE of the session ends its stream', async () => {
    const { runtime, hub } = server();
    const options = {};
    const headers = await session(runtime, options);
    const stream = await openStream(runtime, headers, options);
    expect(hub.size).toBe(1);
    const deleted = await handle(runtime, httpRequest({ method: 'DELETE', headers }), options);
    expect(deleted.status).toBe(204);
    expect(await stream.next()).toBeUndefined();
    expect(hub.size).toBe(0);
  });

  it('holds a subscription slot: over maxSubscriptions is 503, and a closed stream frees its slot', async () => {
    const { runtime } = server();
    const options = { executor: new Executor({ maxSubscriptions: 1 }) };
    const headers = await session(runtime, options);
    const first = await openStream(runtime, headers, options);
    const refused = await handle(runtime, httpRequest({ method: 'GET', headers }), options);
    expect(refused.status).toBe(503);
    first.controller.abort();
    const again = await handle(runtime, httpRequest({ method: 'GET', headers }), options);
    expect(again.status).toBe(200);
  });

  it('is 404 for an unknown session and 405 without one or on a 2026-07-28-only server', async () => {
    const { runtime } = server();
    const unknown = await handle(
      runtime,
      httpRequest({ method: 'GET', headers: { ...LEGACY_HEADERS, 'mcp-session-id': 'nope' } }),
    );
    expect(unknown.status).toBe(404);
    expect((await handle(runtime, httpRequest({ method: 'GET', headers: LEGACY_HEADERS }))).status).toBe(405);
    const modernOnly = createServer({ name: 'm', version: '1', protocolVersions: ['2026-07-28'] });
    const modern = await handle(
      modernOnly,
      httpRequest({ method: 'GET', headers: { ...LEGACY_HEADERS, 'mcp-session-id': 'x' } }),
    );
    expect(modern.status).toBe(405);
  });
});

describe('DispatchContext.connectionId of an initialize-based HTTP session', () => {
  it('is the same for every request of one session, differs between sessions, and names the GET stream to sessionHub', async () => {
    const { runtime: base, hub } = server();
    const seen: (string | undefined)[] = [];
    const owners: SessionOwner[] = [];
    const runtime = deriveRuntime(base, {
      operations: {
        'tools/call': (call) => {
          seen.push(call.connectionId);
          return { content: [{ type: 'text', text: 'ok' }] };
        },
      },
      sessionHub: (owner) => {
        owners.push(owner);
        return hub;
      },
    });
    const options = {};
    const first = await session(runtime, options);
    const second = await session(runtime, options);
    const call = (headers: Record<string, string>) =>
      post(
        runtime,
        { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'noop' } },
        headers,
        options,
      );
    await call(first);
    await call(first);
    await call(second);
    expect(seen[0]).toEqual(expect.any(String));
    expect(seen).toEqual([seen[0], seen[0], expect.not.stringMatching(seen[0] as string)]);
    const request = httpRequest({ method: 'GET', headers: first });
    const response = await handle(runtime, { ...request, auth: { principal: 'ada' } }, options);
    expect(isStreamResponse(response)).toBe(true);
    expect(owners).toEqual([{ auth: { principal: 'ada' }, connectionId: seen[0] }]);
    if (isStreamResponse(response)) await response.events[Symbol.asyncIterator]().return?.();
  });
});
