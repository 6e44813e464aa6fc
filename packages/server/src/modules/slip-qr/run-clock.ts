import { readFileSync } from 'node:fs';

/** CPU time this process has used (every thread: the decode's libvips and OCR threads count too), in ms. */
export function processCpuMs(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

/**
 * A clock of the time an image has spent running, for the decoder's budgets: the smaller of the wall
 * time and this process's CPU time since the clock started. Wall time alone counted the time a loaded
 * machine kept the decoder off the CPU (other processes, a container's CPU quota): a slip whose amount
 * takes 100 ms to read ran out of its 1.7 s while waiting, and an edited slip answered without its
 * printed amount. The CPU time alone would run ahead of the wall while helper threads work beside the
 * main one, and cut a quiet machine's decodes shorter than before.
 */
export function startRunClock(): () => number {
  const wall0 = performance.now();
  const cpu0 = processCpuMs();
  return () => Math.min(performance.now() - wall0, processCpuMs() - cpu0);
}

// Linux reports a process's CPU time in clock ticks of USER_HZ, which is 100 on every architecture
// Node runs on (the kernel's ABI; sysconf(_SC_CLK_TCK) is not reachable from Node).
const TICK_MS = 10;

/**
 * CPU time another process has used, in ms (every thread), from /proc/<pid>/stat; null where that
 * cannot be read (not Linux, the process is gone). The pool reads its decoders' this way, only when
 * a job reaches its time limit: a decoder stuck inside libvips cannot be asked.
 */
export function childCpuMs(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: the fields after it start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 (utime, stime), counted from the state (field 3) at index 0.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) * TICK_MS : null;
}
