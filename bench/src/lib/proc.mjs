// What Linux says about a child process: resident set now and at its peak, and CPU time used.
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux ABI node supports

/** VmRSS and VmHWM (the peak resident set) of `pid` in bytes, or undefined once it is gone. */
export function memoryOf(pid) {
  let status;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (field) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match === null ? undefined : Number(match[1]) * 1024;
  };
  return { rss: kb('VmRSS'), peakRss: kb('VmHWM') };
}

/** utime + stime of `pid` in milliseconds, or undefined once it is gone. */
export function cpuMsOf(pid) {
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}
