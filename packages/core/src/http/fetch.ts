import type { Runtime } from '../router/runtime.js';
import { createHttpHandler, type HttpHandlerOptions } from './handler.js';

/** The options of `createFetchHandler`: the handler's, with `authenticate` given the `Request`. */
export interface FetchHandlerOptions extends Omit<HttpHandlerOptions, 'authenticate'> {
  authenticate?: (request: Request) => ReturnType<NonNullable<HttpHandlerOptions['authenticate']>>;
}

/**
 * `createHttpHandler(runtime, options).fetch`, for hosts that want only the WHATWG handler. The
 * handler (its executor and session store) lives as long as the returned function.
 */
export function createFetchHandler(
  runtime: Runtime,
  options: FetchHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const handler = createHttpHandler(runtime, options as HttpHandlerOptions);
  return (request) => handler.fetch(request);
}
