import { context, metrics, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createServer, type ErrorContext, Executor, prompt, resource, tool } from '../src/index.js';
import { elicitingClient, initialize, legacy, MODERN, modern } from './helpers/demo.js';
import { run } from './helpers/run.js';

const spans = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const meterProvider = new MeterProvider({ readers: [reader] });

beforeAll(() => {
  provider.register(); // global tracer provider, AsyncLocalStorage context manager, W3C propagators
  metrics.setGlobalMeterProvider(meterProvider);
});
afterAll(async () => {
  await provider.shutdown();
  await meterProvider.shutdown();
});
beforeEach(() => spans.reset());

const errors: { error: unknown; context: ErrorContext }[] = [];
const runtime = createServer({
  name: 'traced',
  version: '1.0.0',
  onError: (error, ctx) => errors.push({ error, context: ctx }),
  tools: [
    tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text }),
    tool({
      name: 'boom',
      inputSchema: z.object({}),
      handler: () => {
        throw new Error('tool exploded');
      },
    }),
    tool({
      name: 'ask',
      inputSchema: z.object({}),
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit({
          message: 'Name?',
          requestedSchema: { type: 'object', properties: {} },
        });
        return `got ${String(answer.action)}`;
      },
    }),
    tool({
      name: 'nested',
      inputSchema: z.object({}),
      handler: () => {
        // The request's span is active inside the handler: the application's spans are its children.
        trace.getTracer('app').startActiveSpan('app work', (span: Span) => span.end());
        return 'ok';
      },
    }),
  ],
  prompts: [
    prompt({
      name: 'broken',
      get: () => {
        throw new TypeError('prompt exploded');
      },
    }),
  ],
  resources: [resource({ uri: 'mem://a', name: 'a', read: () => 'A' })],
});

const ELICIT = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = `00-${PARENT_TRACE}-00f067aa0ba902b7-01`;

function only(name: string): ReadableSpan {
  const found = spans.getFinishedSpans().filter((span) => span.name === name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0] as ReadableSpan;
}

