// Client spans with the real OpenTelemetry SDK: the client's CLIENT span is the parent of the
// server's SERVER span, carried in params._meta (in process) and also as HTTP headers.
import { createServer as createHttpServer, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metrics, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createServer, tool } from '@snodo/core';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Client, connect, StdioTransport } from '../src/index.js';
import { DEMO_MAIN } from './helpers/paths.js';

const spans = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const meterProvider = new MeterProvider({ readers: [reader] });
beforeAll(() => {
  provider.register();
  metrics.setGlobalMeterProvider(meterProvider);
});
afterAll(async () => {
  await provider.shutdown();
  await meterProvider.shutdown();
});
beforeEach(() => spans.reset());

const runtime = createServer({
  name: 'traced',
  version: '1.0.0',
  tools: [
    tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text }),
    tool({
      name: 'fail',
      inputSchema: z.object({}),
      handler: () => {
        throw new Error('no');
      },
    }),
  ],
});

const clients: Client[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const close of closers.splice(0)) await close();
});

function named(name: string, kind: SpanKind): ReadableSpan {
  const found = spans.getFinishedSpans().filter((span) => span.name === name && span.kind === kind);
  expect(found).toHaveLength(1);
  return found[0] as ReadableSpan;
}

describe('client spans', () => {
  it('in process: the CLIENT span "tools/call echo" is the parent of the server span, under the caller span', async () => {
    const client = await connect({ direct: runtime });
    clients.push(client);
    spans.reset();
    const step = await trace.getTracer('app').startActiveSpan('agent step', async (span) => {
      await client.callTool('echo', { text: 'hi' });
      span.end();
      return span;
    });
    const sent = named('tools/call echo', SpanKind.CLIENT);
    const served = named('tools/call echo', SpanKind.SERVER);
    expect(sent.parentSpanContext?.spanId).toBe(step.spanContext().spanId);
    expect(served.parentSpanContext?.spanId).toBe(sent.spanContext().spanId);
    expect(served.spanContext().traceId).toBe(sent.spanContext().traceId);
    expect(sent.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
    });
    expect(typeof sent.attributes['jsonrpc.request.id']).toBe('string');
  });

  it('marks a tool error and a JSON-RPC error on the CLIENT span, and records mcp.client.operation.duration', async () => {
    const client = await connect({ direct: runtime });
    clients.push(client);
    spans.reset();
    await client.callTool('fail', {});
    await expect(client.request('tools/call', { name: 'nope', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    const toolError = named('tools/call fail', SpanKind.CLIENT);
    expect(toolError.attributes['error.type']).toBe('tool_error');
    expect(toolError.status.code).toBe(SpanStatusCode.ERROR);
    const rpcError = named('tools/call nope', SpanKind.CLIENT);
    expect(rpcError.attributes).toMatchObject({
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
    });
    await reader.forceFlush();
    const all =
      metricExporter
        .getMetrics()
        .at(-1)
        ?.scopeMetrics.flatMap((scope) => scope.metrics) ?? [];
    const duration = all.find((metric) => metric.descriptor.name === 'mcp.client.operation.duration');
    expect(duration?.dataPoints.map((point) => point.attributes)).toContainEqual(
      expect.objectContaining({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'fail',
        'error.type': 'tool_error',
      }),
    );
  });

  it('over HTTP: the trace context goes in params._meta and in the traceparent header', async () => {
    const server: McpHttpServer = await listen({ runtime, port: 0 });
    closers.push(() => server.close());
    const target = new URL(server.url());
    // A recording hop in front of the listener: what the client puts on the wire, as received.
    const seen: IncomingHttpHeaders[] = [];
    const hop = createHttpServer((incoming, outgoing) => {
      seen.push(incoming.headers);
      const forward = request(
        {
          host: '127.0.0.1',
          port: target.port,
          path: incoming.url,
          method: incoming.method,
          headers: incoming.headers,
        },
        (response) => {
          outgoing.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(outgoing);
        },
      );
      incoming.pipe(forward);
    });
    await new Promise<void>((resolve) => hop.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => hop.close(resolve)));
    const port = (hop.address() as AddressInfo).port;
    const client = await connect({ http: `http://127.0.0.1:${port}${target.pathname}` });
    clients.push(client);
    spans.reset();
    seen.length = 0;
    await client.callTool('echo', { text: 'over http' });
    const sent = named('tools/call echo', SpanKind.CLIENT);
    const served = named('tools/call echo', SpanKind.SERVER);
    expect(served.parentSpanContext?.spanId).toBe(sent.spanContext().spanId);
    expect(served.attributes['network.transport']).toBe('tcp');
    const expected = `00-${sent.spanContext().traceId}-${sent.spanContext().spanId}-01`;
    expect(seen.map((headers) => headers.traceparent)).toEqual([expected]);
  });

  it('the demo server with OTEL_TRACES_EXPORTER=console prints its span, child of the client span, on stderr (stdio)', async () => {
    let stderr = '';
    let found!: (line: Record<string, unknown>) => void;
    const served = new Promise<Record<string, unknown>>((resolve) => {
      found = resolve;
    });
    const transport = new StdioTransport(
      {
        command: process.execPath,
        args: [DEMO_MAIN, '--stdio'],
        env: { PATH: process.env.PATH, OTEL_TRACES_EXPORTER: 'console' },
      },
      {
        onStderr: (text) => {
          stderr += text;
          for (const line of stderr.split('\n').filter((item) => item.startsWith('{'))) {
            const span = JSON.parse(line) as Record<string, unknown>;
            if (span.name === 'tools/call echo') found(span);
          }
        },
      },
    );
    const client = await connect({ transport });
    clients.push(client);
    spans.reset();
    await client.callTool('echo', { message: 'traced demo' });
    const sent = named('tools/call echo', SpanKind.CLIENT);
    const span = await served;
    expect(span).toMatchObject({
      traceId: sent.spanContext().traceId,
      parentSpanId: sent.spanContext().spanId,
      kind: SpanKind.SERVER,
      attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo' },
    });
  });
});
