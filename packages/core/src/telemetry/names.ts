/**
 * Span attribute and metric names. The `mcp.*`, `gen_ai.*`, `jsonrpc.*`, `rpc.*`, `error.type` and
 * `network.*` ones are the OpenTelemetry MCP semantic conventions (status: development); the
 * `snodo.*` ones name what the conventions do not cover yet (README, "Observability").
 */
export const ATTR = {
  method: 'mcp.method.name',
  sessionId: 'mcp.session.id',
  protocolVersion: 'mcp.protocol.version',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operationName: 'gen_ai.operation.name',
  resourceUri: 'mcp.resource.uri',
  errorType: 'error.type',
  statusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
  queueWait: 'snodo.executor.queue_wait',
  inputRound: 'snodo.mrtr.round',
  inputKey: 'snodo.mrtr.input_key',
  resultType: 'snodo.result_type',
} as const;

export const METRIC = {
  serverOperation: 'mcp.server.operation.duration',
  clientOperation: 'mcp.client.operation.duration',
  serverSession: 'mcp.server.session.duration',
  running: 'snodo.executor.running',
  queued: 'snodo.executor.queued',
  refused: 'snodo.executor.refused',
  subscriptions: 'snodo.subscriptions.open',
  sessions: 'snodo.sessions.active',
} as const;

/** The conventions' advice for MCP duration histograms, in seconds. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The target of a span name (`tools/call echo`) and its attribute, for the methods that have one. */
export function targetOf(
  method: string,
  params: Record<string, unknown> | undefined,
): { readonly key: string; readonly value: string; readonly inName: boolean } | undefined {
  switch (method) {
    case 'tools/call':
      return typeof params?.name === 'string'
        ? { key: ATTR.toolName, value: params.name, inName: true }
        : undefined;
    case 'prompts/get':
      return typeof params?.name === 'string'
        ? { key: ATTR.promptName, value: params.name, inName: true }
        : undefined;
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      // A URI is high-cardinality: an attribute, never part of the span name.
      return typeof params?.uri === 'string'
        ? { key: ATTR.resourceUri, value: params.uri, inName: false }
        : undefined;
    default:
      return undefined;
  }
}

/** `jsonrpc.request.id` as the conventions want it: the id's text (a string as is, a number in digits). */
export function idText(id: unknown): string {
  return typeof id === 'string' ? id : String(id);
}
