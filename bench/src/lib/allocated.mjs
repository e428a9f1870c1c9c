// Bytes allocated on this process's JS heap over a stretch of time: used at the end − used at the
// start + what each GC freed in between (v8.GCProfiler). Nothing runs per allocation and no GC is
// forced, so what is measured runs as it does unmeasured; the figure does not depend on the
// machine's load. servers/control.mjs counts a server child's this way, the in-process A/B
// clients their own.
import v8 from 'node:v8';

/** Starts counting; `stop()` returns the bytes allocated since and the number of GCs between. */
export function countAllocation() {
  const profiler = new v8.GCProfiler();
  profiler.start();
  const before = v8.getHeapStatistics().used_heap_size;
  return {
    stop() {
      const used = v8.getHeapStatistics().used_heap_size;
      const { statistics } = profiler.stop();
      let bytes = used - before;
      for (const gc of statistics) {
        bytes += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
      }
      return { bytes, gcs: statistics.length };
    },
  };
}

/** Runs `run` and resolves with its value and the bytes this process allocated meanwhile. */
export async function allocated(run) {
  const counting = countAllocation();
  const value = await run();
  return { value, bytes: counting.stop().bytes };
}
