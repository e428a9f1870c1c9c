// The floor: bare node:http answering every request with one fixed JSON-RPC response (the body read
// and dropped), no MCP at all. Prints its URL.
import http from 'node:http';

const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  result: { content: [{ type: 'text', text: 'hi' }], resultType: 'complete' },
});
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/mcp`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
