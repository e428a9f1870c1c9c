import type {
  Histogram,
  Meter,
  MeterProvider,
  Tracer,
  TracerProvider,
  UpDownCounter,
} from '@opentelemetry/api';
import type { ExecutorStats } from '../executor/executor.js';
import { executorStats } from '../executor/observe.js';
import { DURATION_BUCKETS, METRIC } from './names.js';
import type { Otel } from './otel.js';

const SCOPE = '@snodo/core';

export interface Instruments {
  readonly tracer: Tracer;
  readonly serverOperation: Histogram;
  readonly clientOperation: Histogram;
  readonly serverSession: Histogram;
  readonly sessions: UpDownCounter;
}

let tracer: Tracer | undefined;
let metered: { provider: MeterProvider; instruments: Omit<Instruments, 'tracer'> } | undefined;
/** The API's own no-op tracer provider: what the global proxy delegates to until an SDK registers. */
let noopTracerProvider: TracerProvider | undefined;
/** Whether the global meter provider (the last one seen) is a real one. */
let meterSeen: { provider: MeterProvider; real: boolean } | undefined;

/**
 * Whether anything would see what a request records: a tracer provider or a meter provider
 * registered with the API, or a propagator (which carries a caller's trace context on to the
 * requests a handler makes, even with no tracer). With `@opentelemetry/api` installed and nothing
 * registered, every span and measurement is a no-op that still costs its attributes, context and
 * closures on each request, so callers skip tracing then. Checked per request, so an SDK
 * registered later is picked up; a provider from another copy of the API counts as registered.
 */
export function isObserved(otel: Otel): boolean {
  const provider = otel.trace.getTracerProvider();
  noopTracerProvider ??= new otel.ProxyTracerProvider().getDelegate();
  if (!(provider instanceof otel.ProxyTracerProvider) || provider.getDelegate() !== noopTracerProvider)
    return true;
  const meterProvider = otel.metrics.getMeterProvider();
  if (meterSeen?.provider !== meterProvider)
    meterSeen = { provider: meterProvider, real: meterProvider.getMeter(SCOPE) !== otel.createNoopMeter() };
  return meterSeen.real || otel.propagation.fields().length > 0;
}

/**
 * Core's tracer and instruments. The tracer is the global provider's proxy (it follows a provider
 * registered later); the metrics API has no such proxy, so instruments are made again when the
 * global meter provider changes (an SDK registered after the first request).
 */
export function instruments(otel: Otel): Instruments {
  tracer ??= otel.trace.getTracer(SCOPE);
  const provider = otel.metrics.getMeterProvider();
  if (metered?.provider !== provider) {
    const meter = provider.getMeter(SCOPE);
    metered = { provider, instruments: makeInstruments(meter) };
    observeExecutors(meter);
  }
  return { tracer, ...metered.instruments };
}

function makeInstruments(meter: Meter): Omit<Instruments, 'tracer'> {
  const duration = (name: string, description: string) =>
    meter.createHistogram(name, {
      description,
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
  return {
    serverOperation: duration(
      METRIC.serverOperation,
      'MCP request duration as observed on the receiver, from receipt until the result is sent',
    ),
    clientOperation: duration(
      METRIC.clientOperation,
      'MCP request duration as observed on the sender, from sending until the response',
    ),
    serverSession: duration(
      METRIC.serverSession,
      'The duration of the MCP session as observed on the server',
    ),
    sessions: meter.createUpDownCounter(METRIC.sessions, {
      description:
        'Sessions open on this process (stdio and in-process connections, HTTP sessions not yet ended)',
      unit: '{session}',
    }),
  };
}

function totals(): Pick<ExecutorStats, 'running' | 'queued' | 'rejected' | 'subscriptions'> {
  const sum = { running: 0, queued: 0, rejected: 0, subscriptions: 0 };
  for (const stats of executorStats()) {
    sum.running += stats.running;
    sum.queued += stats.queued;
    sum.rejected += stats.rejected;
    sum.subscriptions += stats.subscriptions;
  }
  return sum;
}

function observeExecutors(meter: Meter): void {
  const running = meter.createObservableGauge(METRIC.running, {
    description: 'Requests running in executors (in flight)',
    unit: '{request}',
  });
  const queued = meter.createObservableGauge(METRIC.queued, {
    description: 'Requests waiting in executor queues',
    unit: '{request}',
  });
  const refused = meter.createObservableCounter(METRIC.refused, {
    description: 'Requests refused by executors (overloaded or closed)',
    unit: '{request}',
  });
  const subscriptions = meter.createObservableGauge(METRIC.subscriptions, {
    description: 'Subscription streams open (subscriptions/listen, GET streams)',
    unit: '{stream}',
  });
  meter.addBatchObservableCallback(
    (result) => {
      const sum = totals();
      result.observe(running, sum.running);
      result.observe(queued, sum.queued);
      result.observe(refused, sum.rejected);
      result.observe(subscriptions, sum.subscriptions);
    },
    [running, queued, refused, subscriptions],
  );
}
