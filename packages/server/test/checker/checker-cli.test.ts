// `slipcheck checker check` against fake providers on loopback: per provider reachable, credentials
// accepted, quota left, overage; and never a slip check.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { startFakeUpstream, type FakeUpstream, type Reply, type SeenRequest } from './fake-upstream.js';
import {
  EASYSLIP_KEY,
  SLIPOK_BRANCH_PATH,
  SLIPOK_KEY,
  easySlipError,
  easySlipInfo,
  slipOkError,
  slipOkQuota,
} from './provider-fixtures.js';

let slipok: FakeUpstream;
let easyslip: FakeUpstream;
let slipokReply: (r: SeenRequest) => Reply;
let easyslipReply: (r: SeenRequest) => Reply;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-checker-cli-'));
beforeAll(async () => {
  slipok = await startFakeUpstream((r) => slipokReply(r));
  easyslip = await startFakeUpstream((r) => easyslipReply(r));
});
afterAll(async () => {
  await slipok.close();
  await easyslip.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function run(extra: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    ['checker', 'check'],
    { stdout: (s) => out.push(s), stderr: (s) => err.push(s) },
    {
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      CHECKER: 'slipok,easyslip',
      CHECKER_URL: `${slipok.url}${SLIPOK_BRANCH_PATH},${easyslip.url}`,
      CHECKER_KEY: `${SLIPOK_KEY},${EASYSLIP_KEY}`,
      CHECKER_TIMEOUT_MS: '2000',
      ...extra,
    },
  );
  return { code, json: out.length ? JSON.parse(out.join('\n')) : null, err: err.join('\n') };
}

describe('slipcheck checker check', () => {
  it('prints each provider account: reachable, credentials accepted, quota left, overage', async () => {
    slipokReply = () => slipOkQuota(120, 3);
    easyslipReply = () => ({ status: 200, body: easySlipInfo(4200) });
    const r = await run({ CHECKER_MAX_OVERAGE: '50' });
    expect(r.code).toBe(0);
    expect(r.json.providers).toEqual([
      expect.objectContaining({
        upstream: 'slipok#0',
        reachable: true,
        credentialsAccepted: true,
        quotaRemaining: 120,
        overage: 3,
        overageCap: 50,
        problem: null,
      }),
      expect.objectContaining({
        upstream: 'easyslip#1',
        reachable: true,
        credentialsAccepted: true,
        quotaRemaining: 4200,
        overage: null,
        problem: null,
      }),
    ]);
    // the quota/account routes only, never a verify endpoint
    expect(slipok.requests.map((q) => `${q.method} ${q.url}`)).toEqual([`GET ${SLIPOK_BRANCH_PATH}/quota`]);
    expect(slipok.requests[0].headers['x-authorization']).toBe(SLIPOK_KEY);
    expect(easyslip.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /v2/info']);
    expect(easyslip.requests[0].headers.authorization).toBe(`Bearer ${EASYSLIP_KEY}`);
  });

  it('a refused key, an unreachable provider and a reached overage cap exit 1 and say which', async () => {
    slipokReply = () => slipOkError(1002);
    easyslipReply = () => easySlipError(403, 'IP_NOT_ALLOWED');
    const r = await run();
    expect(r.code).toBe(1);
    expect(r.json.providers[0]).toMatchObject({
      reachable: true,
      credentialsAccepted: false,
      problem: 'key_invalid',
      providerCode: '1002',
    });
    expect(r.json.providers[1]).toMatchObject({ reachable: true, problem: 'ip_not_allowed', providerCode: 'IP_NOT_ALLOWED' });

    slipokReply = () => slipOkQuota(0, 60);
    easyslipReply = () => ({ status: 200, body: easySlipInfo(10) });
    const capped = await run({ CHECKER_MAX_OVERAGE: '60', CHECKER_URL: `${slipok.url}${SLIPOK_BRANCH_PATH},http://127.0.0.1:9` });
    expect(capped.code).toBe(1);
    expect(capped.json.providers[0]).toMatchObject({ overage: 60, problem: 'overage_cap' });
    expect(capped.json.providers[1]).toMatchObject({ reachable: false });
  });

  it('the sandbox has no account route, but an unreachable sandbox bank still exits 1', async () => {
    // Nothing listens on port 9: before, this printed "no account route: not checked" and exited 0.
    const down = await run({ CHECKER: 'sandbox', CHECKER_URL: 'http://127.0.0.1:9', CHECKER_KEY: '' });
    expect(down.code).toBe(1);
    expect(down.json.providers).toEqual([expect.objectContaining({ upstream: 'sandbox', accountRoute: false, reachable: false })]);

    const bank = await startFakeUpstream((q) => (q.url === '/health' ? { status: 200, body: { status: 'ok' } } : { status: 404 }));
    try {
      const up = await run({ CHECKER: 'sandbox', CHECKER_URL: bank.url, CHECKER_KEY: '' });
      expect(up.code).toBe(0);
      expect(up.json.providers).toEqual([expect.objectContaining({ upstream: 'sandbox', reachable: true })]);
      // its health route only, never a slip check
      expect(bank.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /health']);
    } finally {
      await bank.close();
    }
  });

  it('production refuses to run on the default (sandbox) checker: exit 78 naming CHECKER', async () => {
    const prod = { NODE_ENV: 'production', SECRET_KEY: 'x'.repeat(40), CHECKER: '', CHECKER_URL: '', CHECKER_KEY: '' };
    const r = await run(prod);
    expect(r.code).toBe(78);
    expect(r.err).toMatch(/CHECKER: required in production/);
  });

  it('a wrong URL is a configuration error (exit 78) that says what to write', async () => {
    const r = await run({ CHECKER_URL: 'https://api.slipok.com,https://api.easyslip.com/v2' });
    expect(r.code).toBe(78);
    expect(r.err).toMatch(/branch id/);
    expect(r.err).toMatch(/without a version/);
  });
});
