import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientRequestError, createClientRequests, type JsonRpcMessage } from '../src/index.js';

const never = new AbortController().signal;

describe('createClientRequests', () => {
  afterEach(() => vi.useRealTimers());

  it('sends a request with a server id and resolves with the client result', async () => {
    const sent: [JsonRpcMessage, unknown][] = [];
    const requests = createClientRequests((message, related) => sent.push([message, related]));
    const answer = requests.channel.request('roots/list', undefined, { signal: never, relatedRequestId: 7 });
    expect(sent).toEqual([[{ jsonrpc: '2.0', id: 's1', method: 'roots/list' }, 7]]);
    expect(requests.pending).toBe(1);
    expect(requests.resolve({ id: 's2', result: {} })).toBe(false);
    expect(requests.resolve({ id: 's1', result: { roots: [] } })).toBe(true);
    await expect(answer).resolves.toEqual({ roots: [] });
    expect(requests.pending).toBe(0);
    expect(requests.resolve({ id: 's1', result: {} })).toBe(false);
  });

  it('rejects with the client error, on abort (cancelling it), on timeout and on close', async () => {
    vi.useFakeTimers();
    const sent: JsonRpcMessage[] = [];
    const requests = createClientRequests((message) => sent.push(message), { timeout: 1000 });
    const failing = requests.channel.request(
      'elicitation/create',
      {},
      { signal: never, relatedRequestId: 1 },
    );
    requests.resolve({ id: 's1', error: { code: -1, message: 'no' } });
    await expect(failing).rejects.toBeInstanceOf(ClientRequestError);
    const controller = new AbortController();
    const aborted = requests.channel.request('roots/list', undefined, {
      signal: controller.signal,
      relatedRequestId: 1,
    });
    controller.abort(new Error('gone'));
    await expect(aborted).rejects.toThrow('gone');
    expect(sent.at(-1)).toMatchObject({ method: 'notifications/cancelled', params: { requestId: 's2' } });
    const slow = requests.channel.request('roots/list', undefined, { signal: never, relatedRequestId: 1 });
    vi.advanceTimersByTime(1000);
    await expect(slow).rejects.toThrow(/within 1000 ms/);
    const open = requests.channel.request('roots/list', undefined, { signal: never, relatedRequestId: 1 });
    requests.close('bye');
    await expect(open).rejects.toThrow('bye');
    await expect(
      requests.channel.request('roots/list', undefined, { signal: never, relatedRequestId: 1 }),
    ).rejects.toThrow('bye');
    expect(vi.getTimerCount()).toBe(0);
  });
});
