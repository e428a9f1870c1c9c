import { describe, expect, it } from 'vitest';
import { type HttpRequest, resolveHttpOptions } from '../src/index.js';
import {
  handle,
  httpRequest,
  httpServer,
  MODERN,
  modernHeaders,
  modernMessage,
  newProbe,
  read,
} from './http-helpers.js';

function scoped(message: { method: string; params?: Record<string, unknown> }, scope?: string): HttpRequest {
  const request = httpRequest({ headers: modernHeaders(message), body: JSON.stringify(message) });
  return scope === undefined ? request : { ...request, cancellationScope: scope };
}

function cancel(requestId: unknown) {
  return {
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: {
      requestId,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}

describe('cancellation scopes (2026-07-28)', () => {
  it('notifications/cancelled from the same scope stops the request; another scope or none cannot', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const config = resolveHttpOptions();
    const call = modernMessage('tools/call', { name: 'sleep' });
    const running = handle(runtime, scoped(call, 'client-a'), config);
    const signal = await probe.sleeping.promise;
    expect(config.scopes.running).toBe(1);

    for (const scope of ['client-b', undefined]) {
      const other = await read(await handle(runtime, scoped(cancel(call.id), scope), config));
      expect(other.status).toBe(202);
      expect(signal.aborted).toBe(false);
    }
    const same = await read(await handle(runtime, scoped(cancel(call.id), 'client-a'), config));
    expect(same.status).toBe(202);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ cause: 'notifications/cancelled' });
    await probe.sleepAborted.promise;
    const answer = await read(await running);
    expect(answer.events).toEqual([]); // a cancelled request gets no response
    expect(config.scopes.running).toBe(0);
  });

  it('a scoped request still stops on disconnect, and leaves its scope when done', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const config = resolveHttpOptions();
    const client = new AbortController();
    const call = modernMessage('tools/call', { name: 'sleep' });
    const running = handle(runtime, { ...scoped(call, 'client-a'), signal: client.signal }, config);
    const signal = await probe.sleeping.promise;
    client.abort();
    expect(signal.aborted).toBe(true);
    await running;
    expect(config.scopes.running).toBe(0);
    const echo = modernMessage('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    const answered = await read(await handle(runtime, scoped(echo, 'client-a'), config));
    expect(answered.body.result.content[0].text).toBe('hi');
    expect(config.scopes.running).toBe(0);
  });
});
