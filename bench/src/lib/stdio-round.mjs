// One stdio round: a fresh server child on real pipes, one checked call, then two batches of echo
// calls written back to back (pipelined: the writer waits only when the pipe is full) while
// responses are read and checked by id. The first batch (`warmupCalls`) is the server's first
// contact with the load, JIT warm-up included: its rate is reported as `coldCallsPerSecond`. The
// second (`calls`) is timed as the HTTP scenarios time theirs, after a discarded warm-up:
// calls per second from its first write to its last response, server CPU and bytes over it.

import { startServer } from './child.mjs';
import { stdioEcho } from './requests.mjs';
import { serverSpec } from './servers.mjs';

const TEXT = 'hi';

export async function stdioRound({
  server,
  dialect,
  calls,
  warmupCalls = calls,
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

    const batch = async (firstId, count) => {
      const started = performance.now();
      const seen = new Uint8Array(count);
      let answered = 0;
      let failures = 0;
      let firstFailure;
      const done = (async () => {
        while (answered < count) {
          const message = await reader.next(timeout);
          const id = message?.id;
          const slot = id - firstId;
          if (!Number.isInteger(id) || slot < 0 || slot >= count || seen[slot] === 1) continue;
          seen[slot] = 1;
          answered++;
          const failure = checkEcho(message, id);
          if (failure !== undefined) {
            failures++;
            firstFailure ??= JSON.stringify(message).slice(0, 200);
          }
        }
      })();
      for (let id = firstId; id < firstId + count; id++) {
        if (!stdin.write(stdioEcho(dialect, id, TEXT)))
          await new Promise((resolve) => stdin.once('drain', resolve));
      }
      await done;
      const elapsedMs = performance.now() - started;
      if (failures > 0) console.error(`  ${server}: ${failures} calls failed, first: ${firstFailure}`);
      return { elapsedMs, failures, callsPerSecond: ((count - failures) * 1000) / elapsedMs };
    };

    const cold = warmupCalls > 0 ? await batch(1, warmupCalls) : undefined;
    await child.allocation('start');
    const cpuBefore = child.cpuMs();
    const warm = await batch(warmupCalls + 1, calls);
    const cpuMs = child.cpuMs() - cpuBefore;
    const allocated = await child.allocation('stop');
    const memory = child.memory();
    return {
      callsPerSecond: warm.callsPerSecond,
      coldCallsPerSecond: cold?.callsPerSecond,
      elapsedMs: warm.elapsedMs,
      peakRssMb: memory.peakRss / 2 ** 20,
      cpuUsPerCall: (cpuMs * 1000) / calls,
      allocKbPerCall: allocated === undefined ? undefined : allocated.bytes / calls / 1024,
      failures: warm.failures + (cold?.failures ?? 0),
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
