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
    // Pure logic's unit tests sit beside the code (src/**); test/ holds the tests of the running
    // service (a real database, HTTP, processes, browsers).
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // The chaos soak saturates both cores with its own nodes: beside the browser tests it made their
    // 30 s steps time out. It runs alone (`npm run soak`; CI runs its 20 s version before `npm test`).
    exclude: process.env.SLIPCHECK_SOAK === '1' ? [] : ['test/soak/**'],
    testTimeout: 30_000,
    // expect.poll waits for what another process or a browser does (a LINE reply, a webhook, a page):
    // vitest's default of 1 s failed the chat simulator's replay step in a full run on three workers.
    // A poll that holds returns at once; only a failing one waits this long.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 60_000,
    pool: 'forks',
    // No fresh process per test file: each worker loads the service's modules once
    // (about 4 s per file before, most of the suite's wall time). Audited safe (issue 25):
    // - no vi.mock/vi.doMock, fake timers, vi.stubGlobal/stubEnv or globalThis writes in any test;
    // - no test writes process.env (harness.ts sets one flag only to print its warning once) or
    //   installs process-wide handlers; runCli/outbox-cli's SIGTERM waits are removed when they end;
    // - every harness, server and browser is closed in afterAll; decoder pools too, except the one
    //   per process the harnesses share (test/helpers/shared-decoders.ts: its decoders exit with it);
    // - module-level state in src is caches (Intl formatters, zxing/LINE SDK modules, CRC table, the
    //   OCR engine) and the process's metrics registry: tests that read a counter read it before and
    //   after (resilience-policies, rate-limit, redis-lost), gauges are set by the test's own nodes;
    // - the shared helpers' counters (dash-helpers, reports-helpers, fake-line-platform) only make
    //   names unique, which they stay when files share them.
    // A file that needs a process of its own would go to a project with `isolate: true`.
    isolate: false,
    globalSetup: ['test/helpers/pg-global-setup.ts'],
  },
});
