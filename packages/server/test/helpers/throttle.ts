import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A process kept off the CPU, as a container's CPU quota does (CFS throttling) or other processes on a
 * loaded machine: it is stopped (SIGSTOP) for `stopMs`, let run (SIGCONT) for `runMs`, over and over,
 * until the returned function is called (which lets it run for good). Stops quietly once the process is gone.
 */
export function throttle(pid: number, runMs: number, stopMs: number): () => void {
  let on = true;
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(pid, s);
      return true;
    } catch {
      return false; // the process is gone
    }
  };
  void (async () => {
    while (on && signal('SIGSTOP')) {
      await sleep(stopMs);
      if (!signal('SIGCONT')) return;
      await sleep(runMs);
    }
  })();
  return () => {
    on = false;
    signal('SIGCONT');
  };
}
