// Subscription client child: holds many SSE streams open against one server, then times one
// change reaching all of them.
//   { type: 'open', url, streams, uri }   opens `streams` subscriptions/listen streams (one
//        connection each), resolves once every one has its acknowledgement
//   { type: 'touch', url, uri }           calls the `touch` tool and waits until every stream saw
//        notifications/resources/updated; fan-out time runs from sending the call to the last one
//   { type: 'close' }                     destroys every stream
import http from 'node:http';
import process from 'node:process';
import { listen, toolCall } from '../lib/requests.mjs';
import { assertLoopback } from './loopback.mjs';

/** Streams opened at once: a connect storm past the listen backlog would only measure SYN retries. */
const OPEN_CONCURRENCY = 64;
const TIMEOUT = 60_000;

let streams = [];

process.on('message', async (job) => {
  try {
    if (job.url !== undefined) assertLoopback(job.url);
    let result;
    if (job.type === 'open') result = await open(job);
    else if (job.type === 'touch') result = await touch(job);
    else if (job.type === 'close') result = close();
    else throw new Error(`unknown job ${job.type}`);
    process.send({ type: 'result', result });
  } catch (error) {
    process.send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
});

async function open({ url, streams: count, uri }) {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const id = next++;
      streams.push(await openStream(url, id, uri));
    }
  };
  await Promise.all(Array.from({ length: Math.min(OPEN_CONCURRENCY, count) }, worker));
  return { opened: streams.length, openMs: performance.now() - started };
}

function openStream(url, id, uri) {
  const { headers, body } = listen(id, uri);
  return new Promise((resolve, reject) => {
    const stream = { id, updatedAt: undefined, onUpdate: undefined, request: undefined };
    const timer = setTimeout(
      () => reject(new Error(`stream ${id}: no acknowledgement in ${TIMEOUT} ms`)),
      TIMEOUT,
    );
    const request = http.request(url, { method: 'POST', headers, agent: false }, (response) => {
      if (response.statusCode !== 200) {
        clearTimeout(timer);
        reject(new Error(`stream ${id}: status ${response.statusCode}`));
        response.resume();
        return;
      }
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n');
          if (data === '') continue;
          const message = JSON.parse(data);
          if (message.method === 'notifications/subscriptions/acknowledged') {
            clearTimeout(timer);
            resolve(stream);
          } else if (message.method === 'notifications/resources/updated' && stream.updatedAt === undefined) {
            stream.updatedAt = performance.now();
            stream.onUpdate?.();
          }
        }
      });
      response.on('error', () => {});
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`stream ${id}: ${error.message}`));
    });
    request.end(body);
    stream.request = request;
  });
}

async function touch({ url, uri }) {
  let pending = streams.filter((s) => s.updatedAt === undefined).length;
  const all = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${pending} streams never saw the update`)), TIMEOUT);
    if (pending === 0) resolve();
    for (const stream of streams) {
      stream.onUpdate = () => {
        if (--pending === 0) {
          clearTimeout(timer);
          resolve();
        }
      };
    }
  });
  const { headers, body } = toolCall('modern', 'touch', { uri });
  const sent = performance.now();
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  const answeredMs = performance.now() - sent;
  if (response.status !== 200 || text.includes('"error"'))
    throw new Error(`touch: ${response.status} ${text.slice(0, 200)}`);
  await all;
  const times = streams.map((s) => s.updatedAt - sent).sort((a, b) => a - b);
  return {
    fanoutMs: times[times.length - 1],
    firstMs: times[0],
    medianMs: times[times.length >> 1],
    touchAnsweredMs: answeredMs,
    received: times.length,
  };
}

function close() {
  for (const stream of streams) stream.request.destroy();
  const closed = streams.length;
  streams = [];
  return { closed };
}
