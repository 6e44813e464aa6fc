import { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { writeExport, type ExportOptions } from '../../src/modules/reports/reports-export.js';
import type { TransactionRecord } from '../../src/modules/transactions/transaction-record.js';

const PAGE = 1000;
const OPTIONS: ExportOptions = { format: 'xlsx', lang: 'en', timeZone: 'Asia/Bangkok', anonymizeBefore: null };

function record(j: number): TransactionRecord {
  const at = new Date(Date.parse('2026-11-01T00:00:00Z') + j * 1000).toISOString();
  return {
    id: `txn_${String(j).padStart(20, '0')}`,
    status: j % 10 ? 'SUCCESS' : 'DUPLICATE',
    verified: j % 10 !== 0,
    transRef: `REF${j}`,
    amount: (100 + ((j * 7919) % 5_000_000)) / 100,
    bankCode: '004',
    bankName: 'KBANK',
    senderName: 'นาย สมชาย ใจดี',
    senderAccount: 'xxx-x-x1234-x',
    receiverName: 'บจก. ร้านกาแฟ ทดสอบ',
    receiverAccount: 'xxx-x-x6660-x',
    transDate: at,
    errorCode: null,
    errorMessage: null,
    createdAt: at,
    duplicate: j % 10 === 0,
    cached: false,
    latencyMs: 5,
    environment: 'live',
    source: 'API',
    clientRef: `ORD-${j}`,
    stale: false,
    printedAmount: null,
    edited: false,
  };
}

/** Pages served from memory: no I/O between them, so only backpressure can make the producer wait. */
async function* pages(count: number, onLast: () => void) {
  for (let p = 0; p < count; p++) {
    yield Array.from({ length: PAGE }, (_, i) => record(p * PAGE + i));
    if (p === count - 1) onLast();
  }
}

/**
 * A consumer that takes nothing until told: write callbacks are held (as a socket whose peer does not
 * read) and handed back by release().
 */
function stalledSink() {
  const chunks: Buffer[] = [];
  const held: Array<() => void> = [];
  let open = false;
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk);
      if (open) cb();
      else held.push(() => cb());
    },
  });
  return {
    sink,
    chunks,
    release: () => held.splice(0).forEach((cb) => cb()),
    openUp() {
      open = true;
      held.splice(0).forEach((cb) => cb());
    },
  };
}

describe('XLSX export backpressure', () => {
  it('a consumer slower than the writer holds the producer back: never a page of rows ahead, and the file is complete', async () => {
    // exceljs's own part streams accepted every row whatever the zip and the consumer had taken
    // (74 MiB held at 100,000 rows, docs/benchmarks.md). Here the consumer takes data only while the
    // producer waits for it, so the rows written between two waits are what the producer runs ahead.
    const out = stalledSink();
    const waits: number[] = [];
    const rows = await writeExport(
      pages(4, () => out.openUp()),
      out.sink,
      {
        ...OPTIONS,
        onWait: (n) => {
          waits.push(n);
          out.release();
        },
      },
    );
    expect(rows).toBe(4 * PAGE);
    const gaps = [...waits, rows].map((n, i) => n - (i ? waits[i - 1]! : 0));
    expect(Math.max(...gaps), 'rows written without waiting for the consumer').toBeLessThan(PAGE);

    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.concat(out.chunks) as unknown as ArrayBuffer);
    const ws = wb.worksheets[0]!;
    expect(ws.rowCount).toBe(rows + 1);
    expect(ws.getRow(rows + 1).getCell(5).value).toBe(`ORD-${rows - 1}`);
    expect(ws.getRow(2).getCell(4).value).toBe(1);
  });

  it('a consumer that goes away (client disconnected) ends the export with an error instead of waiting forever', async () => {
    const out = stalledSink();
    let pulled = 0;
    async function* counted() {
      for await (const p of pages(50, () => undefined)) {
        pulled++;
        yield p;
      }
    }
    await expect(
      writeExport(counted(), out.sink, {
        ...OPTIONS,
        onWait: () => {
          if (!out.sink.destroyed) out.sink.destroy();
        },
      }),
    ).rejects.toThrow();
    expect(pulled).toBeLessThan(50);
  });
});

describe('a large export shares the event loop', () => {
  // The service runs every shop's checks on one event loop. A CSV export of 50,000 records ran as one
  // unbroken stretch of microtasks (pages from SQLite and a socket that keeps up never made it wait):
  // /health answered after 5.7 s, and every other request of every shop waited with it.
  for (const format of ['csv', 'xlsx'] as const) {
    it(`${format}: timers run while 20,000 rows are written into a consumer that keeps up`, async () => {
      let last = performance.now();
      let maxGap = 0;
      let ticks = 0;
      const timer = setInterval(() => {
        const now = performance.now();
        maxGap = Math.max(maxGap, now - last);
        last = now;
        ticks++;
      }, 2);
      const started = performance.now();
      const sink = new Writable({
        write(_chunk, _enc, cb) {
          cb();
        },
      });
      const rows = await writeExport(
        pages(20, () => undefined),
        sink,
        { ...OPTIONS, format },
      );
      clearInterval(timer);
      const total = performance.now() - started;
      maxGap = Math.max(maxGap, performance.now() - last);
      expect(rows).toBe(20 * PAGE);
      // Gaps of a few hundred rows' work, not the whole export (old CSV: one gap as long as the export).
      expect(ticks, `timer ticks during a ${Math.round(total)} ms export`).toBeGreaterThan(10);
      expect(maxGap, `longest stretch without a timer, of ${Math.round(total)} ms`).toBeLessThan(total / 4);
    });
  }
});
