// One stdio round: a fresh server child on real pipes, one checked call, then `calls` echo calls
// written back to back (pipelined: the writer waits only when the pipe is full) while responses
// are read and checked by id. Calls per second run from the first write to the last response.

import { startServer } from './child.mjs';
import { stdioEcho } from './requests.mjs';
import { serverSpec } from './servers.mjs';

const TEXT = 'hi';

export async function stdioRound({
  server,
  dialect,
  calls,
  timeout = 60_000,
  execArgv = [],
  graceful = false,
  root,
}) {
  const child = await startServer({ ...serverSpec(server, root), execArgv });
  const { stdin, stdout } = child.child;
  try {
    const reader = lineReader(stdout);
    // The checked call also pays the server's start-up (module loading), outside the timed part.
    stdin.write(stdioEcho(dialect, 0, TEXT));
    const first = await reader.next(timeout);
    const problem = checkEcho(first, 0);
    if (problem !== undefined)
      throw new Error(`${server}: ${problem}: ${JSON.stringify(first).slice(0, 300)}`);

    await child.allocation('start');
    const cpuBefore = child.cpuMs();
    const started = performance.now();
    const seen = new Uint8Array(calls + 1);
    let answered = 0;
    let failures = 0;
    let firstFailure;
    const done = (async () => {
      while (answered < calls) {
        const message = await reader.next(timeout);
        const id = message?.id;
        if (!Number.isInteger(id) || id < 1 || id > calls || seen[id] === 1) continue;
        seen[id] = 1;
        answered++;
        const failure = checkEcho(message, id);
        if (failure !== undefined) {
          failures++;
          firstFailure ??= JSON.stringify(message).slice(0, 200);
        }
      }
    })();
    for (let id = 1; id <= calls; id++) {
      if (!stdin.write(stdioEcho(dialect, id, TEXT)))
        await new Promise((resolve) => stdin.once('drain', resolve));
    }
    await done;
    const elapsedMs = performance.now() - started;
    const cpuMs = child.cpuMs() - cpuBefore;
    const allocated = await child.allocation('stop');
    const memory = child.memory();
    if (failures > 0) console.error(`  ${server}: ${failures} calls failed, first: ${firstFailure}`);
    return {
      callsPerSecond: ((calls - failures) * 1000) / elapsedMs,
      elapsedMs,
      peakRssMb: memory.peakRss / 2 ** 20,
      cpuUsPerCall: (cpuMs * 1000) / calls,
      allocKbPerCall: allocated === undefined ? undefined : allocated.bytes / calls / 1024,
      failures,
    };
  } finally {
    stdin.end();
    // `graceful`: let it exit by itself at EOF (profiles are written at exit).
    if (graceful) await Promise.race([child.exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    await child.kill();
  }
}

function checkEcho(message, id) {
  if (message === undefined) return 'no answer';
  if (message.id !== id) return `id ${message.id}, expected ${id}`;
  if (message.error !== undefined) return `error ${message.error.code} ${message.error.message}`;
  if (message.result?.content?.[0]?.text !== TEXT) return 'not the echoed text';
  return undefined;
}

/** Parses newline-delimited JSON from a stream; `next()` resolves with the next message. */
function lineReader(stream) {
  const queue = [];
  const waiting = [];
  let rest = '';
  let ended = false;
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const text = rest + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const line = text.slice(start, nl);
      start = nl + 1;
      if (line.trim() === '') continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        message = { unparsable: line.slice(0, 200) };
      }
      const waiter = waiting.shift();
      if (waiter) waiter.resolve(message);
      else queue.push(message);
    }
    rest = text.slice(start);
  });
  stream.on('end', () => {
    ended = true;
    for (const waiter of waiting.splice(0)) waiter.reject(new Error('server closed its output'));
  });
  return {
    next(timeout) {
      if (queue.length > 0) return Promise.resolve(queue.shift());
      if (ended) return Promise.reject(new Error('server closed its output'));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer in ${timeout} ms`)), timeout);
        waiting.push({
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
      });
    },
  };
}
