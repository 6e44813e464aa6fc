/**
 * TEST-ONLY fault injection. `SLIPCHECK_FAULT=kill-after-reserve` (or `kill-after-check`) makes the
 * process SIGKILL itself at that point of verifySlip: after the quota unit is reserved, or after the
 * checker answered and before the record is written. Only the crash tests (test/verify/crash-*.test.ts)
 * set it, on a child process they start; it is ignored when NODE_ENV=production. Never set it on a
 * real deployment: every verify would kill the node.
 */
export type FaultPoint = 'after-reserve' | 'after-check';

const configured = process.env.NODE_ENV === 'production' ? '' : (process.env.SLIPCHECK_FAULT ?? '');

export async function faultPoint(point: FaultPoint): Promise<void> {
  if (configured !== `kill-${point}`) return;
  process.kill(process.pid, 'SIGKILL');
  await new Promise(() => undefined); // SIGKILL is delivered asynchronously: nothing after this point may run
}
