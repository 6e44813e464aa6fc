import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'sandbox-bank',
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    pool: 'forks',
    // Pure functions and servers each test starts and closes: no module state to reset between files.
    isolate: false,
  },
});
