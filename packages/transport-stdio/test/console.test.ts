// While serve() writes protocol messages to the process's own stdout, the global console writes to
// stderr instead, and gets stdout back when serving ends. Real child processes: the demo server's
// `console` tool (examples/everything) and test/fixtures/console-scenarios.mjs.
import type { EventEmitter } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, isResponseTo } from './helpers/child.js';
import { CONSOLE_SCENARIOS, DEMO_MAIN } from './helpers/paths.js';
import { isProtocolLine, Recorded } from './helpers/recorded.js';

const children: Recorded[] = [];
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  client = undefined;
  for (const child of children.splice(0)) child.kill();
});

function start(args: string[]): Recorded {
  const child = new Recorded(args);
  children.push(child);
  return child;
}

/** The official SDK client on the demo server over stdio; `stderr` collects what the server wrote there. */
async function sdkClient(args: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [DEMO_MAIN, '--stdio', ...args],
    stderr: 'pipe',
  });
  const seen = { stderr: '', errors: [] as Error[] };
  transport.stderr?.on('data', (chunk: Buffer) => {
    seen.stderr += chunk.toString('utf8');
  });
  client = new Client({ name: 'console-test', version: '1.0.0' });
  // The SDK reports each stdout line that is not a JSON-RPC message here, and reads on.
  client.onerror = (error) => seen.errors.push(error);
  await client.connect(transport);
  return { client, transport, seen };
}

/** Resolves once `read()` contains `text`, checking after each chunk of `stream`. */
async function untilText(stream: EventEmitter, read: () => string, text: string): Promise<void> {
  while (!read().includes(text)) {
    await new Promise((resolve) => stream.once('data', resolve));
  }
}

/** The lines the demo's console tool writes for `text` (console.timeEnd adds a duration). */
function consoleToolLines(text: string): (string | RegExp)[] {
  return [
    `log: ${text}`,
    `info: ${text}`,
    `debug: ${text}`,
    `{ dir: '${text}' }`,
    `dirxml: ${text}`,
    '│ (index) │ table',
    `count: ${text}: 1`,
    `group: ${text}\n  grouped: ${text}\n`,
    new RegExp(`time: ${text}: [\\d.]+m?s`),
  ];
}

