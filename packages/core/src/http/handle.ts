import type { Runtime } from '../router/runtime.js';
import { configFor, type HttpConfig, type HttpOptions } from './config.js';
import { withCors } from './cors.js';
import { execute } from './execute.js';
import { prepare } from './prepare.js';
import type { HttpRequest, HttpResponse } from './types.js';

/**
 * `prepare` then, when admitted, `execute`: one HTTP request in, its response out, with the CORS
 * headers of the `cors` option.
 */
export async function handle(
  runtime: Runtime,
  request: HttpRequest,
  options?: HttpOptions | HttpConfig,
): Promise<HttpResponse> {
  const config = configFor(runtime, options);
  const result = await prepare(runtime, request, config);
  return withCors(
    config.cors,
    request,
    'response' in result ? result.response : await execute(result.prepared),
  );
}
