/**
 * Calls `onGone` once when this process's parent has gone away. A process started through a chain
 * (`npx` -> sh -> node, `npm start` -> scripts/start.js -> service) is not sent the SIGTERM its
 * ancestor got: sh dies without passing it on, the node process is re-parented and keeps its ports,
 * and the next start fails with EADDRINUSE.
 *
 * Watched as "ppid differs from the one at start", not "ppid is 1": a process in a container, or run
 * by systemd, has parent 1 all its life, and a subreaper (tini, systemd --user) adopts orphans under
 * another pid. Polled (the timer is unref'd, so it never holds the process open): Linux has no
 * portable signal on a parent's death that Node exposes.
 */
export function watchParent(onGone: () => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
