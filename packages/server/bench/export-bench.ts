// Export memory: 10,000 and 100,000 results exported as CSV and XLSX from an embedded SQLite store into
// a consumer slower than the writer (each chunk acknowledged on the next turn of the event loop, as a
// socket does). Constant memory means the 100,000-row figures are about the 10,000-row ones, not ten
// times them: the table prints each run's ratio to the 10,000-row run of the same format, same bench run.
//
// Each export runs in a fresh child process (`node --expose-gc`), so one run's freed-but-kept RSS does
// not hide the next one's growth, and module loading and JIT warm-up (a 100-row export of the same
// data) happen before the baseline. Sampled every 10 ms over that baseline:
//   - peak RSS: what the operating system sees;
//   - peak buffers: `external` (Buffers, zlib): where the XLSX backlog used to pile up;
//   - live heap: the JS heap right after a forced full GC, every 250 ms (max over the run). Peak
//     `heapUsed` without a GC mostly measures when V8 chose to collect, not what the export keeps.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { newId } from '../src/lib/ids.js';
import { writeExport } from '../src/modules/reports/reports-export.js';

const MB = 2 ** 20;
const SIZES = [10_000, 100_000] as const;
const FORMATS = ['csv', 'xlsx'] as const;

export interface ExportBenchRow {
  format: 'csv' | 'xlsx';
  rows: number;
  ms: number;
  bytes: number;
  rssMb: number;
  externalMb: number;
  liveHeapMb: number;
  waits: number;
  mode: Mode;
}

const configFor = (dir: string) =>
  loadConfig({ NODE_ENV: 'test', DATA_DIR: dir, LOG_LEVEL: 'silent', WORKER_MODE: 'off', SANDBOX_AUTOSTART: 'false' });

async function seed(c: Awaited<ReturnType<typeof createContainer>>, shopId: string, n: number) {
  const t0 = Date.parse('2026-11-01T00:00:00Z');
  for (let i = 0; i < n; i += 1000) {
    const rows = [];
    for (let j = i; j < Math.min(n, i + 1000); j++) {
      const created = new Date(t0 + j * 1000).toISOString();
      // A transfer has one SUCCESS across all shops (migration 0020): each seeded shop gets its own.
      const ref = `BENCH-${shopId}-${j}`;
      rows.push({
        id: newId('txn', t0 + j * 1000),
        shop_id: shopId,
        source: j % 3 ? 'API' : 'LINE',
        environment: 'live',
        status: j % 10 ? 'SUCCESS' : 'DUPLICATE',
        trans_ref: ref,
        amount_satang: 100 + ((j * 7919) % 5_000_000),
        expected_amount_satang: null,
        bank_code: '004',
        bank_name: 'KBANK',
        sender_name: 'นาย สมชาย ใจดี',
        sender_account: 'xxx-x-x1234-x',
        receiver_name: 'บจก. ร้านกาแฟ ทดสอบ',
        receiver_account: 'xxx-x-x6660-x',
        trans_date: created,
        error_code: null,
        error_message: null,
        duplicate: 0,
        stale: 0,
        charged: 1,
        latency_ms: 5,
        client_ref: `ORD-${j}`,
        image_hash: null,
        api_key_id: null,
        success_ref: j % 10 ? ref : null,
        anonymized_at: null,
        created_at: created,
      });
    }
    await c.db.insertInto('transactions').values(rows).execute();
  }
}

/** A consumer slower than the writer: each chunk is acknowledged on the next turn of the event loop. */
function slowSink() {
  let bytes = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      setImmediate(cb);
    },
  });
  return { sink, bytes: () => bytes };
}

type Mode = 'gc' | 'lazy';
const GC_EVERY_PAGES = 10; // pages of 1,000 rows (transactions.iterate)
const WARM_UP_PAGES = 30;

/**
 * In the child: one export, measured over a baseline taken after a warm-up export. Mode `gc` runs a full
 * GC every 10,000 rows and records the heap that survives it; mode `lazy` leaves collection to V8.
 */
