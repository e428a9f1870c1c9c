// The ceiling: plain node:http that reads the body and answers one fixed JSON-RPC response, no MCP
// work at all. By default the response is the small echo result ("hi"); `--text-bytes N` makes it
// an N-character text result, so that for the 1 MB scenario the ceiling moves as many bytes back
// as the servers that echo the megabyte (it still parses nothing).
import { option, serveNodeHttp } from './common.mjs';

const TEXT = 'x'.repeat(Number(option('text-bytes', '0'))) || 'hi';
const BODY = Buffer.from(
  JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: TEXT }] } }),
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
