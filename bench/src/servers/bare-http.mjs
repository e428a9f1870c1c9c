// The ceiling: plain node:http that reads the body and answers one fixed JSON-RPC response, the
// same bytes our echo answers for the small request. No MCP work at all.
import { serveNodeHttp } from './common.mjs';

const BODY = Buffer.from(
  JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } }),
);
const HEADERS = { 'content-type': 'application/json', 'content-length': String(BODY.length) };

serveNodeHttp((req, res) => {
  // Drain the body: a server that answers before reading would not be doing the same work.
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, HEADERS);
    res.end(BODY);
  });
});
