// Export memory: 10,000 and 100,000 results exported as CSV and XLSX on an embedded SQLite store,
// sampling the process's heap and RSS while the file streams into a sink that only counts bytes.
// Constant memory means the 100,000-row peak is about the 10,000-row peak, not ten times it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { newId } from '../src/lib/ids.js';

const MB = 2 ** 20;

async function seed(c: Awaited<ReturnType<typeof createContainer>>, shopId: string, n: number) {
  const t0 = Date.parse('2026-11-01T00:00:00Z');
  for (let i = 0; i < n; i += 1000) {
    const rows = [];
    for (let j = i; j < Math.min(n, i + 1000); j++) {
      const created = new Date(t0 + j * 1000).toISOString();
      rows.push({
        id: newId('txn', t0 + j * 1000),
        shop_id: shopId,
        source: j % 3 ? 'API' : 'LINE',
        environment: 'live',
        status: j % 10 ? 'SUCCESS' : 'DUPLICATE',
        trans_ref: `BENCH${j}`,
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
        success_ref: j % 10 ? `BENCH${j}` : null,
        anonymized_at: null,
        created_at: created,
      });
    }
    await c.db.insertInto('transactions').values(rows).execute();
  }
}

async function measure(run: (sink: Writable) => Promise<number>) {
  global.gc?.();
  const base = process.memoryUsage();
  let peakHeap = base.heapUsed;
  let peakRss = base.rss;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 10);
  let bytes = 0;
  const sink = new Writable({
    write(chunk, _enc, cb) {
      bytes += chunk.length;
      setImmediate(cb);
    },
  });
  const t0 = performance.now();
  const rows = await run(sink);
  const ms = performance.now() - t0;
  clearInterval(timer);
  return { rows, ms, bytes, heapMb: (peakHeap - base.heapUsed) / MB, rssMb: (peakRss - base.rss) / MB };
}

export async function runExportBench() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-export-bench-'));
  const c = await createContainer(
    loadConfig({ NODE_ENV: 'test', DATA_DIR: dir, LOG_LEVEL: 'silent', WORKER_MODE: 'off', SANDBOX_AUTOSTART: 'false' }),
  );
  const out: Array<{ format: string; rows: number; ms: number; bytes: number; heapMb: number; rssMb: number }> = [];
  try {
    for (const n of [10_000, 100_000]) {
      const shop = await c.shops.create({ name: `bench ${n}`, planCode: 'STARTER' }, 'bench');
      await seed(c, shop.id, n);
      for (const format of ['csv', 'xlsx'] as const) {
        const o = await c.reports.prepareExport(shop.id, {}, format, 'th', 'bench');
        const r = await measure((sink) => c.reports.writeExport(shop.id, {}, o, sink));
        out.push({ format, ...r });
      }
    }
  } finally {
    await c.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

export function formatExportBench(rows: Awaited<ReturnType<typeof runExportBench>>): string {
  const lines = [
    '| format | rows | time | rows/s | file | peak heap over baseline | peak RSS over baseline |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.format} | ${r.rows.toLocaleString('en')} | ${(r.ms / 1000).toFixed(1)} s | ${Math.round(r.rows / (r.ms / 1000)).toLocaleString('en')} | ${(r.bytes / MB).toFixed(1)} MiB | ${r.heapMb.toFixed(1)} MiB | ${r.rssMb.toFixed(1)} MiB |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(formatExportBench(await runExportBench()));
