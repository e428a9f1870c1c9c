// End to end: the built demo server (examples/everything/dist/main.js --stdio) as a real child
// process, spoken to over its pipes. Waits are on specific output lines or the exit; the test
// timeouts are only failure bounds.
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, cancelled, DemoChild, isResponseTo, type Message } from './helpers/child.js';

const children: DemoChild[] = [];
function start(args: string[] = []): DemoChild {
  const child = new DemoChild(args);
  children.push(child);
  return child;
}

afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

/** The UNICODE_TEXT of examples/everything/src/tools.ts. */
const UNICODE_TEXT = 'Grüße aus Köln — こんにちは, 世界! ½ € ✓ 🦄';

describe('the demo server over stdio', () => {
  it('500 pipelined sleep and echo calls with maxConcurrency 8, maxQueue 40: each answered with its result, never more than 8 at once, none refused', async () => {
    const child = start(['--max-concurrency', '8', '--max-queue', '40', '--stats']);
    const lines: string[] = [];
    for (let i = 0; i < 500; i++) {
      const request =
        i % 2 === 0 ? callTool(i, 'sleep', { ms: 20 }) : callTool(i, 'echo', { text: `echo ${i}` });
      lines.push(JSON.stringify(request));
    }
    await child.write(`${lines.join('\n')}\n`);
    const responses = await child.count((m) => typeof m.id === 'number' && !('method' in m), 500);
    expect(await child.end()).toEqual({ code: 0, signal: null });

    expect(child.messages).toHaveLength(500);
    expect(new Set(responses.map((m) => m.id)).size).toBe(500);
    expect(responses.filter((m) => m.error !== undefined)).toEqual([]);
    for (const m of responses) {
      if (m.id % 2 === 0) expect(m.result.structuredContent.sleptMs).toBe(20);
      else expect(m.result.content[0].text).toBe(`echo ${m.id}`);
    }
    // The sleep tool reports how many sleeps ran when it started: the bound held and was reached.
    const concurrency = responses
      .filter((m) => m.id % 2 === 0)
      .map((m) => m.result.structuredContent.concurrent);
    expect(Math.max(...concurrency)).toBe(8);
    // The server's own counters agree: everything ran, nothing was refused.
    expect(child.stats()).toMatchObject({ completed: 500, rejected: 0, running: 0, queued: 0 });
  });

  describe.each([
    ['2025-11-25', true],
    ['2025-03-26', true],
    ['2026-07-28', false],
  ])('a client pipelining 10,000 calls on %s', (version, initialize) => {
    it('gets every result and no -32000: with the queue full the server stops reading instead of refusing', async () => {
      const child = start(['--max-concurrency', '4', '--max-queue', '8', '--stats']);
      if (initialize) {
        const answered = child.next(isResponseTo('init'));
        await child.send({
          jsonrpc: '2.0',
          id: 'init',
          method: 'initialize',
          params: {
            protocolVersion: version,
            capabilities: {},
            clientInfo: { name: 'pipeliner', version: '0' },
          },
        });
        expect((await answered).result.protocolVersion).toBe(version);
        await child.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      }
      const total = 10_000;
      const call = (id: number) =>
        JSON.stringify(
          initialize
            ? {
                jsonrpc: '2.0',
                id,
                method: 'tools/call',
                params: { name: 'echo', arguments: { text: `t${id}` } },
              }
            : callTool(id, 'echo', { text: `t${id}` }),
        );
      // 64 lines per write; each write waits for the pipe to take the previous one (backpressure).
      for (let id = 1; id <= total; id += 64) {
        const lines = [];
        for (let k = id; k < Math.min(id + 64, total + 1); k++) lines.push(call(k));
        await child.write(`${lines.join('\n')}\n`);
      }
      const isCall = (m: Message) => typeof m.id === 'number' && !('method' in m);
      const responses = await child.count(isCall, total);
      expect(await child.end()).toEqual({ code: 0, signal: null });
      expect(responses.filter((m) => m.error !== undefined)).toEqual([]);
      expect(new Set(responses.map((m) => m.id)).size).toBe(total);
      for (const m of responses) expect(m.result.content[0].text).toBe(`t${m.id}`);
      expect(child.stats()).toMatchObject({ rejected: 0, running: 0, queued: 0 });
    }, 60_000);
  });

  it('a cancelled sleep never gets a response; the others still do', async () => {
    const child = start();
    await child.send(callTool(1, 'sleep', { ms: 400 }));
    await child.send(callTool(2, 'sleep', { ms: 100 }));
    await child.send(callTool(3, 'sleep', { ms: 400 }));
    await child.send(cancelled(2));
    // Both long sleeps end well after the cancelled one would have: a late response would be here by then.
    await child.next(isResponseTo(1));
    await child.next(isResponseTo(3));
    await child.send(callTool(4, 'echo', { text: 'still serving' }));
    await child.next(isResponseTo(4));
    expect(await child.end()).toEqual({ code: 0, signal: null });
    expect(child.messages.map((m) => m.id).sort()).toEqual([1, 3, 4]);
  });

  it('a line of maxLineBytes + 1 bytes gets -32600 (id null) and the next line on the stream still works', async () => {
    const child = start();
    const line = (bytes: number, id: number) => {
      const head = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"`;
      const tail = `"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`;
      const text = 'x'.repeat(bytes - head.length - tail.length);
      return { line: head + text + tail, text };
    };
    const exact = line(2_000_000, 1);
    const over = line(2_000_001, 2);
    expect([Buffer.byteLength(exact.line), Buffer.byteLength(over.line)]).toEqual([2_000_000, 2_000_001]);
    await child.write(`${exact.line}\n${over.line}\n`);
    await child.send(callTool(3, 'echo', { text: 'next line' }));
    await child.next(isResponseTo(3));
    expect(await child.end()).toEqual({ code: 0, signal: null });
    expect(child.messages).toHaveLength(3);
    expect(child.messages.find(isResponseTo(1))?.result.content[0].text).toBe(exact.text);
    expect(child.messages.find((m) => m.id === null)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Invalid request: line of 2000001 bytes exceeds maxLineBytes (2000000)',
        data: { maxLineBytes: 2_000_000 },
      },
    });
    expect(child.messages.find(isResponseTo(3))?.result.content[0].text).toBe('next line');
  });

  it('a 50 MB line without a newline raises the memory by no more than a few MB beyond maxLineBytes', async () => {
    const child = start();
    await child.send({ jsonrpc: '2.0', id: 0, method: 'ping' });
    await child.next(isResponseTo(0));
    const baseline = child.procStatus('VmRSS');
    let peak = () => child.procStatus('VmHWM');
    try {
      writeFileSync(`/proc/${child.pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
    } catch {
      // Without clear_refs, sample the RSS while streaming instead.
      let sampled = baseline;
      peak = () => sampled;
      const sample = setInterval(() => {
        sampled = Math.max(sampled, child.procStatus('VmRSS'));
      }, 5);
      child.exited.then(() => clearInterval(sample));
    }
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let sent = 0; sent < 50 * 1024 * 1024; sent += chunk.length) await child.write(chunk);
    // Every byte but what the pipe holds has been read by now.
    const grownKiB = peak() - baseline;
    await child.write('\n');
    await child.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await child.next(isResponseTo(1));
    expect(child.messages.find((m) => m.id === null)).toMatchObject({
      error: { code: -32600, message: expect.stringContaining('line of 52428800 bytes') },
    });
    const limitKiB = 2_000_000 / 1024;
    expect(grownKiB).toBeLessThan(limitKiB + 6 * 1024);
    expect(await child.end()).toEqual({ code: 0, signal: null });
  }, 30_000);

  it('an output the client stops reading: after writeTimeout the server exits with the terminal error', async () => {
    const child = start(['--write-timeout', '300']);
    child.process.stdout.pause(); // the client stops reading
    const text = 'y'.repeat(100_000);
    const batch = Array.from({ length: 50 }, (_, i) => JSON.stringify(callTool(i, 'echo', { text }))).join(
      '\n',
    );
    // Not awaited: the server stops reading its input too, then exits, so this write may never complete.
    child.write(`${batch}\n`).catch(() => {});
    const exit = await child.exited;
    expect(exit).toEqual({ code: 1, signal: null });
    expect(child.stderr).toContain('SNODO_ERR_WRITE_TIMEOUT');
    expect(child.stderr).toContain('did not drain within 300 ms');
  });

  it('EOF with requests still running: they finish and are written before the server exits', async () => {
    const child = start();
    await child.write(
      [
        callTool(1, 'sleep', { ms: 200 }),
        callTool(2, 'sleep', { ms: 100 }),
        callTool(3, 'echo', { text: 'e' }),
      ]
        .map((m) => `${JSON.stringify(m)}\n`)
        .join(''),
    );
    expect(await child.end()).toEqual({ code: 0, signal: null });
    expect(child.messages.map((m) => m.id).sort()).toEqual([1, 2, 3]);
  });

  it('non-ASCII output is \\u-escaped and decodes back to the same text', async () => {
    const child = start();
    await child.send(callTool(1, 'unicode'));
    await child.send(callTool(2, 'echo', { text: 'Ünïcödé ✓ 🦄 \u2028 end' }));
    await child.count((m) => m.id === 1 || m.id === 2, 2);
    await child.end();
    for (const line of child.lines) expect(line).toMatch(/^[\x20-\x7e]*$/);
    const text = (id: number) => (child.messages.find(isResponseTo(id)) as Message).result.content[0].text;
    expect(text(1)).toBe(UNICODE_TEXT);
    expect(text(2)).toBe('Ünïcödé ✓ 🦄 \u2028 end');
    expect(child.lines.join('\n')).toContain('\\ud83e\\udd84');
  });

  it('ignores a BOM on the first line and blank lines', async () => {
    const child = start();
    await child.write(
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'),
      ]),
    );
    await child.write('\n   \n\r\n');
    await child.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await child.next(isResponseTo(2));
    await child.end();
    expect(child.messages).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it('a BOM at the start of a later line is content, not ignored: -32700 for that line only', async () => {
    const child = start();
    await child.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await child.write(
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from('{"jsonrpc":"2.0","id":2,"method":"ping"}\n'),
      ]),
    );
    await child.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    await child.next(isResponseTo(3));
    await child.end();
    // Answers are written as they complete: compare as a set.
    expect(child.messages).toHaveLength(3);
    expect(child.messages).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: -32700 }) },
        { jsonrpc: '2.0', id: 3, result: {} },
      ]),
    );
  });

  it('a dual-era client probing with server/discover, then an initialize-based session for the life of the process', async () => {
    const child = start();
    const discover = await child.request('server/discover', {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    });
    expect(discover.result.supportedVersions).toContain('2026-07-28');
    const init = await child.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'legacy', version: '1' },
    });
    expect(init.result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'everything' } });
    await child.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const list = await child.request('tools/list');
    expect(list.result.tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['add', 'echo', 'fail', 'sleep', 'unicode']),
    );
    const sum = await child.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
    expect(sum.result.structuredContent).toEqual({ sum: 5 });
    const failed = await child.request('tools/call', { name: 'fail', arguments: {} });
    expect(failed.result).toMatchObject({ isError: true, content: [{ text: 'This tool always fails' }] });
    expect(await child.end()).toEqual({ code: 0, signal: null });
    expect(child.stderr).toBe('');
  });
});