describe('serve() on process.stdout sends the console to stderr while it serves', () => {
  it("the official SDK client gets the console tool's result; its text is on stderr and stdout carries only protocol lines", async () => {
    const { client, transport, seen } = await sdkClient();
    expect(await client.callTool({ name: 'console', arguments: { text: 'via sdk' } })).toMatchObject({
      content: [{ type: 'text', text: 'via sdk' }],
    });
    // A stray line on stdout would have come before the result on the same pipe.
    expect(seen.errors).toEqual([]);
    // Written before the result; the two pipes are read independently, so wait for the last line.
    await untilText(transport.stderr as EventEmitter, () => seen.stderr, 'time: via sdk');
    for (const line of consoleToolLines('via sdk')) expect(seen.stderr).toMatch(line);
    // Still speaking protocol afterwards.
    expect(await client.callTool({ name: 'echo', arguments: { text: 'after' } })).toMatchObject({
      content: [{ text: 'after' }],
    });
    expect(seen.errors).toEqual([]);
  });

  it('every console method that writes to stdout lands on stderr, keeping group indentation and counts; stdout has the response alone', async () => {
    const child = start([DEMO_MAIN, '--stdio']);
    child.send(callTool(1, 'console', { text: 'raw' }));
    child.send(callTool(2, 'console', { text: 'raw' }));
    await child.until('stdout', '"id":2');
    expect(await child.end()).toBe(0);
    const lines = child.stdoutLines();
    expect(lines).toHaveLength(2);
    expect(lines.every(isProtocolLine)).toBe(true);
    expect(lines.map((line) => JSON.parse(line))).toEqual(
      expect.arrayContaining([1, 2].map((id) => expect.objectContaining({ id, result: expect.anything() }))),
    );
    for (const line of consoleToolLines('raw')) expect(child.stderr).toMatch(line);
    // The console's own state carries on: the second call counts 2.
    expect(child.stderr).toContain('count: raw: 2');
  });

  it("with console: 'keep' the console writes to stdout as before: the SDK client still gets its result but reports the stray lines", async () => {
    const { client, seen } = await sdkClient(['--console', 'keep']);
    expect(await client.callTool({ name: 'console', arguments: { text: 'kept' } })).toMatchObject({
      content: [{ type: 'text', text: 'kept' }],
    });
    // The stray lines came before the response on the same pipe, so they were read already.
    expect(seen.errors.length).toBeGreaterThan(0);
    expect(seen.stderr).not.toContain('log: kept');
  });

  it("with console: 'keep' a handler's console.log, console.info and console.table go to stdout between protocol lines", async () => {
    const child = start([CONSOLE_SCENARIOS, 'keep']);
    child.send(callTool(1, 'chatty', { text: 'kept' }));
    expect(await child.end()).toBe(0);
    const lines = child.stdoutLines();
    expect(lines).toEqual(expect.arrayContaining(['log: kept', 'info: kept', 'after serve']));
    expect(lines.some((line) => line.includes('│ (index) │ table'))).toBe(true);
    expect(lines.filter(isProtocolLine)).toHaveLength(1);
    expect(child.stderr).toBe('');
  });

  it('after serve resolves, console.log writes to stdout again', async () => {
    const child = start([CONSOLE_SCENARIOS, 'stdio']);
    child.send(callTool(1, 'chatty', { text: 'served' }));
    expect(await child.end()).toBe(0);
    const lines = child.stdoutLines();
    expect(lines).toHaveLength(2);
    expect(isProtocolLine(lines[0] as string)).toBe(true);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      id: 1,
      result: { content: [{ text: 'served' }] },
    });
    expect(lines[1]).toBe('after serve');
    expect(child.stderr).toContain('log: served\ninfo: served\n');
    expect(child.stderr).toContain('│ (index) │ table');
  });

  it('two serves on stdout at once: the console stays on stderr until the last ends, whichever ends first, also when one fails', async () => {
    // The second serve starts first and ends first (with an error), while stdin is still served.
    const child = start([CONSOLE_SCENARIOS, 'overlap']);
    child.send(callTool(1, 'end-second'));
    await child.until('stdout', '"id":1');
    child.send(callTool(2, 'chatty', { text: 'still serving' }));
    await child.until('stdout', '"id":2');
    expect(await child.end()).toBe(0);
    const lines = child.stdoutLines();
    expect(lines.slice(0, -1).filter((line) => !isProtocolLine(line))).toEqual([]);
    const messages = lines.slice(0, -1).map((line) => JSON.parse(line));
    expect(messages.find(isResponseTo(1))).toMatchObject({
      result: { content: [{ text: 'second rejected: SNODO_ERR_READ_FAILED' }] },
    });
    expect(messages.find(isResponseTo(2))).toMatchObject({
      result: { content: [{ text: 'still serving' }] },
    });
    expect(lines.at(-1)).toBe('after serve');
    expect(child.stderr).toContain('log: still serving');
  });

  it('a serve that ends with an error gives stdout back to the console', async () => {
    const child = start([CONSOLE_SCENARIOS, 'failing']);
    expect(await child.end()).toBe(0);
    expect(child.stdout).toBe('after failure\n');
    expect(child.stderr).toBe('while serving\nserve rejected: SNODO_ERR_READ_FAILED\n');
  });

  it('with another output the console is never touched', async () => {
    const child = start([CONSOLE_SCENARIOS, 'custom-output']);
    expect(await child.end()).toBe(0);
    expect(child.stdout).toBe('while serving\nafter serve\n');
    expect(child.stderr).toBe('');
  });
});
