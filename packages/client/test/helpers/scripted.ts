import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '@snodo/core';
import type { ClientTransport, SendOptions, TransportSink } from '../../src/index.js';

type Answer =
  | Record<string, unknown>
  | { error: { code: number; message: string; data?: unknown } }
  | 'silent'
  | Error;

/**
 * A custom transport whose server is a function: it proves `connect({ transport })` works and lets
 * tests script exact answers (negotiation, MRTR, caching). `sent` records every message.
 */
export class ScriptedTransport implements ClientTransport {
  readonly kind = 'scripted';
  readonly sent: { message: JsonRpcRequest | JsonRpcNotification | JsonRpcResponse; options: SendOptions }[] =
    [];
  sink: TransportSink | undefined;
  closed = false;
  httpHeaders = false;
  probeNeedsTimeout = false;
  auth: string | undefined;

  constructor(private readonly server: (request: JsonRpcRequest) => Answer | Promise<Answer>) {}

  async open(sink: TransportSink): Promise<void> {
    this.sink = sink;
  }

  requests(method?: string): JsonRpcRequest[] {
    return this.sent
      .map((entry) => entry.message)
      .filter(
        (m): m is JsonRpcRequest =>
          'id' in m && 'method' in m && (method === undefined || m.method === method),
      );
  }

  async request(request: JsonRpcRequest, options: SendOptions): Promise<JsonRpcResponse> {
    this.sent.push({ message: request, options });
    const answer = await this.server(request);
    if (answer instanceof Error) throw answer;
    if (answer === 'silent') {
      return new Promise((_, reject) => {
        if (options.signal.aborted) reject(options.signal.reason);
        options.signal.addEventListener('abort', () => reject(options.signal.reason), { once: true });
      });
    }
    if ('error' in answer && typeof answer.error === 'object') {
      return { jsonrpc: '2.0', id: request.id, error: answer.error as { code: number; message: string } };
    }
    return { jsonrpc: '2.0', id: request.id, result: answer as Record<string, unknown> };
  }

  async notify(notification: JsonRpcNotification, options: SendOptions): Promise<void> {
    this.sent.push({ message: notification, options });
  }

  async respond(response: JsonRpcResponse, options: SendOptions): Promise<void> {
    this.sent.push({ message: response, options });
  }

  async authorizationKey(): Promise<string | undefined> {
    return this.auth;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

export const DISCOVER = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: { listChanged: true }, resources: { subscribe: true } },
  ttlMs: 0,
  cacheScope: 'public',
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'scripted', version: '1.0.0' } },
};

export const INITIALIZE = (version: string) => ({
  protocolVersion: version,
  capabilities: { tools: {} },
  serverInfo: { name: 'scripted-legacy', version: '0.1.0' },
});
