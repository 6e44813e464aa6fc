import { once } from 'node:events';
import { finished, PassThrough, Readable, Transform, type TransformCallback, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { bankWord, environmentWord, resultWord, sourceWord, STALE_WORD, THAI_BANKS } from '@slipcheck/sdk';
import type { TransactionRecord } from '../transactions/transaction-record.js';
import { localDateTime, wallClockDate } from './reports-time.js';
import { isoWithOffset } from '../../lib/period.js';
import { formatSatang, satangFromAmount } from '../../lib/money.js';

/** The record's amount as plain digits and a dot, from its satang (no float arithmetic). */
function exportAmount(amount: number | null): string {
  const satang = amount === null ? null : satangFromAmount(amount);
  return satang === null ? '' : formatSatang(satang, false);
}

export type ExportFormat = 'csv' | 'xlsx';
export type ExportLang = 'th' | 'en';

export const EXPORT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Characters a column needs for `text`: Thai vowel and tone marks sit above or below a letter and take no room. */
const visibleLength = (text: string) => text.replace(/\p{M}/gu, '').length;
/** The bank column fits the longest bank name in either language (the Thai names are long: SME Development Bank). */
const BANK_WIDTH = Math.max(...THAI_BANKS.map((b) => Math.max(visibleLength(b.nameTh), visibleLength(b.nameEn)))) + 2;

/**
 * A record as exported: the public record plus the two reconciliation columns. `creditedAmount` is the
 * amount on the one row that carries its transfer's money in the received figures (live, received, the
 * transfer's last word), else null: summed, it is the money card's received, and a transfer checked twice
 * (a corrected mismatch, a duplicate) is credited once, as on the bank statement. `shopAccount` names the
 * payee account the receiver check matched, as the card's "by account" rows do.
 */
export type ExportRecord = TransactionRecord & { creditedAmount?: number | null; shopAccount?: string | null };

/** Column order and headers of both formats. Thai first; English on the English switch. */
export const EXPORT_COLUMNS = [
  { key: 'createdAt', th: 'วันเวลาที่ตรวจ', en: 'Checked at', width: 20 },
  { key: 'status', th: 'ผลตรวจ', en: 'Result', width: 18 },
  { key: 'statusLabel', th: 'ผลตรวจ (คำอธิบาย)', en: 'Result (meaning)', width: 28 },
  { key: 'amount', th: 'จำนวนเงิน (บาท)', en: 'Amount (THB)', width: 16 },
  { key: 'clientRef', th: 'เลขออเดอร์ (clientRef)', en: 'Order ref (clientRef)', width: 22 },
  { key: 'transRef', th: 'เลขอ้างอิงธนาคาร', en: 'Bank reference', width: 26 },
  { key: 'transDate', th: 'วันเวลาโอน', en: 'Transfer time', width: 20 },
  { key: 'bankName', th: 'ธนาคารผู้โอน', en: 'Sender bank', width: BANK_WIDTH },
  { key: 'senderName', th: 'ชื่อผู้โอน', en: 'Sender name', width: 24 },
  { key: 'senderAccount', th: 'บัญชีผู้โอน', en: 'Sender account', width: 18 },
  { key: 'receiverName', th: 'ชื่อผู้รับ', en: 'Receiver name', width: 24 },
  { key: 'receiverAccount', th: 'บัญชีผู้รับ', en: 'Receiver account', width: 18 },
  { key: 'source', th: 'ช่องทาง', en: 'Channel', width: 12 },
  { key: 'environment', th: 'โหมด', en: 'Mode', width: 12 },
  { key: 'stale', th: STALE_WORD.th, en: STALE_WORD.en, width: 10 },
  { key: 'id', th: 'รหัสรายการ', en: 'Record id', width: 30 },
  // Last, so the columns before keep their places in sheets and macros made from earlier files.
  { key: 'creditedAmount', th: 'ยอดเข้าบัญชีร้าน (บาท)', en: 'Credited to the shop (THB)', width: 16 },
  { key: 'shopAccount', th: 'บัญชีร้านที่รับเงิน', en: 'Shop account credited', width: 34 },
] as const;

/** `+07:00` for Asia/Bangkok: the zone's offset now (Thailand keeps no daylight saving time). */
const offsetLabel = (timeZone: string) => isoWithOffset(new Date(), timeZone).slice(23);

/**
 * A column's header. The two time columns say their zone (a cell or a CSV field has none of its own): an
 * accountant holding them against a statement or another system must not have to guess UTC or Bangkok.
 */
export function exportHeader(c: (typeof EXPORT_COLUMNS)[number], lang: ExportLang, timeZone: string): string {
  if (c.key !== 'createdAt' && c.key !== 'transDate') return c[lang];
  return `${c[lang]} (${lang === 'th' ? 'เวลาไทย ' : ''}UTC${offsetLabel(timeZone)})`;
}

/** The words of a row: the one vocabulary (SDK words.ts) the screen, LINE and e-mails use too. */
function wordsOf(r: TransactionRecord, lang: ExportLang) {
  return {
    statusLabel: resultWord(r, lang),
    stale: r.stale ? STALE_WORD[lang] : '',
    bankName: bankWord(r.bankCode, lang, r.bankName),
    source: sourceWord(r.source, lang),
    environment: environmentWord(r.environment, lang),
  };
}

export interface ExportOptions {
  format: ExportFormat;
  lang: ExportLang;
  timeZone: string;
  /** PDPA auto-delete cutoff (housekeeping anonymizeCutoff): older rows leave with personal fields blank. */
  anonymizeBefore: Date | null;
  /** XLSX: called with the rows written so far each time the writer waits for the consumer (tests, bench). */
  onWait?: (rows: number) => void;
}

/** The personal fields the anonymisation rule blanks (housekeeping anonymizeExpired). */
function applyAnonymisation(r: ExportRecord, before: Date | null): ExportRecord {
  if (!before || r.createdAt >= before.toISOString()) return r;
  return { ...r, senderName: null, senderAccount: null, receiverName: null, receiverAccount: null, clientRef: null };
}

/**
 * Streams records into CSV or XLSX. Memory stays flat whatever the row count: records arrive in
 * keyset pages (transactions.iterate), each page is written and dropped, and both formats wait for
 * the consumer: CSV through pipeline backpressure, XLSX through the sheet stream of
 * backpressuredWorkbookWriter (the zip and `out` push back on it). Returns the number of rows written.
 */
export async function writeExport(pages: AsyncIterable<ExportRecord[]>, out: Writable, o: ExportOptions): Promise<number> {
  let rows = 0;
  if (o.format === 'csv') {
    async function* cells() {
      for await (const page of pages) {
        for (const raw of page) {
          // The service's one event loop serves every shop. Pages read from SQLite resolve at once and a
          // client that keeps up never makes the pipeline wait, so without this the whole file was one
          // stretch of microtasks (50,000 rows: 5.7 s in which no other request was answered).
          if (rows > 0 && rows % EXPORT_YIELD_ROWS === 0) await nextTurn();
          const r = applyAnonymisation(raw, o.anonymizeBefore);
          rows++;
          yield {
            ...r,
            createdAt: localDateTime(r.createdAt, o.timeZone),
            transDate: r.transDate ? localDateTime(r.transDate, o.timeZone) : '',
            // Plain digits and a dot, no grouping: spreadsheets read it as a number.
            amount: exportAmount(r.amount),
            creditedAmount: exportAmount(r.creditedAmount ?? null),
            shopAccount: r.shopAccount ?? '',
            ...wordsOf(r, o.lang),
          };
        }
      }
    }
    // clientRef is any text an integrator sent and names come from bank data: a cell starting with
    // = + - @ tab or CR (or their full-width forms) would run as a formula in Excel or LibreOffice.
    // csv-stringify's escape_formulas puts a ' in front, as OWASP's CSV-injection advice says.
    const csv = stringify({
      bom: true,
      header: true,
      escape_formulas: true,
      columns: EXPORT_COLUMNS.map((c) => ({ key: c.key, header: exportHeader(c, o.lang, o.timeZone) })),
    });
    await pipeline(Readable.from(cells()), csv, out);
    return rows;
  }

  // exceljs costs ~1 s to load: only an XLSX export pays for it, not every CLI call and service start.
  const { default: ExcelJS } = await import('exceljs');
  const wb = backpressuredWorkbookWriter(ExcelJS, out);
  const ws = wb.addWorksheet(o.lang === 'th' ? 'รายการ' : 'Transactions', { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = EXPORT_COLUMNS.map((c) => ({
    header: exportHeader(c, o.lang, o.timeZone),
    key: c.key,
    width: c.width,
    ...(c.key === 'amount' || c.key === 'creditedAmount'
      ? { style: { numFmt: '#,##0.00' } }
      : c.key === 'createdAt' || c.key === 'transDate'
        ? { style: { numFmt: 'yyyy-mm-dd hh:mm:ss' } }
        : {}),
  }));
  ws.getRow(1).font = { bold: true };
  // The consumer going away (HTTP client gone, file closed) ends the export instead of leaving it
  // waiting for a 'drain' that never comes.
  const gone = new AbortController();
  const stopWatching = finished(out, (err) => {
    if (!out.writableFinished) gone.abort(err ?? new Error('export destination closed'));
  });
  try {
    for await (const page of pages) {
      for (const raw of page) {
        const r = applyAnonymisation(raw, o.anonymizeBefore);
        rows++;
        ws.addRow({
          ...r,
          // Real dates showing Bangkok wall time (a spreadsheet cell has no zone), real numbers with two decimals.
          createdAt: wallClockDate(r.createdAt, o.timeZone),
          transDate: r.transDate ? wallClockDate(r.transDate, o.timeZone) : null,
          amount: r.amount,
          creditedAmount: r.creditedAmount ?? null,
          shopAccount: r.shopAccount ?? null,
          ...wordsOf(r, o.lang),
        }).commit();
        // Row by row (a check of one flag): a few times XLSX_SHEET_BUFFER at most wait for the zip.
        if (wb.needsDrain()) {
          o.onWait?.(rows);
          await wb.drained(gone.signal);
        }
      }
    }
    ws.commit();
    await wb.commit();
  } finally {
    stopWatching();
  }
  return rows;
}

/** A CSV export lets the event loop turn after this many rows (~10 ms of work here). */
export const EXPORT_YIELD_ROWS = 250;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The worksheet XML waiting for the zip stops growing here: past this, the export waits for 'drain'. */
export const XLSX_SHEET_BUFFER = 64 * 1024;

type ExcelJsModule = typeof import('exceljs');

/**
 * exceljs's streaming WorkbookWriter with one change: the streams it writes each part's XML into honour
 * backpressure.
 *
 * Why: exceljs writes a worksheet into its own StreamBuf, whose write() never says "full", and archiver
 * wraps that in a PassThrough that keeps accepting whatever is written. When deflate and the consumer
 * are slower than row serialisation (they are: deflate is the slowest step, and an HTTP client can be
 * slower still), the sheet's XML piles up in that PassThrough: 74 MiB of buffers for 100,000 rows,
 * growing with the row count (measured: docs/benchmarks.md). Waiting for the destination's 'drain'
 * cannot see that backlog, which sits upstream of the zip. A Node stream in StreamBuf's place (SheetPart)
 * is piped by archiver with backpressure all the way to `out`, and its `writableNeedDrain` tells the
 * export loop to wait. Memory is then the sheet buffer, the zip's stream buffers and one page of
 * records, whatever the row count.
 *
 * `_openStream` is exceljs's internal hook (4.4.0) for every zipped part it streams; the export tests
 * read the file back with exceljs and check that a stalled consumer stops the producer, so a change
 * there fails a test rather than the memory bound silently.
 */
function backpressuredWorkbookWriter(ExcelJS: ExcelJsModule, out: Writable) {
  const parts: SheetPart[] = [];
  class Writer extends ExcelJS.stream.xlsx.WorkbookWriter {
    _openStream(path: string): SheetPart {
      const part = new SheetPart();
      // exceljs waits for 'zipped' before it appends the closing parts (its StreamBuf emits it on finish).
      part.on('finish', () => part.emit('zipped'));
      (this as unknown as { zip: { append(s: SheetPart, o: { name: string }): void } }).zip.append(part, { name: path });
      parts.push(part);
      return part;
    }
    needsDrain(): boolean {
      return parts.some((p) => p.writableNeedDrain);
    }
    async drained(signal: AbortSignal): Promise<void> {
      for (const p of parts) if (p.writableNeedDrain) await once(p, 'drain', { signal });
    }
  }
  // Shared strings would hold every distinct text until the end: inline strings keep memory flat.
  return new Writer({ stream: out, useStyles: true, useSharedStrings: false });
}

/**
 * One zipped part's XML on its way to deflate. It takes exceljs's chunks (strings, Buffers and its own
 * StringBuf) and passes them on in 64 KiB pieces, as exceljs's StreamBuf did: a row is ~600 bytes and
 * deflate handles each piece as one job on the thread pool. Unlike StreamBuf it says "full" (write()
 * returns false, 'drain' follows) once XLSX_SHEET_BUFFER bytes wait.
 */
class SheetPart extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  constructor() {
    super({ highWaterMark: XLSX_SHEET_BUFFER });
  }
  // exceljs writes its StringBuf objects, which Node's byte streams refuse: hand on their bytes.
  override write(chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
    const bytes = typeof chunk === 'string' || Buffer.isBuffer(chunk) ? chunk : (chunk as { toBuffer(): Buffer }).toBuffer();
    return (super.write as (c: unknown, e?: unknown, cb?: unknown) => boolean)(bytes, encoding, cb);
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= XLSX_SHEET_BUFFER) this.pushPending();
    done();
  }
  override _flush(done: TransformCallback): void {
    this.pushPending();
    done();
  }
  private pushPending() {
    if (!this.pendingBytes) return;
    this.push(this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes));
    this.pending = [];
    this.pendingBytes = 0;
  }
}

/** A readable body for HTTP: the export runs into it in the background; a failure destroys the stream. */
export function exportStream(pages: AsyncIterable<ExportRecord[]>, o: ExportOptions, onDone?: (rows: number) => void): PassThrough {
  const body = new PassThrough();
  writeExport(pages, body, o).then(
    (n) => {
      if (o.format === 'xlsx') body.end();
      onDone?.(n);
    },
    (e) => body.destroy(e as Error),
  );
  return body;
}
