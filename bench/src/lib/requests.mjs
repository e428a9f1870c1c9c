// The exact requests every scenario sends. One tool (`echo {text}`) on every server; the body and
// headers are each server's own dialect of the same call, as its documentation shows:
//   modern   2026-07-28 stateless: the `_meta` envelope plus MCP-Protocol-Version, Mcp-Method, Mcp-Name
//   legacy   2025-era claim-less tools/call (the 1.x stateless peer serves nothing newer)
//   session  2025-06-18 after one initialize: Mcp-Session-Id and MCP-Protocol-Version headers

export const MODERN = '2026-07-28';
export const SESSION_VERSION = '2025-06-18';

const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
};

const ACCEPT = 'application/json, text/event-stream';

/** A tools/call request as `{ headers, body }`; `idToken` makes autocannon give every request its own id. */
export function toolCall(dialect, name, args, { idToken = false } = {}) {
  const id = idToken ? '"[<id>]"' : '1';
  const headers = { 'content-type': 'application/json', accept: ACCEPT };
  let params;
  if (dialect === 'modern') {
    Object.assign(headers, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name });
    params = { name, arguments: args, _meta: META };
  } else {
    if (dialect === 'session') headers['mcp-protocol-version'] = SESSION_VERSION;
    params = { name, arguments: args };
  }
  // The id is spliced in as text so that `[<id>]` stays a placeholder autocannon can replace.
  const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${JSON.stringify(params)}}`;
  return { headers, body };
}

export const echo = (dialect, text, options) => toolCall(dialect, 'echo', { text }, options);

/** The initialize request that opens a 2025-06-18 session (the session scenarios and churn). */
export function initialize(id = 0) {
  return {
    headers: { 'content-type': 'application/json', accept: ACCEPT },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: {
        protocolVersion: SESSION_VERSION,
        capabilities: {},
        clientInfo: { name: 'snodo-bench', version: '0' },
      },
    }),
  };
}

export function initialized(sessionId) {
  return {
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': SESSION_VERSION,
    },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  };
}

/** A 2026-07-28 `subscriptions/listen` for updates of one resource. */
export function listen(id, uri) {
  return {
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-protocol-version': MODERN,
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: { notifications: { resourceSubscriptions: [uri] }, _meta: META },
    }),
  };
}

/** One stdio line: a tools/call echo with `_meta` (modern) or without (legacy), id `id`. */
export function stdioEcho(dialect, id, text) {
  const params =
    dialect === 'modern'
      ? { name: 'echo', arguments: { text }, _meta: META }
      : { name: 'echo', arguments: { text } };
  return `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params })}\n`;
}
