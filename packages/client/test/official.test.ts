// End to end against the official servers from the npm registry: @modelcontextprotocol/server-everything
// (stdio and Streamable HTTP on 127.0.0.1) and a server built with @modelcontextprotocol/sdk
// (test/fixtures/sdk-server.mjs, stdio and stateful Streamable HTTP). Both speak the initialize-based
// revisions only, so every connection exercises the dual-era fallback first.
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  type ConnectOptions,
  connect,
  HttpTransport,
  ProtocolError,
  type Target,
} from '../src/index.js';
import { EVERYTHING_ENTRY, FIXTURES } from './helpers/paths.js';
import { type Started, startEverythingHttp, startPinned } from './helpers/servers.js';
import { wrap } from './helpers/wrap.js';

const SDK_SERVER = join(FIXTURES, 'sdk-server.mjs');

/** Resolves when `child` prints a stderr line matching `pattern` (from now on). */
function stderrLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = text.match(pattern);
      if (match) {
        child.stderr?.off('data', onData);
        resolve(match[0]);
      }
    };
    child.stderr?.on('data', onData);
  });
}

let everythingHttp: Started;
let sdkHttp: Started;
beforeAll(async () => {
  [everythingHttp, sdkHttp] = await Promise.all([startEverythingHttp(), startPinned([SDK_SERVER, 'http'])]);
});
afterAll(async () => {
  await Promise.all([everythingHttp?.stop(), sdkHttp?.stop()]);
});

const elicitAnswers: { message: unknown }[] = [];
const options: ConnectOptions = {
  onElicit: (params) => {
    elicitAnswers.push({ message: params.message });
    return { action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } };
  },
};

async function using<T>(target: Target, body: (client: Client) => Promise<T>, extra: ConnectOptions = {}) {
  const client = await connect(target, { ...options, ...extra });
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

describe.each(['stdio', 'http'] as const)('@modelcontextprotocol/server-everything over %s', (kind) => {
  const target = (): Target =>
    kind === 'stdio'
      ? { stdio: { command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] } }
      : { http: everythingHttp.url };

  it('falls back to the initialize handshake and lists, calls, reads, prompts and completes', async () => {
    await using(target(), async (client) => {
      expect(client.protocolVersion).toBe('2025-11-25');
      expect(client.serverInfo?.name).toBe('mcp-servers/everything');
      const tools = await client.allTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['echo', 'get-sum', 'trigger-elicitation-request']),
      );
      expect((await client.callTool('echo', { message: 'hello' })).content).toEqual([
        { type: 'text', text: 'Echo: hello' },
      ]);
      expect((await client.callTool('get-sum', { a: 2, b: 3 })).content[0]).toMatchObject({
        text: expect.stringContaining('5'),
      });
      const resources = await client.allResources();
      expect(resources.length).toBeGreaterThan(0);
      const doc = await client.readResource('demo://resource/static/document/instructions.md');
      expect(doc.contents[0]?.uri).toBe('demo://resource/static/document/instructions.md');
      const prompt = await client.getPrompt('args-prompt', { city: 'Paris', state: 'TX' });
      expect(JSON.stringify(prompt.messages)).toContain('Paris');
      const departments = await client.complete(
        { type: 'ref/prompt', name: 'completable-prompt' },
        { name: 'department', value: 'S' },
      );
      expect(departments.completion.values).toEqual(['Sales', 'Support']);
      const people = await client.complete(
        { type: 'ref/prompt', name: 'completable-prompt' },
        { name: 'name', value: '' },
        { arguments: { department: 'Engineering' } },
      );
      expect(people.completion.values).toEqual(['Alice', 'Bob', 'Charlie']);
      const missing = await client.readResource('demo://nothing/here').catch((e: unknown) => e);
      expect(ProtocolError.is(missing)).toBe(true);
    });
  });

  it('reports progress, cancels a long operation, and answers an elicitation through onElicit', async () => {
    await using(target(), async (client) => {
      const progress: { progress: number; total?: number }[] = [];
      await client.callTool(
        'trigger-long-running-operation',
        { duration: 0.3, steps: 3 },
        { onProgress: (p) => progress.push(p) },
      );
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress[0]).toEqual({ progress: 1, total: 3 });

      const controller = new AbortController();
      const call = client.callTool(
        'trigger-long-running-operation',
        { duration: 30, steps: 300 },
        { signal: controller.signal, onProgress: () => controller.abort(new Error('stop')) },
      );
      await expect(call).rejects.toMatchObject({ code: 'SNODO_ERR_ABORTED' });

      elicitAnswers.length = 0;
      const result = await client.callTool('trigger-elicitation-request', {});
      expect(elicitAnswers).toHaveLength(1);
      expect(JSON.stringify(result.content)).toContain('Ada Lovelace');
    });
  });
});

