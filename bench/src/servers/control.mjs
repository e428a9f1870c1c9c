// Preloaded into every server child (`node --expose-gc --import control.mjs <server>`), ours and the
// peers alike, so that all of them answer the same control messages over the IPC channel the runner
// opened with fork(). Nothing here runs on the request path.
//
//   runner ──{ type: 'memory', gc }──► child: global.gc() (twice, then a turn of the loop) ──► memory
//   runner ◄──{ type: 'memory', rss, heapUsed, maxRss }── child
//   runner ──{ type: 'allocation', action: 'start' | 'stop' }──► child
//   runner ◄──{ type: 'allocation', bytes, gcs }── child  (bytes allocated on the JS heap between the two)
//
// Allocation is counted by lib/allocated.mjs (v8.GCProfiler, which records the heap before and
// after every GC): allocated = (used at stop − used at start) + Σ (used before a GC − used after
// it). No GC is forced and nothing runs per allocation, so the server runs as it does unmeasured.
//
// The channel is unref'd: a stdio server must still exit by itself at EOF, as it does unbenched.
import process from 'node:process';
import v8 from 'node:v8';
import { countAllocation } from '../lib/allocated.mjs';

let allocation;

function allocationMessage(action) {
  if (action === 'start') {
    allocation?.stop();
    allocation = countAllocation();
    return { type: 'allocation', started: true };
  }
  if (allocation === undefined) return { type: 'allocation', error: 'not started' };
  const { bytes, gcs } = allocation.stop();
  allocation = undefined;
  return { type: 'allocation', bytes, gcs };
}

if (typeof process.send === 'function') {
  process.channel?.unref();
  process.on('message', (message) => {
    if (message === null || typeof message !== 'object') return;
    if (message.type === 'allocation') {
      process.send(allocationMessage(message.action));
      return;
    }
    if (message.type === 'memory') {
      const collect = message.gc === true && typeof globalThis.gc === 'function';
      const report = () => {
        const usage = process.memoryUsage();
        process.send({
          type: 'memory',
          rss: usage.rss,
          heapUsed: usage.heapUsed,
          heapTotal: usage.heapTotal,
          arrayBuffers: usage.arrayBuffers,
          external: usage.external,
          maxRss: process.resourceUsage().maxRSS * 1024,
          // Committed bytes per V8 heap space: where RSS that a GC does not give back sits.
          spaces: Object.fromEntries(
            v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]),
          ),
        });
      };
      if (!collect) return report();
      globalThis.gc();
      // Finalizers and weak callbacks run between turns; a second pass collects what they freed.
      setImmediate(() => {
        globalThis.gc();
        setImmediate(report);
      });
    }
  });
}

/** Called by HTTP server programs once they listen: the runner waits for this message. */
export function ready(url) {
  if (typeof process.send === 'function') process.send({ type: 'ready', url });
  else console.error(`listening on ${url}`);
}
