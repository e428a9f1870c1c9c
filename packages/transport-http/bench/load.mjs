// One autocannon run (its own process, apart from every server): node load.mjs URL modern|legacy SECONDS CONNECTIONS
// Sends one fixed `tools/call echo` over keep-alive connections and prints one JSON line. Loopback only.
import autocannon from 'autocannon';

const [url, kind, seconds, connections] = process.argv.slice(2);
const host = new URL(url).hostname;
if (!/^127\.\d+\.\d+\.\d+$/.test(host) && host !== 'localhost') {
  console.error('loopback only');
  process.exit(2);
}
const params = { name: 'echo', arguments: { text: 'hi' } };
if (kind === 'modern') {
  params._meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
if (kind === 'modern')
  Object.assign(headers, {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'echo',
  });
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });

const check = await fetch(url, { method: 'POST', headers, body });
const text = await check.text();
if (check.status !== 200 || !text.includes('"hi"')) {
  console.error(`sanity check failed: ${check.status} ${text.slice(0, 200)}`);
  process.exit(1);
}
const result = await autocannon({
  url,
  method: 'POST',
  headers,
  body,
  connections: Number(connections),
  duration: Number(seconds),
  pipelining: 1,
});
console.log(
  JSON.stringify({
    rps: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  }),
);
