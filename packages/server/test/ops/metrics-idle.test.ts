import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const metricsModule = path.resolve(import.meta.dirname, '../../src/lib/metrics.ts');

/**
 * The process metrics' event-loop delay histogram samples on a libuv timer. prom-client's default
 * resolution (10 ms) woke an idle node about a hundred times a second, and a busy one between most
 * requests: on the bench host every wake-up costs a context switch and an emptied TLB
 * (docs/benchmarks.md). A process that has loaded the metrics and has nothing to do must sleep.
 */
it('an idle process with the metrics loaded wakes at most a few times a second', async () => {
  const script = `
    await import(${JSON.stringify(metricsModule)});
    await new Promise((r) => setTimeout(r, 300)); // start-up's own work settles
    const before = process.resourceUsage().voluntaryContextSwitches;
    await new Promise((r) => setTimeout(r, 1000));
    console.log(process.resourceUsage().voluntaryContextSwitches - before);
  `;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: path.resolve(import.meta.dirname, '../..'),
  });
  const switches = Number(stdout.trim());
  expect(Number.isInteger(switches)).toBe(true);
  // A 100 ms resolution: ~10 timer wake-ups in the second, plus the odd helper thread. 10 ms gave 100+.
  expect(switches).toBeLessThan(40);
});
