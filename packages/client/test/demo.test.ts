// End to end against the demo server (examples/everything) over stdio, Streamable HTTP and
// in-process, every revision forced with protocolVersions.
import { EventEmitter, once } from 'node:events';
import { LEGACY_VERSIONS, SUPPORTED_VERSIONS } from '@snodo/core';
import { createEverythingServer } from 'everything/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  type ClientTransport,
  type ConnectOptions,
  connect,
  DirectTransport,
  HttpTransport,
  ProtocolError,
  StdioTransport,
} from '../src/index.js';
import { DEMO_MAIN } from './helpers/paths.js';
import { type Started, startDemoHttp } from './helpers/servers.js';
import { wrap } from './helpers/wrap.js';

let http: Started;
beforeAll(async () => {
  http = await startDemoHttp();
});
afterAll(async () => {
  await http?.stop();
});

const KINDS = ['stdio', 'http', 'direct'] as const;
type Kind = (typeof KINDS)[number];

function transportFor(kind: Kind): ClientTransport {
  switch (kind) {
    case 'stdio':
      return new StdioTransport({ command: process.execPath, args: [DEMO_MAIN, '--stdio'] });
    case 'http':
      return new HttpTransport(http.url);
    case 'direct':
      return new DirectTransport(createEverythingServer());
  }
}

function target(kind: Kind) {
  switch (kind) {
    case 'stdio':
      return { stdio: { command: process.execPath, args: [DEMO_MAIN, '--stdio'] } };
    case 'http':
      return { http: http.url };
    case 'direct':
      return { direct: createEverythingServer() };
  }
}

