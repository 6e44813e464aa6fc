import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { runCli } from '../../src/cli/cli.js';
import { createHarness, DB_KINDS, type DbKind, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { bkk, insertTx } from './reports-helpers.js';

for (const kind of DB_KINDS)
  describe.skipIf(pgMissing(kind))(`slipcheck transactions export (${kind})${skipNote(kind)}`, () => suite(kind));

/** The suite of one database kind (declared per kind above; hoisted). */
function suite(kind: DbKind) {
  let h: Harness;
  let shopId: string;
  beforeAll(async () => {
    h = await createHarness(kind);
    shopId = (await seedShop(h)).shop.id;
    await insertTx(h, shopId, [
      { createdAt: bkk('2026-11-10T23:59:00'), amountSatang: 10_00, clientRef: 'A-1' },
      { createdAt: bkk('2026-11-11T00:01:00'), amountSatang: 20_25, clientRef: 'A-2', senderName: 'นาย ทดสอบ ไทย' },
      { createdAt: bkk('2026-11-12T00:00:00'), amountSatang: 30_00, clientRef: 'A-3' },
    ]);
  });
  afterAll(async () => {
    await h?.close();
  });

  async function cli(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const env = {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATA_DIR: h.dataDir,
      DATABASE_URL: h.config.DATABASE_URL ?? '',
      WORKER_MODE: 'off',
      SANDBOX_AUTOSTART: 'false',
      REDIS_URL: '',
    };
    const code = await runCli(argv, { stdout: (s) => out.push(s), stderr: (s) => err.push(s) }, env);
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('writes the day range (Bangkok days, --to inclusive) as CSV and XLSX, audited as operator:cli', async () => {
    const file = path.join(h.dataDir, 'day.csv');
    const r = await cli(
      'transactions',
      'export',
      '--shop',
      shopId,
      '--from',
      '2026-11-11',
      '--to',
      '2026-11-11',
      '--format',
      'csv',
      '--out',
      file,
    );
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.err)).toEqual({ exported: 1, format: 'csv', file });
    const rows = parse(fs.readFileSync(file), { bom: true, columns: true }) as Array<Record<string, string>>;
    expect(rows).toEqual([expect.objectContaining({ 'เลขออเดอร์ (clientRef)': 'A-2', 'จำนวนเงิน (บาท)': '20.25', ชื่อผู้โอน: 'นาย ทดสอบ ไทย' })]);

    const xfile = path.join(h.dataDir, 'all.xlsx');
    const x = await cli(
      'transactions',
      'export',
      '--shop',
      shopId,
      '--from',
      '2026-11-10',
      '--to',
      '2026-11-12',
      '--format',
      'xlsx',
      '--lang',
      'en',
      '--out',
      xfile,
    );
    expect(x.code, x.err).toBe(0);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(xfile);
    const ws = wb.worksheets[0];
    expect(ws.rowCount).toBe(4);
    expect([2, 3, 4].map((i) => ws.getRow(i).getCell(4).value)).toEqual([30, 20.25, 10]);
    const audit = (await h.c.audit.list(shopId)).filter((a) => a.action === 'transactions.export');
    expect(audit.map((a) => a.actor)).toEqual(['operator:cli', 'operator:cli']);
  });

  it('refuses bad arguments and unknown shops without writing a file', async () => {
    const file = path.join(h.dataDir, 'never.csv');
    expect((await cli('transactions', 'export', '--shop', shopId, '--format', 'pdf', '--out', file)).code).toBe(2);
    expect((await cli('transactions', 'export', '--shop', shopId, '--format', 'csv', '--from', 'yesterday', '--out', file)).code).toBe(2);
    expect((await cli('transactions', 'export', '--format', 'csv', '--out', file)).code).toBe(2);
    const range = await cli(
      'transactions',
      'export',
      '--shop',
      shopId,
      '--format',
      'csv',
      '--from',
      '2026-11-12',
      '--to',
      '2026-11-10',
      '--out',
      file,
    );
    expect(range.code).toBe(1);
    expect(range.err).toContain('INVALID_RANGE');
    const missing = await cli('transactions', 'export', '--shop', 'shop_nope', '--format', 'csv', '--out', file);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('NOT_FOUND');
    expect(fs.existsSync(file)).toBe(false);
  });

  // A misspelt filter (`--status success`, `--source FAX`) matched no record and exited 0 with an empty
  // file, which reads as "nothing to export"; the dashboard's export route refuses the same values.
  it('refuses a status, source or environment no record can have, naming the flag, without writing a file', async () => {
    const file = path.join(h.dataDir, 'misspelt.csv');
    const run = (...flag: string[]) => cli('transactions', 'export', '--shop', shopId, '--format', 'csv', '--out', file, ...flag);
    for (const [flag, value] of [
      ['--status', 'success'],
      ['--status', 'SUCCESS,BOGUS'],
      ['--status', 'SUCCESS,'],
      ['--source', 'FAX'],
      ['--source', 'api'],
      ['--environment', 'prod'],
    ]) {
      const r = await run(flag, value);
      expect(r.code, `${flag} ${value}`).toBe(2);
      expect(r.err, `${flag} ${value}`).toContain(flag);
      expect(fs.existsSync(file), `${flag} ${value}`).toBe(false);
    }
    const ok = await run('--status', 'SUCCESS,DUPLICATE', '--source', 'API,LINE,DASHBOARD', '--environment', 'live');
    expect(ok.code, ok.err).toBe(0);
    expect(JSON.parse(ok.err)).toEqual({ exported: 3, format: 'csv', file });
  });
}

