import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: [{ find: /^@slipcheck\/sdk$/, replacement: fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) }] },
  // Pure functions (no DOM, no client state): files share a worker without a fresh module graph each.
  test: { include: ['test/**/*.test.ts'], isolate: false },
});
