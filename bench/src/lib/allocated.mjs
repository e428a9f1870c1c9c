// Bytes allocated on this process's JS heap while a function runs, counted as servers/control.mjs
// counts a server's: used after − used before + what each GC freed in between (v8.GCProfiler). It
// does not depend on the machine's load.
import v8 from 'node:v8';

/** Runs `run` and resolves with its value and the bytes this process allocated meanwhile. */
export async function allocated(run) {
  const profiler = new v8.GCProfiler();
  profiler.start();
  const before = v8.getHeapStatistics().used_heap_size;
  const value = await run();
  let bytes = v8.getHeapStatistics().used_heap_size - before;
  for (const gc of profiler.stop().statistics) {
    bytes += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
  }
  return { value, bytes };
}
