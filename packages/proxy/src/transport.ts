import {
  type ClientTransport,
  type ConnectOptions,
  DirectTransport,
  HttpTransport,
  StdioTransport,
  type Target,
} from '@snodo/client';
import { optionError } from './errors.js';

/** The problem with a backend target, naming `where` (e.g. `backends[0].target`), or undefined when valid. */
export function targetProblem(where: string, target: unknown): string | undefined {
  if (typeof target !== 'object' || target === null)
    return `${where} must be an object with one of http, stdio, direct or transport`;
  const keys = ['http', 'stdio', 'direct', 'transport'].filter((key) => key in target);
  if (keys.length !== 1) return `${where} must have exactly one of http, stdio, direct or transport`;
  const typed = target as Record<string, unknown>;
  if ('http' in typed) {
    let url: URL;
    try {
      url = new URL(typed.http as string);
    } catch {
      return `${where}.http must be an http: or https: URL`;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return `${where}.http must be an http: or https: URL`;
  }
  if ('stdio' in typed) {
    const stdio = typed.stdio as Record<string, unknown> | undefined;
    if (typeof stdio?.command !== 'string' || stdio.command === '')
      return `${where}.stdio.command must be a non-empty string`;
    if (
      stdio.args !== undefined &&
      (!Array.isArray(stdio.args) || stdio.args.some((a) => typeof a !== 'string'))
    ) {
      return `${where}.stdio.args must be an array of strings`;
    }
  }
  if ('direct' in typed && (typeof typed.direct !== 'object' || typed.direct === null)) {
    return `${where}.direct must be a runtime from createServer()`;
  }
  if ('transport' in typed) {
    const transport = typed.transport as Record<string, unknown> | undefined;
    for (const method of ['open', 'request', 'notify', 'respond', 'close']) {
      if (typeof transport?.[method] !== 'function')
        return `${where}.transport must implement ClientTransport (missing ${method}())`;
    }
  }
  return undefined;
}

function transportFor(target: Target, options: ConnectOptions): ClientTransport {
  if ('http' in target) return new HttpTransport(target.http, options);
  if ('stdio' in target) return new StdioTransport(target.stdio, options);
  if ('direct' in target) return new DirectTransport(target.direct);
  if ('transport' in target) return target.transport;
  throw optionError('target must have one of http, stdio, direct or transport');
}

/**
 * The client transport of a target, observed: `onClosed` hears when it ends (a stdio server
 * exiting, an in-process transport closing), so a backend turns `down` without waiting for a call
 * to fail. Everything else goes straight through to the transport `@snodo/client` would build.
 */
export function observedTransport(
  target: Target,
  options: ConnectOptions,
  onClosed: (error: Error | undefined) => void,
): ClientTransport {
  const inner = transportFor(target, options);
  const observed: ClientTransport = {
    kind: inner.kind,
    ...(inner.httpHeaders === undefined ? {} : { httpHeaders: inner.httpHeaders }),
    ...(inner.probeNeedsTimeout === undefined ? {} : { probeNeedsTimeout: inner.probeNeedsTimeout }),
    open: (sink) =>
      inner.open({
        message: (message, relatedRequestId) => sink.message(message, relatedRequestId),
        warning: (message) => sink.warning(message),
        closed: (error) => {
          sink.closed(error);
          onClosed(error);
        },
      }),
    request: (request, sendOptions) => inner.request(request, sendOptions),
    notify: (notification, sendOptions) => inner.notify(notification, sendOptions),
    respond: (response, sendOptions) => inner.respond(response, sendOptions),
    close: () => inner.close(),
    ...(inner.authorizationKey
      ? { authorizationKey: () => inner.authorizationKey?.() ?? Promise.resolve(undefined) }
      : {}),
  };
  // The client's marks on its own transports (symbol keys: that a transport takes a LazySignal as a
  // call's cancellation, so none makes an AbortSignal) hold for this wrapper too: it passes every
  // send option through unchanged.
  for (const mark of Object.getOwnPropertySymbols(inner)) {
    (observed as unknown as Record<symbol, unknown>)[mark] = (inner as unknown as Record<symbol, unknown>)[
      mark
    ];
  }
  // The client's timeout messages quote the stdio server's last non-JSON-RPC output.
  Object.defineProperty(observed, 'lastInvalidOutput', {
    get: () => (inner as { lastInvalidOutput?: string }).lastInvalidOutput,
  });
  Object.defineProperty(observed, 'pid', { get: () => (inner as { pid?: number }).pid });
  return observed;
}
