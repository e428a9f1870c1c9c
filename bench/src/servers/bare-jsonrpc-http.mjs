// The floor of a JSON-RPC server on node:http: what any server that answers `tools/call echo` must
// do, and nothing else. It reads the body, `JSON.parse`s it, answers `echo` with its text
// (`JSON.stringify`) and anything else with -32601. No header, size, depth or schema check, no
// session, no executor: the least work a server that parses can do, against which the MCP work on
// top is read (bare-http.mjs, which parses nothing, is the platform's ceiling).
import { echoAnswer, serveNodeHttp } from './common.mjs';

serveNodeHttp((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = JSON.stringify(echoAnswer(request));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
