import { PassThrough, Writable } from 'node:stream';
import { createServer, tool } from '@snodo/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Writer } from '../src/writer.js';
import { callTool, Served } from './helpers/in-process.js';

/** A Writable that records each chunk it is handed and completes each write at once. */
function recording(highWaterMark = 16_384) {
  const chunks: string[] = [];
  const output = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('latin1'));
      callback();
    },
  });
  return { chunks, output };
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

describe('Writer', () => {
  it('hands the messages written in one tick to the output in one write, one line each, in order', async () => {
    const { chunks, output } = recording();
    const writer = new Writer(output, 5_000, () => {});
    for (let id = 1; id <= 100; id++) expect(writer.write({ jsonrpc: '2.0', id, result: {} })).toBe(true);
    expect(chunks).toHaveLength(0); // gathered until the end of the tick
    await nextTick();
    expect(chunks).toHaveLength(1);
    const lines = (chunks[0] as string).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line).id)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    writer.write({ jsonrpc: '2.0', id: 101, result: {} });
    await nextTick();
    expect(chunks).toHaveLength(2); // a later tick is a later write
  });

  it('writes at once, within the tick, once the gathered lines reach the output highWaterMark; a line is never split', async () => {
    const { chunks, output } = recording(1_000);
    const writer = new Writer(output, 5_000, () => {});
    const text = 'x'.repeat(300);
    for (let id = 1; id <= 10; id++) writer.write({ jsonrpc: '2.0', id, result: { text } });
    expect(chunks.length).toBeGreaterThanOrEqual(3); // 10 lines of ~340 characters: a write every 3
    await nextTick();
    const ids: number[] = [];
    for (const chunk of chunks) {
      expect(chunk.endsWith('\n')).toBe(true);
      for (const line of chunk.slice(0, -1).split('\n')) ids.push(JSON.parse(line).id);
    }
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('escapes non-ASCII in a tick of mixed lines, including U+2028, U+2029 and U+0085, and leaves ASCII lines as they are', async () => {
    const { chunks, output } = recording();
    const writer = new Writer(output, 5_000, () => {});
    const text = 'Grüße 世界 🦄 \u2028\u2029\u0085';
    writer.write({ jsonrpc: '2.0', id: 1, result: { text: 'plain' } });
    writer.write({ jsonrpc: '2.0', id: 2, result: { text } });
    writer.write({ jsonrpc: '2.0', id: 3, result: { text: 'plain again' } });
    await nextTick();
    expect(chunks).toHaveLength(1);
    const chunk = chunks[0] as string;
    expect(ASCII_ONLY.test(chunk)).toBe(true);
    expect(chunk).toContain('Gr\\u00fc\\u00dfe \\u4e16\\u754c \\ud83e\\udd84 \\u2028\\u2029\\u0085');
    const lines = chunk.slice(0, -1).split('\n');
    expect(lines).toEqual([
      '{"jsonrpc":"2.0","id":1,"result":{"text":"plain"}}',
      expect.any(String),
      '{"jsonrpc":"2.0","id":3,"result":{"text":"plain again"}}',
    ]);
    expect(JSON.parse(lines[1] as string).result.text).toBe(text);
  });

  it('blocks while bytes wait in the output buffer and unblocks on drain', async () => {
    let complete: (() => void) | undefined;
    const output = new Writable({
      highWaterMark: 16,
      write(_chunk, _encoding, callback) {
        complete = callback;
      },
    });
    const writer = new Writer(output, 5_000, () => {});
    writer.write({ jsonrpc: '2.0', id: 1, result: { text: 'longer than sixteen bytes' } });
    await nextTick();
    expect(writer.blocked).toBe(true);
    expect(writer.write({ jsonrpc: '2.0', id: 2, result: {} })).toBe(false);
    const ready = writer.ready();
    complete?.();
    await nextTick();
    complete?.(); // the second line, written while blocked
    await ready;
    expect(writer.blocked).toBe(false);
    writer.detach();
  });
});

describe('serve: answers that finish in the same tick', () => {
  it('leave in fewer writes than answers, every line whole, each request answered once', async () => {
    const runtime = createServer({
      name: 'echo',
      version: '1.0.0',
      tools: [
        tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text }),
      ],
    });
    const output = new PassThrough();
    const writes: string[] = [];
    const write = output.write.bind(output);
    output.write = ((chunk: string, ...rest: []) => {
      writes.push(chunk);
      return write(chunk, ...rest);
    }) as typeof output.write;
    const served = new Served(runtime, {}, output);
    output.on('data', () => {});
    let text = '';
    for (let id = 1; id <= 200; id++) text += `${JSON.stringify(callTool(id, 'echo', { text: `n${id}` }))}\n`;
    served.input.write(text);
    served.input.end();
    await served.done;
    const ids = writes.flatMap((chunk) => {
      expect(chunk.endsWith('\n')).toBe(true);
      return chunk
        .slice(0, -1)
        .split('\n')
        .map((line) => {
          const message = JSON.parse(line);
          expect(message.result.content[0].text).toBe(`n${message.id}`);
          return message.id as number;
        });
    });
    expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(writes.length).toBeLessThan(200);
  });
});
