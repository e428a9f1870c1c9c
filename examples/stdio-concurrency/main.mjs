// Pipelines many concurrent requests into the demo server over stdio, cancels one, and prints
// what came back, as it comes back. Run: pnpm --filter stdio-concurrency start
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../everything/dist/main.js', import.meta.url));
const server = spawn(process.execPath, [main, '--stdio', '--max-concurrency', '4', '--max-queue', '8'], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const call = (id, name, args) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, _meta: meta },
});
const started = Date.now();
const send = (message) => server.stdin.write(`${JSON.stringify(message)}\n`);

createInterface({ input: server.stdout }).on('line', (line) => {
  const message = JSON.parse(line);
  const at = `${String(Date.now() - started).padStart(5)} ms`;
  if (message.error)
    console.log(`${at}  #${message.id}  error ${message.error.code} ${message.error.message}`);
  else if (message.result?.structuredContent?.sleptMs !== undefined) {
    const { sleptMs, concurrent } = message.result.structuredContent;
    console.log(`${at}  #${message.id}  slept ${sleptMs} ms (${concurrent} sleeping when it started)`);
  } else console.log(`${at}  #${message.id}  ${message.result?.content?.[0]?.text}`);
});

// 14 requests at once against 4 workers and 8 queue places: 2 are refused as overloaded.
for (let id = 1; id <= 10; id++) send(call(id, 'sleep', { ms: 100 * id }));
for (let id = 11; id <= 14; id++) send(call(id, 'echo', { text: `echo ${id}` }));
// #3 is cancelled: it never gets a response, and its worker moves on to the queue.
send({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId: 3, reason: 'changed my mind' },
});
console.log('sent #1..#14 (sleeps and echoes), cancelled #3');
server.stdin.end(); // EOF: the server finishes what it admitted, writes it, and exits
server.on('exit', (code) => console.log(`server exited with ${code} after ${Date.now() - started} ms`));
