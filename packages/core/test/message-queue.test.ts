import { describe, expect, it } from 'vitest';
import { MessageStream } from '../src/dispatch/stream.js';
import { NotificationQueue } from '../src/subscriptions/queue.js';

const note = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/progress', params: { n } });
const numbers = (messages: unknown[]) => messages.map((m) => (m as { params: { n: number } }).params.n);

describe('the message queue under MessageStream and NotificationQueue', () => {
  it('keeps order across the compaction of read slots while the reader never drains the queue', async () => {
    const queue = new NotificationQueue(10_000);
    const reader = queue[Symbol.asyncIterator]();
    const read: unknown[] = [];
    let next = 0;
    // The writer stays ahead by 50: the queue is never empty, so only compaction releases slots.
    for (let i = 0; i < 50; i++) queue.push(note(next++));
    for (let round = 0; round < 400; round++) {
      queue.push(note(next++));
      read.push((await reader.next()).value);
      expect(queue.length).toBe(50);
    }
    queue.end();
    for (let r = await reader.next(); !r.done; r = await reader.next()) read.push(r.value);
    expect(numbers(read)).toEqual(Array.from({ length: next }, (_, i) => i));
  });

  it('a stream keeps its response past a full buffer and ends after it; abandon ends with nothing', async () => {
    const stream = new MessageStream(2);
    expect([stream.push(note(1)), stream.push(note(2)), stream.push(note(3))]).toEqual([true, true, false]);
    expect(stream.dropped).toBe(1);
    stream.end({ jsonrpc: '2.0', id: 1, result: {} });
    expect(stream.push(note(4))).toBe(false);
    const all: unknown[] = [];
    for await (const message of stream) all.push(message);
    expect(all).toHaveLength(3);
    expect(all[2]).toEqual({ jsonrpc: '2.0', id: 1, result: {} });

    const abandoned = new MessageStream();
    abandoned.push(note(1));
    abandoned.abandon();
    const rest: unknown[] = [];
    for await (const message of abandoned) rest.push(message);
    expect(rest).toEqual([]);
  });

  it('a notification queue past its capacity overflows: drops what is queued and ends', async () => {
    const queue = new NotificationQueue(2);
    queue.push(note(1));
    queue.push(note(2));
    expect(queue.push(note(3))).toBe(false);
    expect(queue.overflowed).toBe(true);
    expect(queue.ended).toBe(true);
    const rest: unknown[] = [];
    for await (const message of queue) rest.push(message);
    expect(rest).toEqual([]);
  });
});
