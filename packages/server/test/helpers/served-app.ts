// The whole service as the browser tests meet it: the dashboard built, a real container on a fresh
// SQLite file, HTTP on a loopback port and the outbox worker running (webhooks, mail, LINE).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { createContainer, type Container } from '../../src/container.js';
import { buildApp } from '../../src/http/app.js';
import { sharedDecoderPool } from './shared-decoders.js';

export const REPO = path.resolve(import.meta.dirname, '../../../..');

/** Builds packages/web once when its dist lacks `file` (index.html, miniapp.html). */
export function ensureWebBuilt(file = 'index.html'): void {
  if (fs.existsSync(path.join(REPO, 'packages/web/dist', file))) return;
  const r = spawnSync('npm', ['run', 'build', '-w', 'packages/web'], { cwd: REPO, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('building packages/web failed');
}

export interface ServedApp {
  c: Container;
  app: FastifyInstance;
  base: string;
  dataDir: string;
}

/** Starts the service against `checkerUrl` (the sandbox bank); `env` adds or overrides settings. */
export async function startServedApp(
  checkerUrl: string,
  env: Record<string, string> = {},
  opts: { prefix?: string; worker?: boolean } = {},
): Promise<ServedApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), opts.prefix ?? 'slipcheck-e2e-'));
  const c = await createContainer(
    loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      CHECKER: 'sandbox',
      CHECKER_URL: checkerUrl,
      SANDBOX_AUTOSTART: 'false',
      WORKER_MODE: 'inline',
      WORKER_POLL_MS: '100',
      // The printed-amount read costs CPU on every slip; browser tests that are about edited slips turn
      // it on themselves (as the harness does), the others keep both cores for the browser.
      SLIP_EDIT_MODE: 'off',
      // One session taps through every screen in both languages faster than a person (each screen is a
      // few requests): past the 120 a minute of RATE_LIMIT_DASHBOARD, the screens showed "too many
      // requests" once the suite ran quickly. The limit itself is tested in test/dashboard/dashboard-routes.test.ts.
      RATE_LIMIT_DASHBOARD: '100000',
      ...env,
    }),
    { sharedDecoderPool },
  );
  const app = await buildApp(c, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  c.startDecoders(); // as main.ts does once the service listens
  if (opts.worker !== false) c.worker.start();
  return { c, app, base, dataDir };
}

/**
 * Teardown of a browser test: closes each thing in order (browser context, browser, app, container,
 * fakes), going on when one fails, then removes the data directory.
 */
export async function closeInOrder(things: Array<{ close(): Promise<unknown> } | undefined>, dataDir?: string): Promise<void> {
  for (const thing of things) await thing?.close().catch(() => undefined);
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
}
