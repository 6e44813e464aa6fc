import { defineConfig } from 'vitest/config';

// One run over every package; each package keeps its own vitest.config.ts.
export default defineConfig({
  test: {
    projects: ['packages/sdk', 'packages/sandbox-bank', 'packages/server'],
  },
});
