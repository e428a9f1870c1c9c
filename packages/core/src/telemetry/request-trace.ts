import type { Attributes, Context, Span } from '@opentelemetry/api';
import type { InputRequest } from '../dispatch/input.js';
import type { JsonRpcResponse } from '../jsonrpc/types.js';
import { type Instruments, instruments } from './instruments.js';
import { ATTR, idText, targetOf } from './names.js';
import type { Otel } from './otel.js';
import { injectMeta, parentContext } from './propagation.js';

/** Where a request came from, as `dispatch` knows it. */
export interface RequestInfo {
  readonly id: unknown;
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  readonly sessionId: string | undefined;
  readonly headers: Readonly<Record<string, string | undefined>> | undefined;
  /** `network.transport`: `tcp` over HTTP, `pipe` over stdio, none in process. */
  readonly networkTransport: string | undefined;
  readonly queueWaitMs: number | undefined;
}

/**
 * The SERVER span of one request and its measurement. `finish` is idempotent: the first call ends
 * the span with the response's outcome and records `mcp.server.operation.duration`.
 */
export class RequestTrace {
  readonly context: Context;
  readonly #otel: Otel;
  readonly #instruments: Instruments;
  readonly #span: Span;
  readonly #metric: Attributes;
  readonly #started = performance.now();
  #done = false;

  constructor(otel: Otel, info: RequestInfo) {
    this.#otel = otel;
    this.#instruments = instruments(otel);
    const { method, params } = info;
    const target = targetOf(method, params);
    const parent = parentContext(otel, params, info.headers);
    const attributes: Attributes = { [ATTR.method]: method, [ATTR.requestId]: idText(info.id) };
    this.#metric = { [ATTR.method]: method };
    if (target) {
      attributes[target.key] = target.value;
      if (target.inName) this.#metric[target.key] = target.value;
    }
    if (method === 'tools/call') {
      attributes[ATTR.operationName] = 'execute_tool';
      this.#metric[ATTR.operationName] = 'execute_tool';
    }
    if (info.sessionId !== undefined) attributes[ATTR.sessionId] = info.sessionId;
    if (info.networkTransport !== undefined) {
      attributes[ATTR.networkTransport] = info.networkTransport;
      this.#metric[ATTR.networkTransport] = info.networkTransport;
    }
    if (info.queueWaitMs !== undefined) attributes[ATTR.queueWait] = info.queueWaitMs / 1000;
    const name = target?.inName ? `${method} ${target.value}` : method;
    this.#span = this.#instruments.tracer.startSpan(
      name,
      {
        kind: otel.SpanKind.SERVER,
        attributes,
        ...(parent.links.length > 0 ? { links: parent.links } : {}),
      },
      parent.context,
    );
    this.context = otel.trace.setSpan(parent.context, this.#span);
  }

  /** Runs `fn` with this span active, so the handler's own spans (and its outgoing calls) are children. */
  run<T>(fn: () => T): T {
    return this.#otel.context.with(this.context, fn);
  }

  /** The revision, once selected. */
  version(protocolVersion: string): void {
    this.#span.setAttribute(ATTR.protocolVersion, protocolVersion);
    this.#metric[ATTR.protocolVersion] = protocolVersion;
  }

  /**
   * Ends the span: with the JSON-RPC error's code as `error.type` and `rpc.response.status_code`,
   * `tool_error` for a tool result with `isError`, OK otherwise. `undefined`: no response is due
   * (the request was cancelled or became a stream that ended without one).
   */
  finish(response: JsonRpcResponse | undefined): void {
    if (this.#done) return;
    this.#done = true;
    const { SpanStatusCode } = this.#otel;
    const span = this.#span;
    if (response === undefined) {
      this.#fail('cancelled', 'The request ended without a response');
    } else if ('error' in response) {
      const code = String(response.error.code);
      span.setAttribute(ATTR.statusCode, code);
      this.#metric[ATTR.statusCode] = code;
      this.#fail(code, response.error.message);
    } else {
      const result = response.result as Record<string, unknown>;
      if (typeof result.resultType === 'string') span.setAttribute(ATTR.resultType, result.resultType);
      // The tool's own text may hold what should not leave the process: the status has no message.
      if (result.isError === true) this.#fail('tool_error', undefined);
      else span.setStatus({ code: SpanStatusCode.UNSET });
    }
    span.end();
    this.#instruments.serverOperation.record((performance.now() - this.#started) / 1000, this.#metric);
  }

  /** A `subscriptions/listen` stream opened: the span ends here, the stream lives on. */
  opened(): void {
    if (this.#done) return;
    this.#done = true;
    this.#span.end();
    this.#instruments.serverOperation.record((performance.now() - this.#started) / 1000, this.#metric);
  }

  /** An internal error (the client sees -32603 or an `isError` result): recorded on the span as an exception event. */
  exception(error: unknown): void {
    this.#span.recordException(error instanceof Error ? error : String(error));
  }

  /**
   * A 2026-07-28 round that ends with `input_required`: each input request is a CLIENT span (the
   * server asks the client, by MRTR), a child of this request's span, ended with the round.
   */
  inputRound(round: number, requests: Record<string, InputRequest>): void {
    for (const [key, request] of Object.entries(requests)) {
      const span = this.#instruments.tracer.startSpan(
        request.method,
        {
          kind: this.#otel.SpanKind.CLIENT,
          attributes: { [ATTR.method]: request.method, [ATTR.inputKey]: key, [ATTR.inputRound]: round },
        },
        this.context,
      );
      span.end();
    }
  }

  /**
   * A server-initiated request (initialize-based revisions): a CLIENT span, child of this request's,
   * whose context goes in the request's `params._meta`. Call the returned function with its outcome.
   */
  clientRequest(
    method: string,
    params: Record<string, unknown> | undefined,
  ): { params: Record<string, unknown>; end: (error?: unknown) => void } {
    const span = this.#instruments.tracer.startSpan(
      method,
      { kind: this.#otel.SpanKind.CLIENT, attributes: { [ATTR.method]: method } },
      this.context,
    );
    const context = this.#otel.trace.setSpan(this.context, span);
    return {
      params: injectMeta(this.#otel, context, params),
      end: (error) => {
        if (error !== undefined) {
          const code = (error as { code?: unknown }).code;
          const type = typeof code === 'number' ? String(code) : errorName(error);
          span.setAttribute(ATTR.errorType, type);
          span.setStatus({ code: this.#otel.SpanStatusCode.ERROR, message: errorMessage(error) });
        }
        span.end();
      },
    };
  }

  #fail(type: string, message: string | undefined): void {
    this.#span.setAttribute(ATTR.errorType, type);
    this.#metric[ATTR.errorType] = type;
    this.#span.setStatus(
      message === undefined
        ? { code: this.#otel.SpanStatusCode.ERROR }
        : { code: this.#otel.SpanStatusCode.ERROR, message },
    );
  }
}

export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
