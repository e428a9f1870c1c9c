import type { Context, Link, TextMapGetter } from '@opentelemetry/api';
import type { Otel } from './otel.js';

/** Reads `traceparent`, `tracestate` and `baggage` from `params._meta` (unprefixed, as SEP-414 says) or headers. */
const getter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/**
 * The parent of a request's SERVER span, in this order: the context in `params._meta` (the MCP
 * convention; the host's active span, when there is one, becomes a link), else the host's active
 * span (a framework's HTTP span), else the transport's headers (`traceparent` on the HTTP request),
 * else none: a new trace. Uses the configured propagators (W3C Trace Context when an SDK registers).
 */
export function parentContext(
  otel: Otel,
  params: Record<string, unknown> | undefined,
  headers: Readonly<Record<string, string | undefined>> | undefined,
): { context: Context; links: Link[] } {
  const active = otel.context.active();
  const ambient = otel.trace.getSpanContext(active);
  const hasAmbient = ambient !== undefined && otel.trace.isSpanContextValid(ambient);
  const meta = params?._meta;
  if (typeof meta === 'object' && meta !== null) {
    const fromMeta = extracted(otel, meta as Record<string, unknown>);
    if (fromMeta) return { context: fromMeta, links: hasAmbient ? [{ context: ambient }] : [] };
  }
  if (hasAmbient) return { context: active, links: [] };
  if (headers) {
    const fromHeaders = extracted(otel, headers);
    if (fromHeaders) return { context: fromHeaders, links: [] };
  }
  return { context: active, links: [] };
}

function extracted(otel: Otel, carrier: Readonly<Record<string, unknown>>): Context | undefined {
  const context = otel.propagation.extract(otel.ROOT_CONTEXT, carrier, getter);
  const span = otel.trace.getSpanContext(context);
  return span !== undefined && otel.trace.isSpanContextValid(span) ? context : undefined;
}

/** The propagation fields of `context` (`traceparent`, `tracestate`, `baggage`), by the configured propagators. */
export function traceFields(otel: Otel, context: Context): Record<string, string> {
  const carrier: Record<string, string> = {};
  otel.propagation.inject(context, carrier);
  return carrier;
}

/** `params` with the propagation fields of `context` in `_meta` (unchanged when there are none). */
export function injectMeta(
  otel: Otel,
  context: Context,
  params: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const fields = traceFields(otel, context);
  if (Object.keys(fields).length === 0) return params ?? {};
  const own = params?._meta as Record<string, unknown> | undefined;
  return { ...params, _meta: { ...own, ...fields } };
}
