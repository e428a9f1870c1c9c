import type { Runtime } from '../router/runtime.js';
import type { HttpConfig, HttpOptions } from './config.js';
import { execute } from './execute.js';
import { prepare } from './prepare.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** `prepare` then, when admitted, `execute`: one HTTP request in, its response out. */
export async function handle(
  runtime: Runtime,
  request: HttpRequest,
  options?: HttpOptions | HttpConfig,
): Promise<HttpResponse> {
  const result = await prepare(runtime, request, options);
  return 'response' in result ? result.response : execute(result.prepared);
}
