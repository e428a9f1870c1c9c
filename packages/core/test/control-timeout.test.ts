import { describe, expect, it } from 'vitest';
import {
  type ControlChannel,
  type ControlMessage,
  MemoryControlChannel,
  resolveHttpOptions,
  SnodoError,
} from '../src/index.js';
import { handle, httpRequest, httpServer, newProbe, openLegacySession, post } from './http-helpers.js';

const VERSION = '2025-11-25';

/** A channel across instances whose other instances never answer: every delivery times out. */
class UnansweredChannel implements ControlChannel {
  readonly inner = new MemoryControlChannel();
  attach: ControlChannel['attach'] = (sessionId, holder) => this.inner.attach(sessionId, holder);
  async deliver(sessionId: string, message: ControlMessage): Promise<boolean> {
    if (this.inner.deliver(sessionId, message) && message.kind !== 'update') return true;
    throw new SnodoError('SNODO_ERR_CONTROL_TIMEOUT', 'the holder did not answer');
  }
}

describe('a control channel that cannot reach the instance holding the work', () => {
  it('answers 503 with Retry-After: 1 and -32603 to a cancel, an answer, a session update and a DELETE, never 202', async () => {
    const runtime = httpServer(newProbe());
    const options = resolveHttpOptions({ control: new UnansweredChannel() });
    const headers = await openLegacySession(runtime, options, VERSION);
    const replies = [
      await post(
        runtime,
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } },
        headers,
        options,
      ),
      await post(runtime, { jsonrpc: '2.0', id: 's1', result: {} }, headers, options),
      await post(
        runtime,
        { jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'debug' } },
        headers,
        options,
      ),
    ];
    expect(
      replies.map((reply) => [
        reply.status,
        reply.headers['retry-after'],
        reply.body.error.code,
        reply.body.id,
      ]),
    ).toEqual([
      [503, '1', -32603, null],
      [503, '1', -32603, null],
      [503, '1', -32603, 2],
    ]);
    const deleted = await handle(runtime, httpRequest({ method: 'DELETE', headers }), options);
    expect(deleted.status).toBe(503);
    expect(deleted.headers['retry-after']).toBe('1');
  });

  it('leaves any other failure of the channel to the host (500 from the listener)', async () => {
    const runtime = httpServer(newProbe());
    const failing: ControlChannel = {
      attach: () => () => undefined,
      deliver: () => Promise.reject(new SnodoError('SNODO_ERR_REDIS_UNAVAILABLE', 'down')),
    };
    const options = resolveHttpOptions({ control: failing });
    const headers = await openLegacySession(runtime, options, VERSION);
    await expect(
      post(
        runtime,
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } },
        headers,
        options,
      ),
    ).rejects.toMatchObject({ code: 'SNODO_ERR_REDIS_UNAVAILABLE' });
  });
});