async function measureOne(dir: string, shopId: string, format: 'csv' | 'xlsx', mode: Mode): Promise<ExportBenchRow> {
  const maybeGc = global.gc;
  if (!maybeGc) throw new Error('run with --expose-gc');
  const gc = maybeGc;
  const c = await createContainer(configFor(dir));
  try {
    const o = await c.reports.prepareExport(shopId, {}, format, 'th', 'bench');
    // Warm-up: loads exceljs / csv-stringify, compiles the row path and lets V8 grow its young generation
    // to the size a busy process keeps (16 MiB semi-spaces here), as in a server that has exported
    // before: 30,000 rows (the first page 30 times). Without it, the young generation's growth during
    // the first tens of thousands of rows shows up as RSS of the bigger export.
    const first = c.transactions.iterate(shopId, {});
    const page = await first.next();
    await first.return(undefined);
    await writeExport(
      (async function* () {
        for (let i = 0; i < WARM_UP_PAGES && !page.done; i++) yield page.value;
      })(),
      slowSink().sink,
      o,
    );

    gc();
    const base = process.memoryUsage();
    const peak = { rss: base.rss, external: base.external, live: base.heapUsed };
    const sample = () => {
      const m = process.memoryUsage();
      peak.rss = Math.max(peak.rss, m.rss);
      peak.external = Math.max(peak.external, m.external);
    };
    const timer = setInterval(sample, 10);
    // The same pages the export of reports.writeExport reads (transactions.iterate, the list's filters).
    async function* pages() {
      let n = 0;
      for await (const p of c.transactions.iterate(shopId, {})) {
        yield p;
        if (mode === 'gc' && ++n % GC_EVERY_PAGES === 0) {
          sample();
          gc();
          peak.live = Math.max(peak.live, process.memoryUsage().heapUsed);
        }
      }
    }
    let waits = 0;
    const { sink, bytes } = slowSink();
    const t0 = performance.now();
    const rows = await writeExport(pages(), sink, { ...o, onWait: () => waits++ });
    const ms = performance.now() - t0;
    clearInterval(timer);
    sample();
    return {
      format,
      mode,
      rows,
      ms,
      bytes: bytes(),
      rssMb: (peak.rss - base.rss) / MB,
      externalMb: (peak.external - base.external) / MB,
      liveHeapMb: (peak.live - base.heapUsed) / MB,
      waits,
    };
  } finally {
    await c.close();
  }
}

function runChild(dir: string, shopId: string, format: 'csv' | 'xlsx', mode: Mode): Promise<ExportBenchRow> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', self, '--child', dir, shopId, format, mode], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`export bench child (${format}, ${mode}) exited ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as ExportBenchRow);
    });
  });
}

export async function runExportBench(): Promise<ExportBenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-export-bench-'));
  const shops: Array<{ n: number; id: string }> = [];
  try {
    const c = await createContainer(configFor(dir));
    try {
      for (const n of SIZES) {
        const shop = await c.shops.create({ name: `bench ${n}`, planCode: 'STARTER' }, 'bench');
        await seed(c, shop.id, n);
        shops.push({ n, id: shop.id });
      }
    } finally {
      await c.close();
    }
    const out: ExportBenchRow[] = [];
    for (const mode of ['gc', 'lazy'] as const)
      for (const { id } of shops) for (const format of FORMATS) out.push(await runChild(dir, id, format, mode));
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function formatExportBench(rows: ExportBenchRow[]): string {
  const gcRows = rows.filter((r) => r.mode === 'gc');
  const find = (format: string, n: number, mode: Mode) => rows.find((r) => r.format === format && r.rows === n && r.mode === mode);
  // Against the 10,000-row export: the difference, and the ratio when the baseline is big enough for one to mean something.
  const ratio = (v: number, b: number | undefined) =>
    b === undefined ? '' : ` (${v - b >= 0 ? '+' : ''}${(v - b).toFixed(1)}${b >= 1 ? `, ${(v / b).toFixed(2)}x` : ''})`;
  const mib = (v: number) => `${v.toFixed(1)} MiB`;
  const lines = [
    '| format | rows | time | rows/s | file | peak RSS over baseline | peak buffers (external) | live heap after GC | consumer waits | peak RSS, GC left to V8 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of gcRows) {
    const b = r.rows === SIZES[0] ? undefined : find(r.format, SIZES[0], 'gc');
    const lazy = find(r.format, r.rows, 'lazy');
    const lazyBase = r.rows === SIZES[0] ? undefined : find(r.format, SIZES[0], 'lazy');
    lines.push(
      [
        '',
        r.format,
        r.rows.toLocaleString('en'),
        `${(r.ms / 1000).toFixed(1)} s`,
        Math.round(r.rows / (r.ms / 1000)).toLocaleString('en'),
        mib(r.bytes / MB),
        mib(r.rssMb) + ratio(r.rssMb, b?.rssMb),
        mib(r.externalMb) + ratio(r.externalMb, b?.externalMb),
        mib(r.liveHeapMb) + ratio(r.liveHeapMb, b?.liveHeapMb),
        r.format === 'xlsx' ? r.waits.toLocaleString('en') : '—',
        lazy ? mib(lazy.rssMb) + ratio(lazy.rssMb, lazyBase?.rssMb) : '—',
        '',
      ]
        .join(' | ')
        .trim(),
    );
  }
  lines.push(
    '',
    `In brackets: the difference from the 10,000-row export of the same format in this bench run, and the ratio to it when that is at least 1 MiB. All columns but the last: a full GC every ${GC_EVERY_PAGES * 1000} rows; last column: the same export with collection left to V8.`,
  );
  return lines.join('\n');
}

if (process.argv[2] === '--child') {
  const [dir, shopId, format, mode] = process.argv.slice(3) as [string, string, 'csv' | 'xlsx', Mode];
  console.log(JSON.stringify(await measureOne(dir, shopId, format, mode)));
  process.exit(0);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatExportBench(await runExportBench()));
}