// The real process writing to a pipe, as `slipcheck transactions export ... > file` and `| head` do:
// an XLSX export to stdout exited 13 (its promise waited for stdout to close, which it never does),
// and a reader that stopped early made the export fail with "write EPIPE".
describe('slipcheck transactions export to stdout (real process, SQLite)', () => {
  const BIN = path.resolve(import.meta.dirname, '../../bin/slipcheck.js');
  let h: Harness;
  let shopId: string;
  beforeAll(async () => {
    h = await createHarness('sqlite');
    shopId = (await seedShop(h)).shop.id;
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      createdAt: new Date(Date.parse('2026-11-11T03:00:00Z') + i * 1000).toISOString(),
      amountSatang: 100 + i,
      clientRef: `ORDER-${i}`,
    }));
    await insertTx(h, shopId, rows);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Runs the CLI with stdout on a pipe; `stopAfter` bytes read, the reader closes its end (like `head -c`). */
  function exportTo(format: 'csv' | 'xlsx', stopAfter?: number): Promise<{ code: number | null; out: Buffer; err: string }> {
    const env = { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: h.dataDir, DATABASE_URL: '', REDIS_URL: '' };
    const child = spawn(process.execPath, [BIN, 'transactions', 'export', '--shop', shopId, '--format', format], { env });
    const chunks: Buffer[] = [];
    let err = '';
    let got = 0;
    child.stdout.on('data', (d: Buffer) => {
      chunks.push(d);
      got += d.length;
      if (stopAfter !== undefined && got >= stopAfter) child.stdout.destroy();
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, out: Buffer.concat(chunks), err })));
  }

  it('an XLSX export to stdout ends with exit 0 and the whole workbook', async () => {
    const r = await exportTo('xlsx');
    expect(r.code, r.err).toBe(0);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(r.out as unknown as ArrayBuffer);
    expect(wb.worksheets[0]!.rowCount).toBe(3001);
    expect(JSON.parse(r.err.trim().split('\n').at(-1)!)).toMatchObject({ exported: 3000, format: 'xlsx' });
  }, 60_000);

  it('a reader that stops early (| head) ends the export quietly with exit 0', async () => {
    for (const format of ['csv', 'xlsx'] as const) {
      const r = await exportTo(format, 1);
      expect(r.code, `${format}: ${r.err}`).toBe(0);
      expect(r.err, format).not.toMatch(/Failed|EPIPE/);
    }
  }, 60_000);
});
