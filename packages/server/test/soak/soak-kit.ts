import { randomInt } from 'node:crypto';

export interface FaultActions {
  restart(which: 'node' | 'worker'): Promise<void>;
  terminateBackends(): Promise<void>;
  cutRedis(ms: number): Promise<void>;
  stallBank(ms: number): Promise<void>;
}

/** Picks the next fault at random (every kind comes up over a run) and runs it, marking its span. */
export function createFaultStepper(a: FaultActions) {
  // Quick faults first, so even the short run meets each of them; restarts take a process start.
  const steps: Array<[string, () => Promise<void>]> = [
    ['terminate database backends', () => a.terminateBackends()],
    ['cut Redis 3 s', () => a.cutRedis(3000)],
    ['stall the bank 4 s', () => a.stallBank(4000)],
    ['kill -9 an API node', () => a.restart('node')],
    ['kill -9 the worker', () => a.restart('worker')],
  ];
  let turn = 0;
  return {
    async next(begin: () => void, end: () => void): Promise<string> {
      // The first rounds go through every kind once, then at random.
      const [name, run] = turn < steps.length ? steps[turn]! : steps[randomInt(steps.length)]!;
      turn++;
      begin();
      try {
        await run();
      } finally {
        end();
      }
      return name;
    },
  };
}
