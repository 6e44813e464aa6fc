import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './scripts/test-sequencer.js';

// One run over every package; each package keeps its own vitest.config.ts.
export default defineConfig({
  test: {
    projects: ['packages/sdk', 'packages/sandbox-bank', 'packages/sandbox-line', 'packages/web', 'packages/server'],
    // Three workers on the machine's two cores: with two, a third of the CPU sat idle while tests
    // waited on processes, browsers, leases and clocks (measured: 67 % busy). On the Intel host of
    // 2026-11-26 the whole run took 211-231 s on three against 261-277 s on two (docs/architecture.md).
    // The tests about time limits keep their own pools, the others get generous budgets
    // (test/helpers/shared-decoders.ts), and polls wait up to 15 s (packages/server/vitest.config.ts),
    // so the extra load does not decide results.
    maxWorkers: 3,
    // Longest first, from committed durations where vitest has none of its own (a fresh clone).
    sequence: { sequencer: LongestFirstSequencer },
  },
});
