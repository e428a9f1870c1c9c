// Throughput of 10,000 pipelined `echo` calls over stdio: the Snodo demo server against the
// official SDK's stdio server with the same tool (sdk-echo-server.mjs), in the same run.
// Each server is one long-lived process: initialize once, one warm-up round, then ROUNDS rounds
// alternating between the two. A round writes all requests at once (honouring the pipe's
// backpressure) and ends when the last response line arrives. Prints the median requests/second.
//
//   node bench/pipelined-echo.mjs [requests=10000] [rounds=5]
//
// The demo server runs with --max-queue equal to the request count, so every pipelined call is
// admitted (its default queue of 256 would answer most of them -32000 at once).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REQUESTS = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 5);

const demo = fileURLToPath(new URL('../../../examples/everything/dist/main.js', import.meta.url));
const sdk = fileURLToPath(new URL('./sdk-echo-server.mjs', import.meta.url));

class Server {
  constructor(name, args) {
    this.name = name;
    this.child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child.stdout.setEncoding('utf8');
    this.buffer = '';
    this.onLines = undefined;
    this.child.stdout.on('data', (text) => {
      const lines = (this.buffer + text).split('\n');
      this.buffer = lines.pop();
      this.onLines?.(lines);
    });
    this.nextId = 1;
  }

  /** Writes every line, then resolves with the responses once `expected` lines came back. */
  exchange(lines, expected) {
    return new Promise((resolve, reject) => {
      const received = [];
      this.onLines = (batch) => {
        for (const line of batch) received.push(line);
        if (received.length >= expected) {
          this.onLines = undefined;
          resolve(received);
        }
      };
      this.child.once('exit', (code) => reject(new Error(`${this.name} exited with ${code}`)));
      const payload = lines.map((line) => `${line}\n`).join('');
      this.child.stdin.write(payload);
    });
  }

  async initialize() {
    const init = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    };
    const [response] = await this.exchange([JSON.stringify(init)], 1);
    if (!response.includes('"protocolVersion"'))
      throw new Error(`${this.name}: initialize failed: ${response}`);
    this.child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }

  /** One round: REQUESTS pipelined echo calls; returns requests per second. */
  async round() {
    const lines = [];
    for (let i = 0; i < REQUESTS; i++) {
      const id = this.nextId++;
      lines.push(
        `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello ${id}"}}}`,
      );
    }
    const started = process.hrtime.bigint();
    const responses = await this.exchange(lines, REQUESTS);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const failed = responses.filter((line) => !line.includes('"result"'));
    if (failed.length > 0) throw new Error(`${this.name}: ${failed.length} calls failed, e.g. ${failed[0]}`);
    return REQUESTS / seconds;
  }

  close() {
    this.child.stdin.end();
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const servers = [
  new Server('snodo', [demo, '--stdio', '--max-queue', String(REQUESTS)]),
  new Server('sdk', [sdk]),
];
for (const server of servers) await server.initialize();
for (const server of servers) await server.round(); // warm-up, not counted

const results = { snodo: [], sdk: [] };
for (let round = 0; round < ROUNDS; round++) {
  // Alternate which goes first, so neither always runs on a machine just freed by the other.
  const order = round % 2 === 0 ? servers : [...servers].reverse();
  for (const server of order) results[server.name].push(await server.round());
}
for (const server of servers) server.close();

const snodo = median(results.snodo);
const sdkRate = median(results.sdk);
const fmt = (n) => Math.round(n).toLocaleString('en-US');
console.log(
  `${REQUESTS} pipelined echo calls over stdio, ${ROUNDS} rounds each (median), Node ${process.version}`,
);
console.log(
  `snodo (examples/everything): ${fmt(snodo)} req/s   rounds: ${results.snodo.map(fmt).join(', ')}`,
);
console.log(
  `official SDK (McpServer):    ${fmt(sdkRate)} req/s   rounds: ${results.sdk.map(fmt).join(', ')}`,
);
console.log(`ratio snodo / sdk: ${(snodo / sdkRate).toFixed(2)}`);
