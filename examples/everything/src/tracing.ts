// The standard OpenTelemetry environment, for the demo: OTEL_TRACES_EXPORTER=console prints each
// span (on stderr under --stdio, whose stdout is the protocol), =otlp exports over OTLP/HTTP to
// OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318); unset or none: no SDK, no tracing.
// OTEL_SERVICE_NAME names the service (default snodo-everything). The SDK lives here, in the
// example: the libraries use only @opentelemetry/api.
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Starts tracing as the environment says; resolves with the function that flushes and stops it. */
export async function startTracing(stdio: boolean): Promise<(() => Promise<void>) | undefined> {
  const kind = process.env.OTEL_TRACES_EXPORTER;
  if (kind === undefined || kind === '' || kind === 'none') return undefined;
  if (kind !== 'console' && kind !== 'otlp') {
    throw new Error(`OTEL_TRACES_EXPORTER must be console, otlp or none, got ${JSON.stringify(kind)}`);
  }
  const [{ NodeTracerProvider }, base, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
  ]);
  let processor: SpanProcessor;
  if (kind === 'otlp') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    processor = new base.BatchSpanProcessor(new OTLPTraceExporter());
  } else {
    processor = new base.SimpleSpanProcessor(
      stdio ? new StderrSpanExporter() : new base.ConsoleSpanExporter(),
    );
  }
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'snodo-everything' }),
    spanProcessors: [processor],
  });
  provider.register();
  return () => provider.shutdown();
}

/** One JSON line per span on stderr: the console exporter's fields, away from the protocol's stdout. */
class StderrSpanExporter implements SpanExporter {
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    for (const span of spans) {
      const context = span.spanContext();
      const line = {
        traceId: context.traceId,
        parentSpanId: span.parentSpanContext?.spanId,
        id: context.spanId,
        name: span.name,
        kind: span.kind,
        duration: span.duration,
        attributes: span.attributes,
        status: span.status,
      };
      process.stderr.write(`${JSON.stringify(line)}\n`);
    }
    done({ code: 0 });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
