// A stdio connection is one session: measured by mcp.server.session.duration (network.transport
// pipe, its revision) and snodo.sessions.active, with the real OpenTelemetry SDK.
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { metrics, trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createServer } from '@snodo/core';
import { afterAll, expect, it } from 'vitest';
import { serve } from '../src/index.js';

const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
trace.setGlobalTracerProvider(tracerProvider);
const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
const meterProvider = new MeterProvider({ readers: [reader] });
metrics.setGlobalMeterProvider(meterProvider);
afterAll(async () => {
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
});

it('measures the connection as a session from its start to the end of its input', async () => {
  const runtime = createServer({ name: 'stdio', version: '1.0.0' });
  const input = new PassThrough();
  const output = new PassThrough();
  const served = serve(runtime, { input, output });
  input.write(
    `${JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    })}\n`,
  );
  await once(output, 'data');
  input.end();
  await served;
  await reader.forceFlush();
  const all =
    exporter
      .getMetrics()
      .at(-1)
      ?.scopeMetrics.flatMap((scope) => scope.metrics) ?? [];
  const duration = all.find((metric) => metric.descriptor.name === 'mcp.server.session.duration');
  expect(duration?.dataPoints.map((point) => point.attributes)).toEqual([
    { 'network.transport': 'pipe', 'mcp.protocol.version': '2025-11-25' },
  ]);
  const active = all.find((metric) => metric.descriptor.name === 'snodo.sessions.active');
  expect(active?.dataPoints.map((point) => point.value)).toEqual([0]);
  expect(spans.getFinishedSpans().map((span) => span.name)).toEqual(['initialize']);
});

it('marks each request span and its duration with network.transport pipe', async () => {
  spans.reset();
  const runtime = createServer({ name: 'stdio', version: '1.0.0' });
  const input = new PassThrough();
  const output = new PassThrough();
  const served = serve(runtime, { input, output });
  input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} })}\n`);
  await once(output, 'data');
  input.end();
  await served;
  await reader.forceFlush();
  const [span] = spans.getFinishedSpans();
  expect(span?.name).toBe('server/discover');
  expect(span?.attributes['network.transport']).toBe('pipe');
  const operation = exporter
    .getMetrics()
    .at(-1)
    ?.scopeMetrics.flatMap((scope) => scope.metrics)
    .find((metric) => metric.descriptor.name === 'mcp.server.operation.duration');
  const points = operation?.dataPoints.map((point) => point.attributes) ?? [];
  expect(points).toContainEqual(
    expect.objectContaining({ 'mcp.method.name': 'server/discover', 'network.transport': 'pipe' }),
  );
});
