import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DEMO_MAIN = fileURLToPath(new URL('../../../examples/everything/dist/main.js', import.meta.url));

let child: ChildProcess;
let url: string;

beforeAll(async () => {
  child = spawn(process.execPath, [DEMO_MAIN, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  url = line.toString('utf8').trim();
});

afterAll(async () => {
  child.kill('SIGTERM');
  await once(child, 'exit');
});

describe('the official SDK client (1.32.2, Streamable HTTP) against the demo server', () => {
  it('prints its URL on 127.0.0.1', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('initializes, lists and calls tools, reads a resource, gets a prompt, and ends its session', async () => {
    const client = new Client({ name: 'sdk-interop', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe('everything');
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'sleep']));
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'héllo' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'héllo' }]);
    const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(add.structuredContent).toEqual({ sum: 5 });

    const resource = await client.readResource({ uri: 'demo://greeting' });
    expect(resource.contents[0]?.uri).toBe('demo://greeting');
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    expect(JSON.stringify(prompt.messages)).toContain('Ada');

    await transport.terminateSession();
    expect(transport.sessionId).toBeUndefined();
    await client.close();
  });

  it('progress notifications reach the SDK client over SSE', async () => {
    const client = new Client({ name: 'sdk-progress', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    const seen: number[] = [];
    const result = await client.callTool({ name: 'sleep', arguments: { ms: 250 } }, undefined, {
      onprogress: (progress) => seen.push(progress.progress),
    });
    expect(result.isError).toBeFalsy();
    expect(seen.length).toBeGreaterThan(0);
    await client.close();
  });
});
