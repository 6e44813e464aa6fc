import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxBank } from '@slipcheck/sandbox-bank';
import { runCli } from '../../src/cli/cli.js';
import { createHarness } from '../helpers/harness.js';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/slipcheck.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-cli-'));
const baseEnv = () => ({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' });

type CliResult = { code: number; json: any; stderr: string }; // eslint-disable-line @typescript-eslint/no-explicit-any

async function cli(...args: string[]) {
  return cliWith({}, ...args);
}

/**
 * The commands run in this process through `runCli`, the function bin/slipcheck.js calls: the same
 * argument parsing, container, JSON on stdout and exit codes, without a 2-5 s tsx start per call.
 * What only the real process shows (the bin's wiring, its exit status) is `cliProcess`'s test below.
 */
async function cliWith(extraEnv: Record<string, string>, ...args: string[]): Promise<CliResult> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(
    args,
    { stdout: (s) => stdout.push(s + '\n'), stderr: (s) => stderr.push(s + '\n') },
    { ...baseEnv(), ...extraEnv },
  );
  return { code, json: code === 0 ? JSON.parse(stdout.join('')) : null, stderr: stderr.join('') };
}

/** The real `slipcheck` process (tsx in development). */
async function cliProcess(env: Record<string, string | undefined>, ...args: string[]): Promise<CliResult> {
  try {
    const r = await run(process.execPath, [BIN, ...args], { env });
    return { code: 0, json: JSON.parse(r.stdout), stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, json: null, stderr: err.stderr };
  }
}

describe('operator CLI end to end (same DATA_DIR as the service)', { timeout: 240_000 }, () => {
  // A new folder's database is made as an operator would: `migrate` first (the others refuse to make one).
  beforeAll(async () => expect((await cli('migrate')).code).toBe(0));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('a folder without a database is refused, not given a new empty one; migrate creates it', async () => {
    // Run from the wrong folder, the CLI made ./data with an empty database (and a new development secret)
    // and answered "shop not found" about shops that exist: the operator looked for a bug that was a path.
    const wrong = path.join(dataDir, 'elsewhere');
    const refused = await cliWith({ DATA_DIR: wrong }, 'plan', 'list');
    expect(refused.code).toBe(78);
    expect(refused.stderr).toContain(path.join(wrong, 'slipcheck.db'));
    expect(refused.stderr).toContain('slipcheck migrate');
    expect(fs.existsSync(wrong)).toBe(false);
    expect((await cliWith({ DATA_DIR: wrong }, 'migrate')).json).toEqual({ migrated: true });
    expect((await cliWith({ DATA_DIR: wrong }, 'plan', 'list')).json).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'STARTER' })]),
    );
  });

  it('provisions a shop from trial to a paid plan with payee and keys, all audited', async () => {
    const shop = (await cli('shop', 'create', '--name', 'ร้านข้าวมันไก่')).json;
    expect(shop).toMatchObject({ state: 'trial', planCode: 'TRIAL' });
    expect(Date.parse(shop.trialEndsAt) - Date.parse(shop.createdAt)).toBe(7 * 86_400_000);

    const refused = await cli('key', 'create', '--shop', shop.id, '--env', 'live');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('PLAN_API_ACCESS_REQUIRED');

    const trialQuota = (await cli('quota', 'show', '--shop', shop.id)).json;
    expect(trialQuota.quota).toMatchObject({ planCode: 'TRIAL', limit: 50 });

    expect((await cli('shop', 'set-plan', '--shop', shop.id, '--plan', 'GROWTH')).json).toMatchObject({
      planCode: 'GROWTH',
      state: 'active',
      trialEndsAt: null,
    });
    const payee = (
      await cli('payee', 'add', '--shop', shop.id, '--bank', '004', '--account', '123-4-56660-9', '--holder', 'นาย สมชาย ใจดี', '--primary')
    ).json;
    expect(payee).toMatchObject({ bankCode: '004', accountLast4: '6609', isPrimary: true, kind: 'BANK' });
    expect(JSON.stringify(payee)).not.toContain('1234566609');

    const key = (await cli('key', 'create', '--shop', shop.id, '--env', 'test', '--scopes', 'verify,read', '--name', 'POS')).json;
    expect(key.key).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(key).toMatchObject({ environment: 'test', scopes: ['verify', 'read'], name: 'POS', prefix: key.key.slice(0, 12) });
    const listed = (await cli('key', 'list', '--shop', shop.id)).json;
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(key.key);

    const rotated = (await cli('key', 'rotate', '--key-id', key.id)).json;
    expect(rotated.key).not.toBe(key.key);
    expect((await cli('key', 'revoke', '--key-id', rotated.id)).json.revokedAt).toBeTruthy();

    const adjusted = (await cli('quota', 'adjust', '--shop', shop.id, '--used', '12', '--test-used', '3')).json;
    expect(adjusted.quota).toMatchObject({ used: 12, limit: 2000 });
    expect(adjusted.testQuota).toMatchObject({ used: 3, limit: 200, remaining: 197 });

    const audit = (await cli('audit', 'list', '--shop', shop.id)).json.map((a: { action: string }) => a.action);
    for (const a of ['shop.create', 'plan.change', 'payee.add', 'api_key.create', 'api_key.rotate', 'api_key.revoke', 'quota.adjust'])
      expect(audit).toContain(a);
  }, 120_000);

  it('list commands answer NOT_FOUND (exit 1) for a shop that does not exist, like shop show, not []', async () => {
    // [] looked like "this shop has none", also when the CLI ran against the wrong DATA_DIR.
    for (const cmd of [
      ['payee', 'list'],
      ['key', 'list'],
      ['audit', 'list'],
      // The webhook lists answered [] and { items: [] } with exit 0 (the README's rule covers every list).
      ['webhook', 'list'],
      ['webhook', 'deliveries'],
    ]) {
      const r = await cli(...cmd, '--shop', 'shop_nonexistent');
      expect(r.code, cmd.join(' ')).toBe(1);
      expect(r.stderr, cmd.join(' ')).toMatch(/NOT_FOUND/);
    }
  });

  it('fails clearly: unknown command, missing flag, unknown shop, bad state, bad config', async () => {
    expect((await cli('frobnicate')).code).toBe(2);
    const missing = await cli('shop', 'create');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--name is required');
    const unknown = await cli('shop', 'show', '--shop', 'shop_nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/not found/i);
    expect((await cli('shop', 'create', '--name', 'x', '--plan', 'GOLD')).stderr).toContain('Unknown plan');
    // A page size out of range is said, not quietly clamped (the dashboard's route answers 400 for it).
    for (const [cmd, n, range] of [
      [['webhook', 'deliveries', '--shop', 'shop_nope'], '0', '1 to 100'],
      [['webhook', 'deliveries', '--shop', 'shop_nope'], '500', '1 to 100'],
      [['outbox', 'failed'], '0', '1 to 500'],
      [['mail', 'list'], '0', '1 to 500'],
    ] as const) {
      const r = await cli(...cmd, '--limit', n);
      expect(r.code, `${cmd.join(' ')} --limit ${n}`).toBe(2);
      expect(r.stderr).toContain(`--limit must be an integer from ${range}`);
    }
    const bad = await cliWith({ PORT: 'eighty' }, 'plan', 'list');
    expect(bad.code).toBe(78);
    expect(bad.stderr).toContain('PORT');
  }, 120_000);

  // `secrets reencrypt --dry-run` re-sealed every stored secret and `migrate --dry-run` migrated, exit 0:
  // the commands without options ignored whatever they were given, where every other command refuses an
  // unknown option (cli-args.ts). An operator's guess at an option must stop before anything changes.
  it('a command without options refuses one (exit 2) before it runs: secrets reencrypt, migrate, plan list', async () => {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-cli-noargs-'));
    try {
      const migrate = await cliWith({ DATA_DIR: fresh }, 'migrate', '--dry-run');
      expect(migrate.code).toBe(2);
      expect(migrate.stderr).toContain('--dry-run');
      // Nothing was made: the folder still has no database.
      expect(fs.readdirSync(fresh)).toEqual([]);
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
    for (const argv of [
      ['secrets', 'reencrypt', '--dry-run'],
      ['secrets', 'reencrypt', 'now'],
      ['plan', 'list', '--bogus'],
    ]) {
      const r = await cli(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toContain(argv[2]!);
    }
    expect((await cli('secrets', 'reencrypt')).code).toBe(0);
    expect((await cli('plan', 'list')).code).toBe(0);
  });

  // A state, environment or kind the help does not list reached the service: `shop set-state --state weird`
  // exited 1 (as a miss, not a wrong command line), `shop create --state past_due` made a shop in a state
  // the help does not offer, and `key create --env prod` answered a service error.
  it('a value the help does not list is a usage error naming the allowed ones (exit 2), and nothing is made', async () => {
    const shop = (await cli('shop', 'create', '--name', 'Listed values')).json as { id: string; state: string };
    for (const [argv, allowed] of [
      [['shop', 'set-state', '--shop', shop.id, '--state', 'weird'], 'trial, active, past_due, suspended'],
      [['shop', 'create', '--name', 'Overdue', '--state', 'past_due'], 'trial, active'],
      [['key', 'create', '--shop', shop.id, '--env', 'prod'], 'live, test'],
      [
        ['payee', 'add', '--shop', shop.id, '--bank', '004', '--account', '1234567890', '--holder', 'x', '--kind', 'bank'],
        'BANK, PROMPTPAY',
      ],
    ] as const) {
      const r = await cli(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toContain(allowed);
    }
    expect((await cli('shop', 'show', '--shop', shop.id)).json).toMatchObject({ state: shop.state, payeeAccounts: [] });
    expect((await cli('key', 'list', '--shop', shop.id)).json).toEqual([]);
    expect((await cli('shop', 'set-state', '--shop', shop.id, '--state', 'past_due')).json).toMatchObject({ state: 'past_due' });
  });

  // A value of two words not put in quotes (`--holder นาย สมชาย`, `--name ร้าน กาแฟ`) kept its first word and
  // dropped the rest without a word: a payee account or a shop saved under a cut name, exit 0.
  it('a word left over after the options (an unquoted value of two words) is refused, exit 2, and nothing is saved', async () => {
    const name = await cli('shop', 'create', '--name', 'ร้าน', 'กาแฟ');
    expect(name.code).toBe(2);
    expect(name.stderr).toContain('กาแฟ');
    const shop = (await cli('shop', 'create', '--name', 'ร้าน กาแฟ')).json as { id: string; name: string };
    expect(shop.name).toBe('ร้าน กาแฟ');
    const holder = await cli('payee', 'add', '--shop', shop.id, '--bank', '004', '--account', '1234566609', '--holder', 'นาย', 'สมชาย');
    expect(holder.code).toBe(2);
    expect(holder.stderr).toContain('สมชาย');
    expect((await cli('payee', 'list', '--shop', shop.id)).json).toEqual([]);
  });

  it('the slipcheck process itself: JSON on stdout with exit 0, usage errors exit 2, configuration errors exit 78', async () => {
    const [created, unknown, bad] = await Promise.all([
      cliProcess(baseEnv(), 'shop', 'create', '--name', 'ร้านจากคำสั่งจริง'),
      cliProcess(baseEnv(), 'frobnicate'),
      cliProcess({ ...process.env, DATA_DIR: dataDir, PORT: 'eighty' }, 'plan', 'list'),
    ]);
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ name: 'ร้านจากคำสั่งจริง', state: 'trial', planCode: 'TRIAL' });
    expect((await cli('shop', 'show', '--shop', created.json.id)).json).toMatchObject({ id: created.json.id });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command "frobnicate"');
    expect(bad.code).toBe(78);
    expect(bad.stderr).toContain('PORT');
  }, 120_000);

  it('demo: a shop, keys and a sandbox slip; the plain curl line it prints (stderr) succeeds when pasted into a shell', async () => {
    const bank = await createSandboxBank({ port: 0 });
    try {
      const out = path.join(dataDir, 'demo slip.png'); // a space: the file path must be quoted too
      const h = await createHarness('sqlite', { DATA_DIR: dataDir, CHECKER_URL: bank.url, DECODE_THREADS: '1' });
      try {
        const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
        const demo = await cliWith({ CHECKER_URL: bank.url, PUBLIC_URL: base }, 'demo', '--out', out);
        expect(demo.code).toBe(0);
        expect(demo.json).toMatchObject({
          shopId: expect.stringMatching(/^shop_/),
          liveKey: expect.stringMatching(/^sk_live_/),
          testKey: expect.stringMatching(/^sk_test_/),
          slipFile: out,
        });
        // The command is plain text on its own stderr line (JSON stays on stdout), URL in single quotes so zsh does not glob `?`.
        const line = demo.stderr
          .split('\n')
          .map((l) => l.trim())
          .find((l) => l.startsWith('curl '));
        expect(line).toBeDefined();
        expect(line).toContain(`'${base}/api/v1/verify?amount=120'`);
        expect(line).not.toContain('\\"');
        const pasted = await run('sh', ['-c', line!]);
        expect(JSON.parse(pasted.stdout).data).toMatchObject({ status: 'SUCCESS', transRef: demo.json.transRef, amount: 120 });
      } finally {
        await h.close();
      }
      const down = await cliWith({ CHECKER_URL: 'http://127.0.0.1:1' }, 'demo');
      expect(down.code).toBe(1);
      expect(down.stderr).toContain('npm start');
    } finally {
      await bank.close();
    }
  }, 120_000);
});
