import { defineConfig } from 'vitest/config';

// One run over every package; each package keeps its own vitest.config.ts. Two workers: the
// machine has two cores and the integration tests each start real servers.
export default defineConfig({
  test: {
    projects: ['packages/sdk', 'packages/sandbox-bank', 'packages/sandbox-line', 'packages/web', 'packages/server'],
    maxWorkers: 2,
  },
});
