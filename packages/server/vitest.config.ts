import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The SDK from source (its package exports point at the built dist/ for consumers outside).
const sdkSrc = (file: string) => fileURLToPath(new URL(`../sdk/src/${file}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@slipcheck\/sdk$/, replacement: sdkSrc('index.ts') },
      { find: /^@slipcheck\/sdk\/webhook-signature$/, replacement: sdkSrc('webhook-signature.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/helpers/pg-global-setup.ts'],
    setupFiles: ['test/helpers/pg-skip-setup.ts'],
  },
});
