import { describe, expect, it } from 'vitest';
import {
  type ControlChannel,
  type ControlMessage,
  MemoryControlChannel,
  MemorySessionStore,
  resolveHttpOptions,
} from '../src/index.js';
import {
  aborted,
  handle,
  httpRequest,
  httpServer,
  newProbe,
  openLegacySession,
  post,
} from './http-helpers.js';

const VERSION = '2025-11-25';
let nextId = 1;

const cancel = (requestId: unknown) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId },
});

/** A channel that records what goes through it and hands it to the in-memory default. */
class RecordingChannel implements ControlChannel {
  readonly inner = new MemoryControlChannel();
  readonly seen: { sessionId: string; kind: ControlMessage['kind']; delivered: boolean }[] = [];
  attach: ControlChannel['attach'] = (sessionId, holder) => this.inner.attach(sessionId, holder);
  deliver(sessionId: string, message: ControlMessage): boolean {
    const delivered = this.inner.deliver(sessionId, message);
    this.seen.push({ sessionId, kind: message.kind, delivered });
    return delivered;
  }
}

describe('control channel: every control message of a session goes through one seam', () => {
  it('two instances sharing a store and a channel: a cancel received by one stops the call running on the other', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const sessionStore = new MemorySessionStore();
    const control = new MemoryControlChannel();
    const a = resolveHttpOptions({ sessionStore, control });
    const b = resolveHttpOptions({ sessionStore, control });
    const headers = await openLegacySession(runtime, a, VERSION);
    const call = { jsonrpc: '2.0', id: 'slow-1', method: 'tools/call', params: { name: 'sleep' } };
    const running = post(runtime, call, headers, a);
    const signal = await probe.sleeping.promise;
    const answer = await post(runtime, cancel('slow-1'), headers, b);
    expect(answer.status).toBe(202);
    await aborted(signal);
    await probe.sleepAborted.promise;
    expect(signal.aborted).toBe(true);
    await running;
  });

  it('with a channel per instance (no routing), the instance that holds nothing answers 400 -32602 instead of acknowledging', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const sessionStore = new MemorySessionStore();
    const a = resolveHttpOptions({ sessionStore });
    const b = resolveHttpOptions({ sessionStore });
    const headers = await openLegacySession(runtime, a, VERSION);
    const call = { jsonrpc: '2.0', id: 'slow-2', method: 'tools/call', params: { name: 'sleep' } };
    const running = post(runtime, call, headers, a);
    const signal = await probe.sleeping.promise;
    const refused = await post(runtime, cancel('slow-2'), headers, b);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe(-32602);
    expect(signal.aborted).toBe(false);
    const accepted = await post(runtime, cancel('slow-2'), headers, a);
    expect(accepted.status).toBe(202);
    await running;
  });

  it('cancel, answer, update and end all go through the channel option, with what each reached', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const control = new RecordingChannel();
    const options = resolveHttpOptions({ control });
    const headers = await openLegacySession(runtime, options, VERSION);
    const sessionId = headers['mcp-session-id'];
    const running = post(
      runtime,
      { jsonrpc: '2.0', id: 'slow-3', method: 'tools/call', params: { name: 'sleep' } },
      headers,
      options,
    );
    await probe.sleeping.promise;
    await post(runtime, cancel('slow-3'), headers, options);
    await running;
    await post(runtime, { jsonrpc: '2.0', id: 's99', result: {} }, headers, options);
    await post(
      runtime,
      { jsonrpc: '2.0', id: nextId++, method: 'logging/setLevel', params: { level: 'debug' } },
      headers,
      options,
    );
    const deleted = await handle(runtime, httpRequest({ method: 'DELETE', headers }), options);
    expect(deleted.status).toBe(204);
    expect(control.seen.map(({ kind, delivered }) => [kind, delivered])).toEqual([
      ['cancel', true],
      ['answer', false],
      // Delivered before setLevel answers, while its own request still holds the session here.
      ['update', true],
      ['end', false],
    ]);
    expect(control.seen.every((entry) => entry.sessionId === sessionId)).toBe(true);
  });

  it('refuses a control option without attach and deliver', () => {
    expect(() => resolveHttpOptions({ control: {} as ControlChannel })).toThrow(
      'Invalid option: control must be a ControlChannel (attach and deliver methods), got an object',
    );
  });
});
