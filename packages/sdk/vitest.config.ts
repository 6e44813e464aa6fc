import { defineConfig } from 'vitest/config';

// Its own config so `npm test -w packages/sdk` runs alone (without it vitest found the root
// workspace config and resolved its project paths from here).
export default defineConfig({
  test: {
    name: 'sdk',
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    // Pure functions and servers each test starts and closes: no module state to reset between files.
    isolate: false,
  },
});
