import { Client } from './client.js';
import { optionError } from './errors.js';
import { negotiate } from './negotiate.js';
import { resolveSettings } from './options.js';
import type { ClientTransport } from './transport.js';
import { DirectTransport } from './transports/direct.js';
import { HttpTransport } from './transports/http.js';
import { StdioTransport } from './transports/stdio.js';
import type { ConnectOptions, Target } from './types.js';

function transportFor(target: Target, options: ConnectOptions): ClientTransport {
  if (typeof target !== 'object' || target === null) throw optionError('target must be an object');
  if ('http' in target) {
    const url = new URL(target.http);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw optionError(`target.http must be an http: or https: URL, got ${url.protocol}`);
    }
    return new HttpTransport(url, options);
  }
  if ('stdio' in target) {
    if (typeof target.stdio?.command !== 'string' || target.stdio.command === '') {
      throw optionError('target.stdio.command must be a non-empty string');
    }
    return new StdioTransport(target.stdio, options);
  }
  if ('direct' in target) {
    if (typeof target.direct !== 'object' || target.direct === null) {
      throw optionError('target.direct must be a runtime from createServer()');
    }
    return new DirectTransport(target.direct);
  }
  if ('transport' in target) {
    const transport = target.transport;
    for (const method of ['open', 'request', 'notify', 'respond', 'close'] as const) {
      if (typeof transport?.[method] !== 'function') {
        throw optionError(`target.transport must implement ClientTransport (missing ${method}())`);
      }
    }
    return transport;
  }
  throw optionError('target must have one of http, stdio, direct or transport');
}

/**
 * Connects to an MCP server and negotiates the revision (2026-07-28 first, then the
 * initialize-based ones, within `options.protocolVersions`). Resolves with a ready `Client`; on
 * failure the transport is closed and the error thrown (`TransportError`, `ProtocolError`, or
 * `SnodoError` SNODO_ERR_NEGOTIATION).
 */
export async function connect(target: Target, options: ConnectOptions = {}): Promise<Client> {
  const settings = resolveSettings(options);
  const transport = transportFor(target, options);
  const client = new Client(transport, settings);
  try {
    await transport.open(client.sink());
    const negotiated = await negotiate(
      client,
      transport.kind,
      transport.probeNeedsTimeout === true,
      settings,
    );
    client.negotiated(negotiated);
    return client;
  } catch (error) {
    await transport.close().catch(() => {});
    throw error;
  }
}
