import { hostAuthRefusal } from '../auth/challenge.js';
import type { AuthInfo } from '../dispatch/context.js';
import { ErrorCode } from '../errors/codes.js';
import { optionError } from '../errors/snodo-error.js';
import type { Runtime } from '../router/runtime.js';
import { type HttpOptions, isHttpUrl, resolveHttpOptions } from './config.js';
import { withCors } from './cors.js';
import { handle } from './handle.js';
import { paramHeadersOf } from './param-headers.js';
import { errorHttpResponse } from './responses.js';
import { type HttpResponse, isStreamResponse } from './types.js';

export interface FetchHandlerOptions extends HttpOptions {
  /**
   * The verified identity of a request (from the host's own authentication, e.g. a middleware that
   * checked a bearer token). Return undefined for anonymous requests; throw to refuse with 401.
   */
  authenticate?: (request: Request) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /**
   * The endpoint URL clients use when the host sits behind a reverse proxy (e.g.
   * `https://mcp.example.com/mcp`): handlers see it as `context.url`, and UI resources derive their
   * sandbox domain from it, instead of the `Request` URL the host built.
   */
  publicUrl?: string;
}

const encoder = new TextEncoder();

/**
 * A WHATWG `fetch` handler (`Request` → `Response`) for hosts with web-standard requests: Hono,
 * Bun.serve, Deno.serve, Cloudflare Workers, Next.js route handlers. The body is read with the
 * `maxBodyBytes` bound (Content-Length checked first, then counted while streaming). Options are
 * validated here, once; the runtime's `x-mcp-header` annotations too.
 */
export function createFetchHandler(
  runtime: Runtime,
  options: FetchHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const { authenticate, publicUrl, ...httpOptions } = options;
  const config = resolveHttpOptions(httpOptions);
  if (authenticate !== undefined && typeof authenticate !== 'function') {
    throw optionError('authenticate must be a function');
  }
  if (authenticate !== undefined && config.auth !== undefined) {
    throw optionError('authenticate and auth exclude each other: auth verifies bearer tokens itself');
  }
  if (publicUrl !== undefined && !isHttpUrl(publicUrl)) {
    throw optionError(`publicUrl must be an absolute http(s) URL, got ${JSON.stringify(publicUrl)}`);
  }
  paramHeadersOf(runtime);
  return async (request) => {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = await readBody(request, config.maxBodyBytes);
    if (body === undefined) {
      return toResponse(
        errorHttpResponse(413, null, ErrorCode.InvalidRequest, `Body exceeds ${config.maxBodyBytes} bytes`),
      );
    }
    let auth: AuthInfo | undefined;
    if (authenticate) {
      try {
        auth = await authenticate(request);
      } catch {
        const refusal = hostAuthRefusal(headers.authorization);
        return toResponse(withCors(config.cors, { method: request.method, headers }, refusal));
      }
    }
    // A stream the client cancels must stop the request as a disconnect would.
    const controller = new AbortController();
    const abort = () => controller.abort(request.signal.reason);
    if (request.signal.aborted) abort();
    else request.signal.addEventListener('abort', abort, { once: true });
    const response = await handle(
      runtime,
      {
        method: request.method,
        path: url.pathname + url.search,
        headers,
        body,
        signal: controller.signal,
        // The endpoint as the client used it: scheme, host, port and path, without the query.
        url: publicUrl ?? `${url.origin}${url.pathname}`,
        ...(auth === undefined ? {} : { auth }),
      },
      config,
    );
    if (!isStreamResponse(response)) request.signal.removeEventListener('abort', abort);
    return toResponse(response, controller);
  };
}

async function readBody(request: Request, max: number): Promise<Uint8Array | undefined> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > max) return undefined;
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

function toResponse(response: HttpResponse, controller?: AbortController): Response {
  const init = { status: response.status, headers: response.headers };
  if (!isStreamResponse(response)) {
    return new Response(response.body === '' || response.status === 204 ? null : response.body, init);
  }
  const iterator = response.stream[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>({
    async pull(sink) {
      const next = await iterator.next();
      if (next.done) sink.close();
      else sink.enqueue(encoder.encode(next.value));
    },
    async cancel(reason) {
      controller?.abort(reason);
      await iterator.return?.();
    },
  });
  return new Response(stream, init);
}