describe('server spans', () => {
  it('names a tools/call span "tools/call {tool}" with the MCP convention attributes (2026-07-28)', async () => {
    const request = modern('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    await run(runtime, request, { connectionId: 'conn-1' });
    const span = only('tools/call echo');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': String(request.id),
      'mcp.protocol.version': MODERN,
      'mcp.session.id': 'conn-1',
    });
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
    'traces each method of an initialize-based session (%s) with its revision',
    async (version) => {
      const init = await run(runtime, initialize(version));
      const session = init.outcome.type === 'response' ? init.outcome.session : undefined;
      expect(session).toBeDefined();
      expect(only('initialize').attributes['mcp.protocol.version']).toBe(version);
      const cases: [string, Record<string, unknown>, string][] = [
        ['tools/list', {}, 'tools/list'],
        ['tools/call', { name: 'echo', arguments: { text: 'x' } }, 'tools/call echo'],
        ['resources/read', { uri: 'mem://a' }, 'resources/read'],
        ['prompts/list', {}, 'prompts/list'],
        ['ping', {}, 'ping'],
      ];
      for (const [method, params, name] of cases) {
        spans.reset();
        await run(runtime, legacy(method, params), { session });
        const span = only(name);
        expect(span.attributes['mcp.method.name']).toBe(method);
        expect(span.attributes['mcp.protocol.version']).toBe(version);
        if (method === 'resources/read') expect(span.attributes['mcp.resource.uri']).toBe('mem://a');
      }
    },
  );

  it('takes its parent from params._meta.traceparent and keeps the tracestate', async () => {
    await run(
      runtime,
      modern('tools/list', {}, { traceparent: PARENT, tracestate: 'rojo=00f067aa0ba902b7' }),
    );
    const span = only('tools/list');
    expect(span.spanContext().traceId).toBe(PARENT_TRACE);
    expect(span.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(span.spanContext().traceState?.get('rojo')).toBe('00f067aa0ba902b7');
  });

  it('prefers _meta over the host span (linked) and the host span over HTTP headers', async () => {
    const host = trace.getTracer('host').startSpan('POST /mcp');
    await context.with(trace.setSpan(context.active(), host), () =>
      run(runtime, modern('tools/list', {}, { traceparent: PARENT })),
    );
    const fromMeta = only('tools/list');
    expect(fromMeta.spanContext().traceId).toBe(PARENT_TRACE);
    expect(fromMeta.links.map((link) => link.context.spanId)).toEqual([host.spanContext().spanId]);

    spans.reset();
    const headers = { traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` };
    await context.with(trace.setSpan(context.active(), host), () =>
      run(runtime, modern('tools/list'), { headers }),
    );
    expect(only('tools/list').parentSpanContext?.spanId).toBe(host.spanContext().spanId);

    spans.reset();
    await run(runtime, modern('tools/list'), { headers });
    const fromHeaders = only('tools/list');
    expect(fromHeaders.spanContext().traceId).toBe('1'.repeat(32));
    expect(fromHeaders.attributes['network.transport']).toBe('tcp');
    host.end();
  });

  it('makes the application spans of a handler children of the request span', async () => {
    await run(runtime, modern('tools/call', { name: 'nested', arguments: {} }));
    const server = only('tools/call nested');
    const app = only('app work');
    expect(app.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
  });

  it('marks JSON-RPC errors with error.type and rpc.response.status_code, and tool errors as tool_error', async () => {
    await run(runtime, modern('tools/call', { name: 'missing', arguments: {} }));
    const unknown = only('tools/call missing');
    expect(unknown.attributes['error.type']).toBe('-32602');
    expect(unknown.attributes['rpc.response.status_code']).toBe('-32602');
    expect(unknown.status.code).toBe(SpanStatusCode.ERROR);

    spans.reset();
    await run(runtime, modern('tools/call', { name: 'boom', arguments: {} }));
    const failed = only('tools/call boom');
    expect(failed.attributes['error.type']).toBe('tool_error');
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed.events.map((event) => event.name)).toEqual([]);

    spans.reset();
    await run(runtime, modern('prompts/get', { name: 'broken' }));
    const internal = only('prompts/get broken');
    expect(internal.attributes['error.type']).toBe('-32603');
    expect(internal.attributes['gen_ai.prompt.name']).toBe('broken');
    expect(internal.events.map((event) => event.name)).toEqual(['exception']);

    spans.reset();
    await run(runtime, modern('no/such/method'));
    expect(only('no/such/method').attributes['error.type']).toBe('-32601');
  });

  it('records an MRTR round that asks for input as a CLIENT child span per input request', async () => {
    await run(runtime, modern('tools/call', { name: 'ask', arguments: {} }, ELICIT));
    const server = only('tools/call ask');
    const input = only('elicitation/create');
    expect(server.attributes['snodo.result_type']).toBe('input_required');
    expect(input.kind).toBe(SpanKind.CLIENT);
    expect(input.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(input.attributes).toMatchObject({ 'snodo.mrtr.round': 1, 'snodo.mrtr.input_key': 'elicit' });
  });

  it('sends a server-initiated request (initialize-based) in a CLIENT span whose context is in its _meta', async () => {
    const { session, channel, sent } = await elicitingClient(runtime);
    spans.reset();
    await run(runtime, legacy('tools/call', { name: 'ask', arguments: {} }), { session, channel });
    const server = only('tools/call ask');
    const client = only('elicitation/create');
    expect(client.kind).toBe(SpanKind.CLIENT);
    expect(client.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    const meta = sent[0]?._meta as Record<string, string>;
    expect(meta.traceparent).toBe(`00-${client.spanContext().traceId}-${client.spanContext().spanId}-01`);
  });

  it('puts the executor queue wait on the span of a request that waited', async () => {
    const executor = new Executor({ maxConcurrency: 1 });
    let release!: () => void;
    const blocker = executor.submit(() => new Promise<void>((resolve) => (release = resolve)));
    const queued = executor.submit(() => run(runtime, modern('ping')));
    release();
    await blocker;
    await queued;
    const wait = only('ping').attributes['snodo.executor.queue_wait'];
    expect(typeof wait).toBe('number');
    expect(wait as number).toBeGreaterThanOrEqual(0);
    await executor.close();
  });
});

describe('onError', () => {
  beforeEach(() => {
    errors.length = 0;
  });

  it('is called once with the context of a tool that threw (an isError result)', async () => {
    const request = modern('tools/call', { name: 'boom', arguments: {} });
    const { response } = await run(runtime, request, { auth: { principal: 'alice' }, connectionId: 'c7' });
    expect(response.result.isError).toBe(true);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error).toMatchObject({ message: 'tool exploded' });
    expect(errors[0]?.context).toEqual({
      method: 'tools/call',
      requestId: request.id,
      tool: 'boom',
      principal: 'alice',
      protocolVersion: MODERN,
      sessionId: 'c7',
    });
  });

  it('is called once for a prompt handler that threw (-32603), and never for client errors', async () => {
    const { response } = await run(runtime, modern('prompts/get', { name: 'broken' }));
    expect(response.error.code).toBe(-32603);
    await run(runtime, modern('tools/call', { name: 'missing', arguments: {} }));
    await run(runtime, modern('tools/call', { name: 'echo', arguments: { text: 1 } }));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error).toBeInstanceOf(TypeError);
    expect(errors[0]?.context).toMatchObject({ method: 'prompts/get', prompt: 'broken' });
  });

  it('falls back to the logger, whose error gets the error object first', async () => {
    const lines: { level: string; fields: Record<string, unknown>; message?: string }[] = [];
    const logger = {
      info: (fields: Record<string, unknown>, message?: string) =>
        lines.push({ level: 'info', fields, message }),
      warn: (fields: Record<string, unknown>, message?: string) =>
        lines.push({ level: 'warn', fields, message }),
      error: (fields: Record<string, unknown>, message?: string) =>
        lines.push({ level: 'error', fields, message }),
    };
    const logged = createServer({
      name: 'logged',
      version: '1.0.0',
      logger,
      prompts: [prompt({ name: 'p', get: () => Promise.reject(new Error('nope')) })],
    });
    await run(logged, modern('prompts/get', { name: 'p' }));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'error',
      message: 'prompts/get failed',
      fields: { prompt: 'p' },
    });
    expect(lines[0]?.fields.err).toMatchObject({ message: 'nope' });
  });

  it('refuses a bad onError or logger at createServer', () => {
    expect(() => createServer({ name: 'x', version: '1', onError: 'no' as never })).toThrow(
      /onError must be a function/,
    );
    expect(() => createServer({ name: 'x', version: '1', logger: { info() {} } as never })).toThrow(
      /logger.warn must be a function/,
    );
  });
});

describe('metrics', () => {
  it('records mcp.server.operation.duration by method, tool and error type, and the executor gauges', async () => {
    const executor = new Executor();
    await executor.submit(() =>
      run(runtime, modern('tools/call', { name: 'echo', arguments: { text: 'm' } })),
    );
    await run(runtime, modern('tools/call', { name: 'missing', arguments: {} }));
    await reader.forceFlush();
    const exported = metricExporter.getMetrics().at(-1);
    const all = exported?.scopeMetrics.flatMap((scope) => scope.metrics) ?? [];
    const duration = all.find((metric) => metric.descriptor.name === 'mcp.server.operation.duration');
    expect(duration?.descriptor.unit).toBe('s');
    const points = duration?.dataPoints.map((point) => point.attributes) ?? [];
    expect(points).toContainEqual(
      expect.objectContaining({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo' }),
    );
    expect(points).toContainEqual(
      expect.objectContaining({ 'gen_ai.tool.name': 'missing', 'error.type': '-32602' }),
    );
    const names = all.map((metric) => metric.descriptor.name);
    expect(names).toEqual(
      expect.arrayContaining(['snodo.executor.running', 'snodo.executor.queued', 'snodo.executor.refused']),
    );
    await executor.close();
  });
});
