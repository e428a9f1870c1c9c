// Tracing is skipped while nothing observes it, and resumes as soon as something registers: each
// test registers real SDK parts with the global API and unregisters them after.
import * as otel from '@opentelemetry/api';
import { metrics, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createServer, tool } from '../src/index.js';
import { isObserved } from '../src/telemetry/instruments.js';
import { elicitingClient, legacy, modern } from './helpers/demo.js';
import { run } from './helpers/run.js';

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

const runtime = createServer({
  name: 'observed',
  version: '1.0.0',
  tools: [
    tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text }),
    tool({
      name: 'ask',
      inputSchema: z.object({}),
      handler: async (_args, ctx) => {
        await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } });
        return 'done';
      },
    }),
  ],
});

afterEach(() => {
  trace.disable();
  metrics.disable();
  propagation.disable();
});

describe('isObserved', () => {
  it('is false with the API alone, and true while a tracer provider, a meter provider or a propagator is registered', async () => {
    expect(isObserved(otel)).toBe(false);

    const tracerProvider = new NodeTracerProvider();
    trace.setGlobalTracerProvider(tracerProvider);
    expect(isObserved(otel)).toBe(true);
    trace.disable();
    expect(isObserved(otel)).toBe(false);

    const meterProvider = new MeterProvider();
    metrics.setGlobalMeterProvider(meterProvider);
    expect(isObserved(otel)).toBe(true);
    metrics.disable();
    expect(isObserved(otel)).toBe(false);

    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    expect(isObserved(otel)).toBe(true);
    propagation.disable();
    expect(isObserved(otel)).toBe(false);

    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  });
});

describe('tracing while nothing observes it', () => {
  it('traces the next request once an SDK registers after requests were served untraced', async () => {
    const before = await run(runtime, modern('tools/call', { name: 'echo', arguments: { text: 'a' } }));
    expect(before.response.result.content).toEqual([{ type: 'text', text: 'a' }]);

    const spans = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
    provider.register();
    await run(runtime, modern('tools/call', { name: 'echo', arguments: { text: 'b' } }));
    expect(spans.getFinishedSpans().map((span) => span.name)).toEqual(['tools/call echo']);
    await provider.shutdown();
  });

  it("with only a propagator registered, a caller's trace context still reaches a server-initiated request's _meta", async () => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const { session, channel, sent } = await elicitingClient(runtime);
    const ask = legacy('tools/call', { name: 'ask', arguments: {}, _meta: { traceparent: PARENT } });
    const { response } = await run(runtime, ask, { session, channel });
    expect(response.result.content).toEqual([{ type: 'text', text: 'done' }]);
    const traceparent = (sent[0]?._meta as Record<string, string> | undefined)?.traceparent;
    expect(traceparent?.split('-')[1]).toBe(PARENT.split('-')[1]);
  });
});
