// A `sandbox` CHECKER entry without a CHECKER_URL means the development sandbox bank on
// 127.0.0.1:SANDBOX_PORT (README, CHECKER_URL), read as CHECKER is read everywhere: any case and
// spacing, alone or in a failover list. The service and `checker check` filled that default only for
// CHECKER exactly "sandbox": `CHECKER=Sandbox` or `easyslip,sandbox` passed the configuration check
// and then stopped the start with a stack trace ("CHECKER_URL for CHECKER entry 1 (sandbox): required").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { EASYSLIP_KEY, easySlipInfo } from './provider-fixtures.js';

let bank: FakeUpstream;
let easyslip: FakeUpstream;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-sandbox-default-'));
beforeAll(async () => {
  bank = await startFakeUpstream(() => ({ status: 200, body: { status: 'ok' } }));
  easyslip = await startFakeUpstream(() => ({ status: 200, body: easySlipInfo(100) }));
});
afterAll(async () => {
  await bank.close();
  await easyslip.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const env = (extra: Record<string, string>) => ({
  NODE_ENV: 'test',
  DATA_DIR: dataDir,
  SANDBOX_PORT: new URL(bank.url).port,
  SANDBOX_AUTOSTART: 'false',
  WORKER_MODE: 'off',
  LOG_LEVEL: 'silent',
  CHECKER_QUOTA_POLL_MS: '0',
  ...extra,
});

// (the easyslip stand-in listens only once the tests run, hence functions)
const cases: [string, () => Record<string, string>, string][] = [
  ['CHECKER=" Sandbox"', () => ({ CHECKER: ' Sandbox' }), 'sandbox'],
  [
    'CHECKER=easyslip,sandbox (a URL for the first entry, none for the sandbox)',
    () => ({ CHECKER: 'easyslip,sandbox', CHECKER_URL: `${easyslip.url},`, CHECKER_KEY: `${EASYSLIP_KEY},` }),
    'sandbox#1',
  ],
];

describe('a sandbox CHECKER entry without a URL is the sandbox bank on SANDBOX_PORT', () => {
  it.each(cases)('%s: checker check reaches it', async (_label, extra, upstream) => {
    const before = bank.requests.length;
    const err: string[] = [];
    const out: string[] = [];
    const code = await runCli(['checker', 'check'], { stdout: (s) => out.push(s), stderr: (s) => err.push(s) }, env(extra()));
    expect(code, err.join('\n')).toBe(0);
    expect(JSON.parse(out.join('\n')).providers).toContainEqual(expect.objectContaining({ upstream, reachable: true }));
    expect(bank.requests.slice(before).map((r) => `${r.method} ${r.url}`)).toEqual(['GET /health']);
  });

  it.each(cases)('%s: the service starts with it', async (_label, extra, upstream) => {
    const c = await createContainer(loadConfig(env(extra())));
    try {
      const polled = await c.configuredChecker!.pollAccounts(undefined, { probe: true });
      expect(polled.find((p) => p.upstream === upstream)?.reach).toEqual({ reachable: true });
    } finally {
      await c.close();
    }
  });
});
