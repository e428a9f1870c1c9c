import { join } from 'node:path';
import { connect } from '@snodo/client';
import { dispatch, type JsonRpcResponse, type Runtime } from '@snodo/core';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy, type McpProxy } from '../src/index.js';
import { frontend, rpcError } from './helpers/proxy.js';
import { demoStdio, everythingStdio } from './helpers/servers.js';

const RAW_MRTR = join(import.meta.dirname, 'fixtures', 'raw-mrtr-server.mjs');

const MODERN = '2026-07-28';
let nextId = 1;

/** One 2026-07-28 request straight into the proxy runtime, to see each MRTR round as it is. */
async function modern(runtime: Runtime, method: string, params: Record<string, unknown>, capabilities = {}) {
  const outcome = await dispatch(runtime, {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      },
    },
  });
  if (outcome.type !== 'response') throw new Error(`expected a response, got ${outcome.type}`);
  return outcome.message as JsonRpcResponse & { result?: any; error?: any };
}

const ANSWER = {
  action: 'accept',
  content: { name: 'Ada', check: true, integer: 7, email: 'ada@example.com' },
};

describe('forwarding through the proxy', () => {
  let proxy: McpProxy;
  let runtime: Runtime;
  let http: McpHttpServer;
  const elicited: { params: Record<string, unknown>; via: string }[] = [];
  const sampled: Record<string, unknown>[] = [];
  const handlers = {
    onElicit: async (params: Record<string, unknown>, context: { via: string }) => {
      elicited.push({ params, via: context.via });
      return ANSWER as { action: 'accept'; content: Record<string, unknown> };
    },
    onSample: async (params: Record<string, unknown>) => {
      sampled.push(params);
      return {
        role: 'assistant' as const,
        content: { type: 'text', text: 'forty-two' },
        model: 'test-model',
      };
    },
  };

  beforeAll(async () => {
    proxy = await createProxy({
      backends: [
        // Pinned: these tests need it on 2026-07-28, and on a loaded machine the server/discover
        // probe could time out and fall back to initialize.
        { id: 'demo', target: demoStdio(), clientOptions: { protocolVersions: ['2026-07-28'] } },
        { id: 'ev', target: everythingStdio() },
        // The demo server again, spoken to on an initialize-based revision.
        { id: 'old', target: demoStdio(), clientOptions: { protocolVersions: ['2025-11-25'] } },
        { id: 'raw', target: { stdio: { command: process.execPath, args: [RAW_MRTR] } } },
      ],
    });
    runtime = proxy.runtime();
    http = await listen({ runtime, port: 0 });
  });

  afterAll(async () => {
    await http?.close();
    await proxy?.close();
  });

  describe('progress and cancellation', () => {
    it('progress of a backend tool reaches the frontend, in order, over HTTP (SSE)', async () => {
      const client = await connect({ http: http.url() });
      try {
        const seen: number[] = [];
        const result = await client.callTool(
          'demo.sleep',
          { ms: 450 },
          { onProgress: (p) => seen.push(p.progress) },
        );
        expect(result.structuredContent).toMatchObject({ sleptMs: 450 });
        expect(seen.length).toBeGreaterThanOrEqual(2);
        expect(seen).toEqual([...seen].sort((a, b) => a - b));
        // server-everything (initialize-based, stdio) reports progress too.
        const steps: { progress: number; total?: number }[] = [];
        await client.callTool(
          'ev.trigger-long-running-operation',
          { duration: 0.3, steps: 3 },
          { onProgress: (p) => steps.push(p) },
        );
        expect(steps.length).toBeGreaterThanOrEqual(1);
        expect(steps[0]).toMatchObject({ progress: 1, total: 3 });
      } finally {
        await client.close();
      }
    });

    it('cancelling a call cancels it on the backend (the demo counts its running sleeps)', async () => {
      const client = await frontend(runtime);
      try {
        const controller = new AbortController();
        const call = client.callTool(
          'demo.sleep',
          { ms: 60_000 },
          { signal: controller.signal, onProgress: () => controller.abort('enough') },
        );
        await expect(call).rejects.toMatchObject({ code: 'SNODO_ERR_ABORTED' });
        // Without the cancellation the 60 s sleep would still count; each probe is a real round trip.
        let concurrent = 0;
        for (let attempt = 0; attempt < 50; attempt++) {
          const probe = await client.callTool('demo.sleep', { ms: 0 });
          concurrent = (probe.structuredContent as { concurrent: number }).concurrent;
          if (concurrent === 1) break;
        }
        expect(concurrent).toBe(1);
      } finally {
        await client.close();
      }
    });

    it('an initialize-based backend: progress through the call, and cancellation as notifications/cancelled', async () => {
      const client = await frontend(runtime);
      try {
        const seen: number[] = [];
        await client.callTool('old.sleep', { ms: 350 }, { onProgress: (p) => seen.push(p.progress) });
        expect(seen.length).toBeGreaterThanOrEqual(1);
        const controller = new AbortController();
        const call = client.callTool(
          'old.sleep',
          { ms: 60_000 },
          { signal: controller.signal, onProgress: () => controller.abort() },
        );
        await expect(call).rejects.toMatchObject({ code: 'SNODO_ERR_ABORTED' });
        let concurrent = 0;
        for (let attempt = 0; attempt < 50; attempt++) {
          const probe = await client.callTool('old.sleep', { ms: 0 });
          concurrent = (probe.structuredContent as { concurrent: number }).concurrent;
          if (concurrent === 1) break;
        }
        expect(concurrent).toBe(1);
      } finally {
        await client.close();
      }
    });

    it('closing the HTTP stream of a 2026-07-28 call cancels the backend call', async () => {
      const client = await connect({ http: http.url() });
      try {
        const controller = new AbortController();
        const call = client.callTool(
          'demo.sleep',
          { ms: 60_000 },
          { signal: controller.signal, onProgress: () => controller.abort() },
        );
        await expect(call).rejects.toMatchObject({ code: 'SNODO_ERR_ABORTED' });
        let concurrent = 0;
        for (let attempt = 0; attempt < 50; attempt++) {
          const probe = await client.callTool('demo.sleep', { ms: 0 });
          concurrent = (probe.structuredContent as { concurrent: number }).concurrent;
          if (concurrent === 1) break;
        }
        expect(concurrent).toBe(1);
      } finally {
        await client.close();
      }
    });
  });

  describe('MRTR through the proxy', () => {
    it('2026-07-28 frontend, 2026-07-28 backend: the input request and its answer pass through in the original request', async () => {
      const caps = { elicitation: {} };
      const first = await modern(runtime, 'tools/call', { name: 'demo.ask', arguments: {} }, caps);
      expect(first.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: {
          elicit: { method: 'elicitation/create', params: { message: 'What is your name?' } },
        },
        requestState: expect.any(String),
      });
      const retry = await modern(
        runtime,
        'tools/call',
        {
          name: 'demo.ask',
          arguments: {},
          inputResponses: { elicit: { action: 'accept', content: { name: 'Grace' } } },
          requestState: first.result.requestState,
        },
        caps,
      );
      expect(retry.result).toMatchObject({
        resultType: 'complete',
        content: [{ type: 'text', text: 'Hello, Grace!' }],
      });
      // The proxy's requestState is its own (signed, bound to the request): a tampered one is refused.
      const tampered = await modern(
        runtime,
        'tools/call',
        {
          name: 'demo.ask',
          arguments: {},
          inputResponses: { elicit: ANSWER },
          requestState: `${first.result.requestState}x`,
        },
        caps,
      );
      expect(tampered.error.code).toBe(-32602);
    });

    it('2026-07-28 frontend, initialize-based backend: server-initiated elicitation and sampling become MRTR rounds', async () => {
      const client = await frontend(runtime, handlers);
      try {
        elicited.length = 0;
        const result = await client.callTool('ev.trigger-elicitation-request', {});
        expect(elicited).toHaveLength(1);
        expect(elicited[0]).toMatchObject({
          via: 'mrtr',
          params: { message: expect.stringMatching(/fields/) },
        });
        expect(JSON.stringify(result.content)).toContain('Name: Ada');
        sampled.length = 0;
        const sampling = await client.callTool('ev.trigger-sampling-request', { prompt: 'the answer' });
        expect(sampled).toHaveLength(1);
        expect(JSON.stringify(sampled[0])).toContain('the answer');
        expect(JSON.stringify(sampling.content)).toContain('forty-two');
      } finally {
        await client.close();
      }
    });

    it('a backend that reuses an input key in its next round: the frontend sees a fresh key, the backend its own', async () => {
      const caps = { elicitation: {} };
      const call = { name: 'raw.twice', arguments: {} };
      const first = await modern(runtime, 'tools/call', call, caps);
      expect(Object.keys(first.result.inputRequests)).toEqual(['q']);
      const second = await modern(
        runtime,
        'tools/call',
        {
          ...call,
          inputResponses: { q: { action: 'accept', content: { v: 'A' } } },
          requestState: first.result.requestState,
        },
        caps,
      );
      // Core keeps every earlier answer in the request's state: a reused key would be answered by the old one.
      expect(second.result.inputRequests).toEqual({
        'q~2': expect.objectContaining({ params: expect.objectContaining({ message: 'second?' }) }),
      });
      const done = await modern(
        runtime,
        'tools/call',
        {
          ...call,
          inputResponses: { 'q~2': { action: 'accept', content: { v: 'B' } } },
          requestState: second.result.requestState,
        },
        caps,
      );
      expect(done.result.content).toEqual([{ type: 'text', text: 'A then B' }]);
      // An initialize-based frontend is asked both questions in one call.
      const answers = ['C', 'D'];
      const old = await frontend(runtime, {
        protocolVersions: ['2025-11-25'],
        onElicit: async () => ({ action: 'accept', content: { v: answers.shift() as string } }),
      });
      try {
        expect(await old.callTool('raw.twice')).toMatchObject({
          content: [{ type: 'text', text: 'C then D' }],
        });
      } finally {
        await old.close();
      }
    });

    it('2026-07-28 frontend, the demo over an initialize-based revision: its elicitation/create becomes a round', async () => {
      const client = await frontend(runtime, handlers);
      try {
        elicited.length = 0;
        expect(await client.callTool('old.ask', {})).toMatchObject({
          content: [{ type: 'text', text: 'Hello, Ada!' }],
        });
        expect(elicited).toEqual([
          { via: 'mrtr', params: expect.objectContaining({ message: 'What is your name?' }) },
        ]);
      } finally {
        await client.close();
      }
    });

    it('initialize-based frontend: input goes to it as server-initiated requests, whatever the backend', async () => {
      const client = await frontend(runtime, { ...handlers, protocolVersions: ['2025-11-25'] });
      try {
        expect(client.protocolVersion).toBe('2025-11-25');
        elicited.length = 0;
        expect(await client.callTool('demo.ask', {})).toMatchObject({
          content: [{ type: 'text', text: 'Hello, Ada!' }],
        });
        const ev = await client.callTool('ev.trigger-elicitation-request', {});
        expect(JSON.stringify(ev.content)).toContain('Name: Ada');
        expect(elicited.map((e) => e.via)).toEqual(['request', 'request']);
      } finally {
        await client.close();
      }
    });

    it('a frontend that cannot answer gets -32021 (2026-07-28 backend) or the backend its refusal (initialize-based)', async () => {
      const client = await frontend(runtime);
      try {
        expect((await rpcError(client.callTool('demo.ask', {}))).code).toBe(-32021);
        // The backend's elicitation is refused; server-everything reports the failure in its result.
        const result = await client.callTool('ev.trigger-elicitation-request', {});
        expect(result).toMatchObject({
          isError: true,
          content: [
            { type: 'text', text: 'MCP error -32021: Missing required client capability: elicitation' },
          ],
        });
      } finally {
        await client.close();
      }
    });

    it('a retry whose parked call is gone (another proxy process, same secret) is told to start again', async () => {
      const secret = 'x'.repeat(32);
      const caps = { elicitation: {} };
      const first = await modern(
        proxy.runtime({ mrtr: { secret } }),
        'tools/call',
        { name: 'ev.trigger-elicitation-request', arguments: {} },
        caps,
      );
      expect(first.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { 'elicit-1': { method: 'elicitation/create' } },
      });
      const other = await createProxy({ backends: [{ id: 'ev', target: everythingStdio() }] });
      try {
        const retry = await modern(
          other.runtime({ mrtr: { secret } }),
          'tools/call',
          {
            name: 'ev.trigger-elicitation-request',
            arguments: {},
            inputResponses: { 'elicit-1': ANSWER },
            requestState: first.result.requestState,
          },
          caps,
        );
        expect(retry.error).toMatchObject({ code: -32602, data: { reason: 'input_expired' } });
      } finally {
        await other.close();
      }
      // The first proxy still holds the parked call: answering it there completes it.
      const done = await modern(
        proxy.runtime({ mrtr: { secret } }),
        'tools/call',
        {
          name: 'ev.trigger-elicitation-request',
          arguments: {},
          inputResponses: { 'elicit-1': ANSWER },
          requestState: first.result.requestState,
        },
        caps,
      );
      expect(JSON.stringify(done.result.content)).toContain('Name: Ada');
    });
  });
});
