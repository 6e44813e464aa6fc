import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'sandbox-line',
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    pool: 'forks',
  },
});
