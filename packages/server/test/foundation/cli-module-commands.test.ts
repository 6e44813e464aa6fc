import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';

// Module commands (webhook, line, worker, transactions export) declare their deps and cli.ts binds them
// to the container (issue 25). A wrong sub-command is refused before anything is built (exit 2 even with a
// configuration that would not load); a right one goes through the runner, which loads the configuration.
describe('module CLI commands bound by cli.ts', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-cli-bind-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  // The folder's database, as an operator makes one (the other commands refuse to make it).
  beforeAll(async () => expect((await run(['migrate'], { NODE_ENV: 'test', DATA_DIR: dataDir })).code).toBe(0));
  const broken = { NODE_ENV: 'test', DATA_DIR: dataDir, RATE_LIMIT_PER_KEY: 'many' }; // does not load: 78
  const run = async (argv: string[], env: Record<string, string> = broken) => {
    const said: string[] = [];
    const code = await runCli(argv, { stdout: (s) => said.push(s), stderr: (s) => said.push(s) }, env);
    return { code, said: said.join('\n') };
  };

  it('refuses an unknown or missing sub-command with its usage before loading the configuration', async () => {
    for (const argv of [['webhook'], ['webhook', 'nope'], ['webhook', 'toString']]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.said).toMatch(/webhook add --shop ID --url URL/);
    }
    expect(await run(['line'])).toMatchObject({ code: 2, said: expect.stringMatching(/^slipcheck line: LINE official accounts/) });
    expect(await run(['line', 'constructor'])).toMatchObject({
      code: 2,
      said: expect.stringMatching(/^Unknown command "line constructor"/),
    });
    expect(await run(['worker', '--now'])).toMatchObject({ code: 2, said: expect.stringMatching(/^Usage:\n {2}worker/) });
  });

  it('runs a known sub-command through the runner: the configuration is loaded (78 when it is wrong)', async () => {
    for (const argv of [
      ['webhook', 'list', '--shop', 'shp_x'],
      ['line', 'list', '--shop', 'shp_x'],
      ['transactions', 'export', '--shop', 'shp_x'],
    ]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(78);
      expect(r.said).toMatch(/RATE_LIMIT_PER_KEY/);
    }
  });

  it('-h and --help print the usage and exit 0, alone or after a command (they said "Unknown command", exit 2)', async () => {
    for (const argv of [
      ['-h'],
      ['--help'],
      ['help'],
      ['shop', '--help'],
      ['shop', 'create', '-h'],
      ['webhook', '--help'],
      ['worker', '-h'],
    ]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(r.said, argv.join(' ')).toMatch(/^slipcheck: operator CLI/);
    }
    expect((await run([])).code).toBe(2); // no command at all is still a usage error
  });

  it('transactions export refuses a day that is not in the calendar: usage error (exit 2) naming the option', async () => {
    const env = { NODE_ENV: 'test', DATA_DIR: dataDir };
    const base = ['transactions', 'export', '--shop', 'shp_x', '--format', 'csv'];
    for (const [option, value] of [
      ['--from', '2026-13-01'], // exported 0 rows, exit 0
      ['--to', '2026-11-31'], // was read as 1 December
      ['--to', '2026-02-29'],
      ['--from', '2026-04-31T10:00:00+07:00'],
      ['--from', '2026-00-10'],
    ]) {
      const r = await run([...base, option, value], env);
      expect(r.code, `${option} ${value}`).toBe(2);
      expect(r.said).toContain(`${option} ${value}: no such day in the calendar`);
    }
  });

  it('a configuration error names the variable but masks the password of a URL, for every command', async () => {
    const env = { NODE_ENV: 'test', DATA_DIR: dataDir, SMTP_URL: 'smtps://user:s3cretPW@smtp.example.com:99999' };
    for (const argv of [['plan', 'list'], ['webhook', 'list', '--shop', 'shp_x'], ['checker', 'check'], ['worker']]) {
      const r = await run(argv, env);
      expect(r.code, argv.join(' ')).toBe(78);
      expect(r.said).toContain('SMTP_URL="smtps://user:***@smtp.example.com:99999"');
      expect(r.said).not.toContain('s3cretPW');
    }
  });

  it('gives a command the deps it declares: a usage error inside the command is exit 2 with its usage', async () => {
    const r = await run(['transactions', 'export', '--shop', 'shp_x', '--format', 'pdf'], { NODE_ENV: 'test', DATA_DIR: dataDir });
    expect(r.code).toBe(2);
    expect(r.said).toMatch(/--format must be csv or xlsx/);
    expect(r.said).toMatch(/transactions export --shop ID --format csv\|xlsx/);
  });
});
