// `--otel noop|memory` of the Snodo server programs: registers the OpenTelemetry SDK before the
// server starts, so every request is traced (SERVER span) and measured (operation duration).
//   noop    the SDK with an exporter that drops every span and metric (the SDK's own cost)
//   memory  the SDK with in-memory exporters (the spans are kept, as a test would keep them)
// Without the option no SDK is registered: @opentelemetry/api is present, and core skips tracing
// (nothing observes it).
import { importOrUnavailable, option } from './common.mjs';

export async function registerOtel() {
  const mode = option('otel');
  if (mode === undefined || mode === 'none') return;
  if (mode !== 'noop' && mode !== 'memory')
    throw new Error(`--otel must be none, noop or memory, got ${mode}`);
  const { metrics, trace } = await importOrUnavailable('@opentelemetry/api');
  const tracing = await importOrUnavailable('@opentelemetry/sdk-trace-base');
  const metering = await importOrUnavailable('@opentelemetry/sdk-metrics');
  const dropSpans = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  const dropMetrics = {
    export: (_metrics, done) => done({ code: 0 }),
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const spanExporter = mode === 'noop' ? dropSpans : new tracing.InMemorySpanExporter();
  const metricExporter =
    mode === 'noop'
      ? dropMetrics
      : new metering.InMemoryMetricExporter(metering.AggregationTemporality.CUMULATIVE);
  trace.setGlobalTracerProvider(
    new tracing.BasicTracerProvider({ spanProcessors: [new tracing.SimpleSpanProcessor(spanExporter)] }),
  );
  metrics.setGlobalMeterProvider(
    new metering.MeterProvider({
      readers: [
        new metering.PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 1000 }),
      ],
    }),
  );
}
