import type { Attributes, Span } from '@opentelemetry/api';
import {
  ATTR,
  errorMessage,
  idText,
  instruments,
  type Otel,
  targetOf,
  traceFields,
} from '@snodo/core/internal';

/**
 * The CLIENT span of one request and its `mcp.client.operation.duration`: a child of the caller's
 * active span, whose context travels in `params._meta` (and, over HTTP, in the request's headers).
 */
export class ClientTrace {
  readonly #otel: Otel;
  readonly #span: Span;
  readonly #metric: Attributes;
  readonly #started = performance.now();
  /** `traceparent`, `tracestate`, `baggage` of the span, by the configured propagators. */
  readonly fields: Record<string, string>;

  constructor(
    otel: Otel,
    request: {
      id: unknown;
      method: string;
      params: Record<string, unknown> | undefined;
      version: string | undefined;
    },
  ) {
    this.#otel = otel;
    const { method, params } = request;
    const target = targetOf(method, params);
    const attributes: Attributes = { [ATTR.method]: method, [ATTR.requestId]: idText(request.id) };
    this.#metric = { [ATTR.method]: method };
    if (target) {
      attributes[target.key] = target.value;
      if (target.inName) this.#metric[target.key] = target.value;
    }
    if (method === 'tools/call')
      attributes[ATTR.operationName] = this.#metric[ATTR.operationName] = 'execute_tool';
    if (request.version !== undefined) {
      attributes[ATTR.protocolVersion] = this.#metric[ATTR.protocolVersion] = request.version;
    }
    const name = target?.inName ? `${method} ${target.value}` : method;
    this.#span = instruments(otel).tracer.startSpan(name, { kind: otel.SpanKind.CLIENT, attributes });
    this.fields = traceFields(otel, otel.trace.setSpan(otel.context.active(), this.#span));
  }

  /** `params` with the span's context in `_meta` (unchanged when the propagators give nothing). */
  inject(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    if (Object.keys(this.fields).length === 0) return params;
    const own = params?._meta as Record<string, unknown> | undefined;
    return { ...params, _meta: { ...own, ...this.fields } };
  }

  /** Ends the span with the response (a JSON-RPC error code, `tool_error`) or the local error. */
  end(outcome: { result?: Record<string, unknown>; code?: number; message?: string; error?: unknown }): void {
    const span = this.#span;
    let type: string | undefined;
    let message: string | undefined;
    if (outcome.code !== undefined) {
      type = String(outcome.code);
      message = outcome.message;
      span.setAttribute(ATTR.statusCode, type);
      this.#metric[ATTR.statusCode] = type;
    } else if (outcome.error !== undefined) {
      const code = (outcome.error as { code?: unknown }).code;
      type = typeof code === 'string' ? code : outcome.error instanceof Error ? outcome.error.name : 'error';
      message = errorMessage(outcome.error);
    } else if (outcome.result?.isError === true) {
      type = 'tool_error';
    }
    if (type !== undefined) {
      span.setAttribute(ATTR.errorType, type);
      this.#metric[ATTR.errorType] = type;
      span.setStatus(
        message === undefined
          ? { code: this.#otel.SpanStatusCode.ERROR }
          : { code: this.#otel.SpanStatusCode.ERROR, message },
      );
    }
    span.end();
    instruments(this.#otel).clientOperation.record((performance.now() - this.#started) / 1000, this.#metric);
  }
}
