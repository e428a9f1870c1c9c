// The floor of a JSON-RPC server on stdio: newline-delimited JSON in, `JSON.parse` per line, the echo
// answered with `JSON.stringify`, and every answer to one read written in one `write`. No size,
// depth or schema check, no executor, no ASCII escaping: the least work a stdio server that parses
// can do (bare-jsonrpc-http.mjs is the same on node:http).
import process from 'node:process';
import { echoAnswer } from './common.mjs';

let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  const lines = (rest + chunk).split('\n');
  rest = lines.pop();
  let out = '';
  for (const line of lines) {
    if (line === '') continue;
    out += `${JSON.stringify(echoAnswer(JSON.parse(line)))}\n`;
  }
  if (out !== '') process.stdout.write(out);
});