async function withClient<T>(
  kind: Kind,
  options: ConnectOptions,
  body: (client: Client) => Promise<T>,
): Promise<T> {
  const client = await connect(target(kind), options);
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

const answerAda: ConnectOptions['onElicit'] = () => ({ action: 'accept', content: { name: 'Ada' } });

describe.each(KINDS)('demo server over %s', (kind) => {
  it.each(SUPPORTED_VERSIONS)(
    'speaks %s: tools, resources, prompts, completion, progress',
    async (version) => {
      await withClient(kind, { protocolVersions: [version] }, async (client) => {
        expect(client.protocolVersion).toBe(version);
        expect(client.era).toBe(version === '2026-07-28' ? 'modern' : 'legacy');
        expect(client.serverInfo).toMatchObject({ name: 'everything', version: '0.0.0' });
        expect(client.serverCapabilities.tools).toBeDefined();
        expect(client.instructions).toMatch(/demo server/);

        const tools = await client.allTools();
        expect(tools.map((t) => t.name)).toEqual(
          expect.arrayContaining(['echo', 'add', 'sleep', 'fail', 'unicode', 'ask', 'touch']),
        );
        expect((await client.callTool('echo', { text: 'hi ✓' })).content).toEqual([
          { type: 'text', text: 'hi ✓' },
        ]);
        const sum = await client.callTool('add', { a: 2, b: 3 });
        if (version === '2025-03-26') expect(sum.structuredContent).toBeUndefined();
        else expect(sum.structuredContent).toEqual({ sum: 5 });
        expect((await client.callTool('fail')).isError).toBe(true);
        const unknown = await client.callTool('nope').catch((e: unknown) => e);
        expect(ProtocolError.is(unknown) && unknown.code).toBe(-32602);

        expect((await client.readResource('demo://greeting')).contents[0]).toMatchObject({
          uri: 'demo://greeting',
          text: 'Hello from the Snodo everything demo!',
        });
        const item = (await client.readResource('demo://items/42')).contents[0] as
          | { text?: string }
          | undefined;
        expect(JSON.parse(String(item?.text))).toEqual({
          id: '42',
          name: 'Item 42',
        });
        const missing = await client.readResource('demo://nothing').catch((e: unknown) => e);
        expect(ProtocolError.is(missing) && missing.code).toBe(version === '2026-07-28' ? -32602 : -32002);
        expect((await client.allResourceTemplates()).map((t) => t.uriTemplate)).toEqual([
          'demo://items/{id}',
        ]);
        expect((await client.allPrompts()).map((p) => p.name)).toEqual(['greet']);
        const prompt = await client.getPrompt('greet', { name: 'Ada' });
        expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Please greet Ada warmly.' });
        const names = await client.complete(
          { type: 'ref/prompt', name: 'greet' },
          { name: 'name', value: 'a' },
        );
        expect(names.completion.values).toEqual(['Ada', 'Alan']);
        const ids = await client.complete(
          { type: 'ref/resource', uri: 'demo://items/{id}' },
          { name: 'id', value: '1' },
        );
        expect(ids.completion.values).toEqual(['1', '10']);

        const progress: number[] = [];
        const slept = await client.callTool(
          'sleep',
          { ms: 250 },
          { onProgress: (p) => progress.push(p.progress) },
        );
        expect(slept.content[0]).toEqual({ type: 'text', text: 'slept 250 ms' });
        expect(progress.length).toBeGreaterThan(0);
        expect([...progress].sort((a, b) => a - b)).toEqual(progress);
      });
    },
  );

  it.each(SUPPORTED_VERSIONS)(
    'answers the ask tool through onElicit on %s (MRTR, or a server request before 2026-07-28, related to the call where the transport can tell)',
    async (version) => {
      const asked: unknown[] = [];
      const recorder = wrap(transportFor(kind));
      const client = await connect(
        { transport: recorder },
        {
          protocolVersions: [version],
          onElicit: (params, context) => {
            asked.push([params.message, context.via, context.relatedRequestId]);
            return { action: 'accept', content: { name: 'Ada' } };
          },
        },
      );
      try {
        expect(client.capabilities).toEqual({ elicitation: {} });
        if (version === '2025-03-26') {
          // That revision has no elicitation: the server refuses instead of sending the request.
          const error = await client.callTool('ask').catch((e: unknown) => e);
          expect(ProtocolError.is(error)).toBe(true);
          expect(error).toMatchObject({ code: -32021, message: /does not exist in protocol revision/ });
        } else {
          expect((await client.callTool('ask')).content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
        }
      } finally {
        await client.close();
      }
      const call = recorder.requests.find((r) => r.method === 'tools/call');
      // A server request arrives on its call's response stream (HTTP) or is written with its call's
      // key (in process); one stdio stream cannot tell which call it belongs to.
      const related = kind === 'stdio' ? undefined : call?.id;
      const expected = {
        '2026-07-28': [['What is your name?', 'mrtr', undefined]],
        '2025-03-26': [],
      }[version as string] ?? [['What is your name?', 'request', related]];
      expect(asked).toEqual(expected);
    },
  );

  it('show_greeting links to its MCP Apps page only for a client that declares the UI extension', async () => {
    const ui = { extensions: { 'io.modelcontextprotocol/ui': {} } };
    await withClient(kind, { protocolVersions: ['2026-07-28'], capabilities: ui }, async (client) => {
      const tool = (await client.allTools()).find((t) => t.name === 'show_greeting');
      expect(tool?._meta).toMatchObject({ ui: { resourceUri: 'ui://everything/greeting.html' } });
      const page = await client.readResource('ui://everything/greeting.html');
      expect(page.contents[0]).toMatchObject({ mimeType: 'text/html;profile=mcp-app' });
      // The page speaks the MCP Apps handshake before it waits for the tool result.
      const html = (page.contents[0] as { text: string }).text;
      expect(html).toContain("method: 'ui/initialize'");
      expect(html).toContain('ui/notifications/tool-result');
    });
    await withClient(kind, { protocolVersions: ['2026-07-28'] }, async (client) => {
      const tool = (await client.allTools()).find((t) => t.name === 'show_greeting');
      expect(tool?._meta?.ui).toBeUndefined();
      const page = await client.readResource('ui://everything/greeting.html');
      expect(page.contents[0]).toMatchObject({ mimeType: 'text/html' });
    });
  });

  it('MRTR: the retry carries a new id and the exact requestState; a tampered one is refused', async () => {
    const recorder = wrap(transportFor(kind));
    const client = await connect(
      { transport: recorder },
      { protocolVersions: ['2026-07-28'], onElicit: answerAda },
    );
    try {
      await client.callTool('ask');
    } finally {
      await client.close();
    }
    const [first, retry] = recorder.requests.filter((r) => r.method === 'tools/call');
    expect(retry?.id).not.toBe(first?.id);
    const state = (retry?.params as { requestState?: unknown } | undefined)?.requestState;
    expect(typeof state).toBe('string');
    expect((retry?.params as { inputResponses?: unknown } | undefined)?.inputResponses).toEqual({
      elicit: { action: 'accept', content: { name: 'Ada' } },
    });

    const tampering = wrap(transportFor(kind), (request) => {
      const params = request.params as { requestState?: string } | undefined;
      if (params?.requestState === undefined) return request;
      // Replace the next-to-last character (six whole bits of the MAC) with a different one.
      const state = params.requestState;
      const flipped = `${state.slice(0, -2)}${state.at(-2) === 'A' ? 'B' : 'A'}${state.slice(-1)}`;
      return { ...request, params: { ...request.params, requestState: flipped } };
    });
    const victim = await connect(
      { transport: tampering },
      { protocolVersions: ['2026-07-28'], onElicit: answerAda },
    );
    try {
      const error = await victim.callTool('ask').catch((e: unknown) => e);
      expect(ProtocolError.is(error)).toBe(true);
      expect(error).toMatchObject({ code: -32602, message: /requestState/ });
    } finally {
      await victim.close();
    }
  });

  it.each(SUPPORTED_VERSIONS)(
    'a subscription on %s receives notifications/resources/updated after touch',
    async (version) => {
      await withClient(kind, { protocolVersions: [version] }, async (client) => {
        const subscription = client.listen({ resourceSubscriptions: ['demo://greeting'] });
        expect(await subscription.ready).toEqual({ resourceSubscriptions: ['demo://greeting'] });
        await client.callTool('touch', { uri: 'demo://items/1' });
        await client.callTool('touch', { uri: 'demo://greeting' });
        for await (const notification of subscription) {
          expect(notification).toMatchObject({
            method: 'notifications/resources/updated',
            params: { uri: 'demo://greeting' },
          });
          break;
        }
        expect(subscription.ended).toBe(true);
      });
    },
  );

  it('caches reads on 2026-07-28 and drops the entry when notifications/resources/updated arrives', async () => {
    const recorder = wrap(transportFor(kind));
    const client = await connect({ transport: recorder }, { protocolVersions: ['2026-07-28'] });
    try {
      const reads = () => recorder.requests.filter((r) => r.method === 'resources/read').length;
      const lists = () => recorder.requests.filter((r) => r.method === 'tools/list').length;
      await client.readResource('demo://greeting');
      await client.readResource('demo://greeting');
      await client.allTools();
      await client.allTools();
      expect([reads(), lists()]).toEqual([1, 1]);
      const subscription = client.listen({ resourceSubscriptions: ['demo://greeting'] });
      await subscription.ready;
      await client.callTool('touch', { uri: 'demo://greeting' });
      for await (const _ of subscription) break;
      await client.readResource('demo://greeting');
      expect(reads()).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('cancels a call through its signal; the server stops it and the client stays usable', async () => {
    await withClient(kind, { probeTimeout: 20_000 }, async (client) => {
      const controller = new AbortController();
      const call = client.callTool(
        'sleep',
        { ms: 20_000 },
        { signal: controller.signal, onProgress: () => controller.abort(new Error('enough')) },
      );
      await expect(call).rejects.toMatchObject({ code: 'SNODO_ERR_ABORTED' });
      // The cancelled sleep no longer runs: a new one eventually sees itself alone.
      let concurrent = 0;
      for (let i = 0; i < 200 && concurrent !== 1; i++) {
        const result = await client.callTool('sleep', { ms: 0 });
        concurrent = (result.structuredContent as { concurrent: number }).concurrent;
      }
      expect(concurrent).toBe(1);
    });
  });
});

describe("the demo's console tool over stdio (serve sends the console to stderr)", () => {
  /** Connects to the demo over stdio; `stderr` and `warnings` collect what the client saw. */
  async function consoleClient(args: string[] = []) {
    const seen = { stderr: '', warnings: [] as string[] };
    const stderrChunk = new EventEmitter();
    const client = await connect(
      { stdio: { command: process.execPath, args: [DEMO_MAIN, '--stdio', ...args] } },
      {
        onStderr: (text) => {
          seen.stderr += text;
          stderrChunk.emit('data');
        },
        // A stdout line that is not JSON-RPC is skipped with a warning.
        onWarning: (message) => seen.warnings.push(message),
      },
    );
    const untilStderr = async (text: string) => {
      while (!seen.stderr.includes(text)) await once(stderrChunk, 'data');
    };
    return { client, seen, untilStderr };
  }

  it('gets the result; the text is on stderr and no stray line reached stdout', async () => {
    const { client, seen, untilStderr } = await consoleClient();
    try {
      expect((await client.callTool('console', { text: 'via snodo' })).content).toEqual([
        { type: 'text', text: 'via snodo' },
      ]);
      // A stray line on stdout would have come before the result on the same pipe.
      expect(seen.warnings).toEqual([]);
      // Written before the result, but the two pipes are read independently.
      await untilStderr('time: via snodo');
      for (const line of ['log: via snodo', 'info: via snodo', 'debug: via snodo', '│ (index) │ table']) {
        expect(seen.stderr).toContain(line);
      }
    } finally {
      await client.close();
    }
  });

  it("with --console keep (serve's console: 'keep') the lines reach stdout and are skipped with warnings", async () => {
    const { client, seen } = await consoleClient(['--console', 'keep']);
    try {
      expect((await client.callTool('console', { text: 'kept' })).content).toEqual([
        { type: 'text', text: 'kept' },
      ]);
      expect(seen.warnings).toEqual(
        expect.arrayContaining([
          expect.stringContaining('not a JSON-RPC message'),
          expect.stringContaining('log: kept'),
        ]),
      );
    } finally {
      await client.close();
    }
  });
});

describe('legacy revisions over the demo HTTP server', () => {
  it.each(LEGACY_VERSIONS)(
    'keeps the session of %s, sends its version header, reports its end',
    async (version) => {
      const transport = new HttpTransport(http.url);
      const recorder = wrap(transport);
      const client = await connect({ transport: recorder }, { protocolVersions: [version] });
      try {
        expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
        await client.callTool('echo', { text: 'x' });
        const call = recorder.sendOptions[recorder.requests.findIndex((r) => r.method === 'tools/call')];
        expect(call?.protocolVersion).toBe(version);
        // The session ends elsewhere: the next call says so (the server did not run it).
        const deleted = await fetch(http.url, {
          method: 'DELETE',
          headers: { 'mcp-session-id': transport.sessionId ?? '', 'mcp-protocol-version': version },
        });
        await deleted.arrayBuffer();
        expect(deleted.status).toBeLessThan(300);
        await expect(client.callTool('echo', { text: 'y' })).rejects.toMatchObject({
          code: 'SNODO_ERR_SESSION_EXPIRED',
          status: 404,
        });
      } finally {
        await client.close();
      }
    },
  );
});