describe.each(['stdio', 'http'] as const)('a server built with @modelcontextprotocol/sdk over %s', (kind) => {
  it('lists and calls tools, reads resources, gets prompts, completes', async () => {
    const target: Target =
      kind === 'stdio'
        ? { stdio: { command: process.execPath, args: [SDK_SERVER, 'stdio'] } }
        : { http: sdkHttp.url };
    await using(target, async (client) => {
      expect(client.serverInfo).toEqual({ name: 'sdk-fixture', version: '1.2.3' });
      expect((await client.allTools()).map((t) => t.name)).toEqual(['echo', 'slow', 'ask']);
      expect((await client.callTool('echo', { text: 'ü' })).content).toEqual([{ type: 'text', text: 'ü' }]);
      expect((await client.readResource('note://one')).contents).toEqual([
        { uri: 'note://one', mimeType: 'text/plain', text: 'note one' },
      ]);
      expect((await client.readResource('item://7')).contents[0]).toMatchObject({ text: 'item 7' });
      expect((await client.getPrompt('greet', { name: 'Ada' })).messages[0]?.content).toEqual({
        type: 'text',
        text: 'Hello Ada',
      });
      expect(
        (await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'A' }))
          .completion.values,
      ).toEqual(['Ada', 'Alan']);
      expect(
        (await client.complete({ type: 'ref/resource', uri: 'item://{id}' }, { name: 'id', value: '1' }))
          .completion.values,
      ).toEqual(['1', '10']);
      elicitAnswers.length = 0;
      expect((await client.callTool('ask')).content).toEqual([
        { type: 'text', text: 'accept: Ada Lovelace' },
      ]);
      expect(elicitAnswers).toEqual([{ message: 'Your name?' }]);
    });
  });

  it('reports progress and cancels with notifications/cancelled, which stops the handler', async () => {
    if (kind === 'stdio') {
      let seen = '';
      let resolveLine!: (line: string) => void;
      const cancelled = new Promise<string>((resolve) => {
        resolveLine = resolve;
      });
      await using(
        { stdio: { command: process.execPath, args: [SDK_SERVER, 'stdio'] } },
        async (client) => {
          await progressThenCancel(client);
          expect(await cancelled).toMatch(/slow cancelled at \d+/);
        },
        {
          onStderr: (text) => {
            seen += text;
            const match = seen.match(/slow cancelled at \d+/);
            if (match) resolveLine(match[0]);
          },
        },
      );
      return;
    }
    const cancelled = stderrLine(sdkHttp.child, /slow cancelled at \d+/);
    await using({ http: sdkHttp.url }, async (client) => {
      await progressThenCancel(client);
      expect(await cancelled).toMatch(/slow cancelled at \d+/);
    });
  });
});

async function progressThenCancel(client: Client): Promise<void> {
  const steps: number[] = [];
  const done = await client.callTool('slow', { steps: 3 }, { onProgress: (p) => steps.push(p.progress) });
  expect(done.content).toEqual([{ type: 'text', text: 'counted to 3' }]);
  expect(steps.length).toBeGreaterThanOrEqual(2);
  const controller = new AbortController();
  const call = client.callTool(
    'slow',
    { steps: 1000 },
    {
      signal: controller.signal,
      onProgress: () => controller.abort(new Error('enough')),
    },
  );
  await expect(call).rejects.toMatchObject({ code: 'SNODO_ERR_ABORTED', message: /enough/ });
  expect((await client.callTool('echo', { text: 'still here' })).content[0]).toMatchObject({
    text: 'still here',
  });
}

describe('legacy Streamable HTTP details against server-everything', () => {
  it('keeps Mcp-Session-Id, subscribes with resources/subscribe, and DELETEs the session on close', async () => {
    const transport = new HttpTransport(everythingHttp.url);
    const recorder = wrap(transport);
    const client = await connect({ transport: recorder });
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
    const subscription = client.listen({
      resourceSubscriptions: ['demo://resource/static/document/instructions.md'],
    });
    expect(await subscription.ready).toEqual({
      resourceSubscriptions: ['demo://resource/static/document/instructions.md'],
    });
    await subscription.close();
    const methods = recorder.requests.map((r) => r.method);
    expect(methods).toEqual([
      'server/discover',
      'initialize',
      'resources/subscribe',
      'resources/unsubscribe',
    ]);
    expect(recorder.sendOptions.at(-1)?.protocolVersion).toBe('2025-11-25');
    const reuse = () =>
      fetch(everythingHttp.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': transport.sessionId ?? '',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'probe', method: 'ping' }),
      }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      });
    expect(await reuse()).toBe(200);
    await client.close();
    expect(await reuse()).toBeGreaterThanOrEqual(400);
  });
});
