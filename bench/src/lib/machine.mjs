// The machine a run happened on, as BENCHMARKS.md reports it.
import { readFileSync } from 'node:fs';
import os from 'node:os';

export function machine() {
  let cpu = os.cpus()[0]?.model;
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) cpu = match[1].trim();
  } catch {}
  return {
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    cpu,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    loadavg: os.loadavg().map((v) => Math.round(v * 100) / 100),
  };
}
