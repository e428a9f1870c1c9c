// Load generator child: runs autocannon (its API) against one server, in its own process.
//   { type: 'prepare', url, request, session, expect }  one checked request first (and, with
//        `session`, an initialize + notifications/initialized); answers the headers to replay with
//   { type: 'run', url, headers, body, connections, duration | amount, idToken }  one load run
// Latency comes from autocannon's per-response event (float ms), not its integer-ms histogram, so
// sub-millisecond p50s keep their precision.
import process from 'node:process';
import autocannon from 'autocannon';
import { initialize, initialized } from '../lib/requests.mjs';
import { assertLoopback } from './loopback.mjs';

process.on('message', async (job) => {
  try {
    assertLoopback(job.url);
    const result = job.type === 'prepare' ? await prepare(job) : await run(job);
    process.send({ type: 'result', result });
  } catch (error) {
    process.send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
});

async function prepare({ url, request, session, expect }) {
  const headers = { ...request.headers };
  if (session) {
    const init = initialize();
    const response = await fetch(url, { method: 'POST', headers: init.headers, body: init.body });
    const text = await response.text();
    const sessionId = response.headers.get('mcp-session-id');
    if (response.status !== 200 || sessionId === null) {
      throw new Error(`initialize: ${response.status} without Mcp-Session-Id: ${text.slice(0, 300)}`);
    }
    const note = initialized(sessionId);
    const ack = await fetch(url, { method: 'POST', headers: note.headers, body: note.body });
    await ack.text();
    if (ack.status !== 202) throw new Error(`notifications/initialized: ${ack.status}`);
    headers['mcp-session-id'] = sessionId;
  }
  const body = request.body.replace('"[<id>]"', '"check-1"');
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  const problem = check(response.status, text, expect);
  if (problem !== undefined) throw new Error(`${url}: ${problem}: ${text.slice(0, 300)}`);
  return { headers, contentType: response.headers.get('content-type'), bytes: text.length };
}

function check(status, text, expect = {}) {
  if (status !== (expect.status ?? 200)) return `status ${status}`;
  if (expect.contains !== undefined && !text.includes(expect.contains))
    return `no ${JSON.stringify(expect.contains)}`;
  if (expect.minLength !== undefined && text.length < expect.minLength) return `only ${text.length} bytes`;
  if (/"error"\s*:/.test(text.slice(0, 4096)) && expect.error !== true) return 'a JSON-RPC error';
  return undefined;
}

function run({ url, headers, body, connections, duration, amount, idToken = false, timeout = 30 }) {
  return new Promise((resolve, reject) => {
    let latencies = new Float64Array(1 << 16);
    let count = 0;
    const instance = autocannon(
      {
        url,
        method: 'POST',
        headers,
        body,
        connections,
        ...(amount === undefined ? { duration } : { amount }),
        idReplacement: idToken,
        timeout,
      },
      (error, result) => {
        if (error) return reject(error);
        const sorted = latencies.subarray(0, count).sort();
        const at = (p) =>
          count === 0 ? undefined : sorted[Math.min(count - 1, Math.ceil((p / 100) * count) - 1)];
        const ok = result['2xx'];
        resolve({
          ok,
          rps: ok / result.duration,
          p50: at(50),
          p99: at(99),
          durationS: result.duration,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          bytesPerSecond: result.throughput.average,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode < 200 || statusCode > 299) return;
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = responseTime;
    });
  });
}
