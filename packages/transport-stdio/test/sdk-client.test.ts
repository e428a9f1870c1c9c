// The official TypeScript SDK's client connects to the demo server over stdio, as a host would.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_MAIN } from './helpers/paths.js';

const UNICODE_TEXT = 'Grüße aus Köln — こんにちは, 世界! ½ € ✓ 🦄';

let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  client = undefined;
});

async function connect(): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [DEMO_MAIN, '--stdio'],
    stderr: 'pipe',
  });
  client = new Client({ name: 'sdk-interop', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

describe('the official SDK client over stdio', () => {
  it('initializes, lists the tools and calls them', async () => {
    const { client } = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: 'everything' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {} });

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['add', 'echo', 'fail', 'sleep', 'unicode']),
    );
    expect(tools.find((tool) => tool.name === 'add')?.outputSchema).toMatchObject({ type: 'object' });

    expect(await client.callTool({ name: 'echo', arguments: { text: 'hello sdk' } })).toMatchObject({
      content: [{ type: 'text', text: 'hello sdk' }],
    });
    // The SDK validates structuredContent against the tool's outputSchema itself.
    expect(await client.callTool({ name: 'add', arguments: { a: 40, b: 2 } })).toMatchObject({
      structuredContent: { sum: 42 },
    });
    expect(await client.callTool({ name: 'fail', arguments: {} })).toMatchObject({ isError: true });
    expect(await client.callTool({ name: 'unicode', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: UNICODE_TEXT }],
    });
  });

  it('gets progress notifications from sleep and many concurrent calls answered', async () => {
    const { client } = await connect();
    const progress: number[] = [];
    const slept = await client.callTool({ name: 'sleep', arguments: { ms: 350 } }, undefined, {
      onprogress: (event) => progress.push(event.progress),
    });
    expect(slept).toMatchObject({ structuredContent: { sleptMs: 350 } });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));

    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client.callTool({ name: 'echo', arguments: { text: `n${i}` } })),
    );
    expect(results.map((r) => (r.content as Array<{ text: string }>)[0]?.text)).toEqual(
      Array.from({ length: 50 }, (_, i) => `n${i}`),
    );
  });

  it('cancels a call through an AbortSignal: the call rejects and the server keeps serving', async () => {
    const { client } = await connect();
    const controller = new AbortController();
    const pending = client.callTool({ name: 'sleep', arguments: { ms: 60_000 } }, undefined, {
      signal: controller.signal,
    });
    controller.abort('no longer needed');
    await expect(pending).rejects.toThrow();
    expect(await client.callTool({ name: 'echo', arguments: { text: 'after cancel' } })).toMatchObject({
      content: [{ text: 'after cancel' }],
    });
  });
});
