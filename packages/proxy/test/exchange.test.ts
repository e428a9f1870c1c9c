import { afterEach, describe, expect, it, vi } from 'vitest';
import { Exchange, ParkedExchanges } from '../src/exchange.js';

/** An exchange whose backend call asks for `asks` inputs, then returns what it was answered. */
function exchange(asks: ('elicitation/create' | 'sampling/createMessage')[]) {
  let finish!: (value: Record<string, unknown>) => void;
  const finished = new Promise<Record<string, unknown>>((resolve) => {
    finish = resolve;
  });
  const answers: unknown[] = [];
  const ex = new Exchange(async (self) => {
    for (const method of asks) {
      try {
        answers.push(await self.ask(method, { message: method }, self.controller.signal));
      } catch (error) {
        answers.push({ refused: String(error) });
      }
    }
    const signal = self.controller.signal;
    const aborted = new Promise<Record<string, unknown>>((resolve) => {
      const stop = () => resolve({ aborted: String(signal.reason) });
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop);
    });
    return Promise.race([finished, aborted]);
  });
  return { ex, answers, finish: (value: Record<string, unknown>) => finish(value) };
}

const never = new AbortController().signal;

describe('Exchange: a call to an initialize-based backend that asks for input while it runs', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands out each input once, with keys unique in the call, then the outcome', async () => {
    const { ex, answers, finish } = exchange(['elicitation/create', 'sampling/createMessage']);
    const first = await ex.next(never);
    expect(first).toEqual({
      type: 'input',
      input: { key: 'elicit-1', method: 'elicitation/create', params: { message: 'elicitation/create' } },
    });
    ex.answer('elicit-1', { action: 'accept' });
    const second = await ex.next(never);
    expect(second).toMatchObject({ type: 'input', input: { key: 'sample-2' } });
    ex.refuse('sample-2', new Error('no sampling here'));
    ex.answer('sample-2', { late: true }); // already settled: ignored
    const waiting = ex.next(never);
    finish({ done: true });
    expect(await waiting).toEqual({ type: 'done', result: { done: true } });
    expect(answers).toEqual([{ action: 'accept' }, { refused: 'Error: no sampling here' }]);
    expect(ex.settled).toBe(true);
  });

  it('next() gives up with its signal; abort() answers elicitations with cancel and cancels the call', async () => {
    const { ex, answers } = exchange(['elicitation/create']);
    await ex.next(never);
    const controller = new AbortController();
    const blocked = ex.next(controller.signal);
    controller.abort(new Error('frontend went away'));
    await expect(blocked).rejects.toThrow('frontend went away');
    ex.abort('gone');
    expect(await ex.next(never)).toEqual({ type: 'done', result: { aborted: 'gone' } });
    expect(answers).toEqual([{ action: 'cancel' }]);
  });

  it('ParkedExchanges: bounded, taken once, and aborted after its timeout (fake timers)', async () => {
    vi.useFakeTimers();
    const parked = new ParkedExchanges(1, 1_000);
    const a = exchange(['elicitation/create']);
    const b = exchange([]);
    await a.ex.next(never);
    expect(parked.park('a', a.ex)).toBe(true);
    expect(parked.park('b', b.ex)).toBe(false);
    expect(parked.take('a')).toBe(a.ex);
    expect(parked.take('a')).toBeUndefined();
    expect(parked.park('a', a.ex)).toBe(true);
    vi.advanceTimersByTime(999);
    expect(a.ex.controller.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(a.ex.controller.signal.aborted).toBe(true);
    expect(parked.size).toBe(0);
    vi.useRealTimers();
    expect(await a.ex.next(never)).toMatchObject({
      type: 'done',
      result: { aborted: expect.stringContaining('did not answer') },
    });
    expect(a.answers).toEqual([{ action: 'cancel' }]);
    expect(parked.take('a')).toBeUndefined();
  });
});
