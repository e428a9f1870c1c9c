import { describe, expect, it } from 'vitest';
import { LineReader } from '../src/line-reader.js';

type Event = { line: string } | { oversized: number };

function collect(maxLineBytes: number) {
  const events: Event[] = [];
  const reader = new LineReader(maxLineBytes, {
    line: (bytes) => {
      events.push({ line: Buffer.from(bytes).toString('utf8') });
    },
    oversized: (length) => {
      events.push({ oversized: length });
    },
  });
  return { events, reader };
}

const bytes = (text: string) => Buffer.from(text, 'utf8');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

describe('LineReader', () => {
  it('splits on newlines, joins lines split across chunks, and delivers an unterminated last line at end', () => {
    const { events, reader } = collect(100);
    reader.push(bytes('{"a":1}\n{"b"'));
    reader.push(bytes(':2}\n{"c":'));
    reader.push(bytes('3}'));
    expect(events).toEqual([{ line: '{"a":1}' }, { line: '{"b":2}' }]);
    reader.end();
    expect(events).toEqual([{ line: '{"a":1}' }, { line: '{"b":2}' }, { line: '{"c":3}' }]);
  });

  it('skips blank lines (spaces, tabs, CR) and keeps a CR before the newline inside the line', () => {
    const { events, reader } = collect(100);
    reader.push(bytes('\n\n  \t\r\n{"a":1}\r\n\n'));
    reader.end();
    expect(events).toEqual([{ line: '{"a":1}\r' }]);
  });

  it('drops a BOM at the start of the stream, even split byte by byte, and only there', () => {
    const { events, reader } = collect(100);
    reader.push(BOM.subarray(0, 1));
    reader.push(BOM.subarray(1, 2));
    reader.push(Buffer.concat([BOM.subarray(2), bytes('{"a":1}\n'), BOM, bytes('{"b":2}\n')]));
    expect(events).toEqual([{ line: '{"a":1}' }, { line: '\ufeff{"b":2}' }]);
  });

  it('keeps bytes that only began like a BOM, also when the stream ends inside them', () => {
    const lines: Buffer[] = [];
    const reader = new LineReader(100, {
      line: (line) => void lines.push(Buffer.from(line)),
      oversized: () => {},
    });
    reader.push(BOM.subarray(0, 2));
    reader.push(bytes('x\n'));
    expect(lines).toEqual([Buffer.from([0xef, 0xbb, 0x78])]);

    const short: Buffer[] = [];
    const ended = new LineReader(100, {
      line: (line) => void short.push(Buffer.from(line)),
      oversized: () => {},
    });
    ended.push(BOM.subarray(0, 1));
    ended.end();
    expect(short).toEqual([Buffer.from([0xef])]);
  });

  it('delivers a line of exactly maxLineBytes and refuses maxLineBytes + 1 with its length, then goes on', () => {
    const { events, reader } = collect(10);
    reader.push(bytes(`${'a'.repeat(10)}\n${'b'.repeat(11)}\nok\n`));
    expect(events).toEqual([{ line: 'a'.repeat(10) }, { oversized: 11 }, { line: 'ok' }]);
  });

  it('counts an over-long line across many chunks without keeping it, and reports it at its newline or at end', () => {
    const { events, reader } = collect(8);
    reader.push(bytes('12345'));
    reader.push(bytes('6789')); // now 9 bytes: over the limit, dropped from here on
    for (let i = 0; i < 1000; i++) reader.push(bytes('x'.repeat(100)));
    expect(events).toEqual([]);
    reader.push(bytes('tail\nnext\nrest'));
    expect(events).toEqual([{ oversized: 9 + 100_000 + 4 }, { line: 'next' }]);
    reader.push(bytes('-of-it-is-long'));
    reader.end();
    expect(events.at(-1)).toEqual({ oversized: 18 });
  });

  it('never keeps a reference to a chunk: a line split across chunks survives the source reusing its buffer', () => {
    const { events, reader } = collect(100);
    const shared = Buffer.alloc(4);
    shared.write('{"a"');
    reader.push(shared);
    shared.write(':1}\n');
    reader.push(shared);
    expect(events).toEqual([{ line: '{"a":1}' }]);
  });

  it('waits for a pending handler before the next line, and stop() ends delivery mid-chunk', async () => {
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const reader = new LineReader(100, {
      line: (line) => {
        const text = Buffer.from(line).toString();
        seen.push(text);
        if (text === 'b') return gate;
        if (text === 'c') reader.stop();
      },
      oversized: () => {},
    });
    const pending = reader.push(bytes('a\nb\nc\nd\n'));
    expect(seen).toEqual(['a', 'b']);
    expect(pending).toBeInstanceOf(Promise);
    release();
    await pending;
    expect(seen).toEqual(['a', 'b', 'c']);
  });
});
