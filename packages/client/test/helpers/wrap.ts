import type { JsonRpcRequest } from '@snodo/core';
import type { ClientTransport, SendOptions } from '../../src/index.js';

/**
 * Wraps a transport, recording what the client sends and optionally rewriting requests on the way
 * (e.g. tampering with an MRTR requestState). Itself a custom transport.
 */
export function wrap(
  inner: ClientTransport,
  rewrite: (request: JsonRpcRequest) => JsonRpcRequest = (r) => r,
): ClientTransport & { requests: JsonRpcRequest[]; sendOptions: SendOptions[] } {
  const requests: JsonRpcRequest[] = [];
  const sendOptions: SendOptions[] = [];
  return {
    kind: `wrapped-${inner.kind}`,
    ...(inner.httpHeaders === undefined ? {} : { httpHeaders: inner.httpHeaders }),
    ...(inner.probeNeedsTimeout === undefined ? {} : { probeNeedsTimeout: inner.probeNeedsTimeout }),
    requests,
    sendOptions,
    open: (sink) => inner.open(sink),
    request: (request, options) => {
      const sent = rewrite(request);
      requests.push(sent);
      sendOptions.push(options);
      return inner.request(sent, options);
    },
    notify: (notification, options) => inner.notify(notification, options),
    respond: (response, options) => inner.respond(response, options),
    close: () => inner.close(),
  };
}
