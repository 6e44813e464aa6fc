import { PassThrough, Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { TransactionRecord } from '../transactions/transaction-record.js';
import { formatSatang, localDateTime, wallClockDate } from './reports-time.js';

export type ExportFormat = 'csv' | 'xlsx';
export type ExportLang = 'th' | 'en';

export const EXPORT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Column order and headers of both formats. Thai first; English on the English switch. */
export const EXPORT_COLUMNS = [
  { key: 'createdAt', th: 'วันเวลาที่ตรวจ', en: 'Checked at', width: 20 },
  { key: 'status', th: 'ผลตรวจ', en: 'Result', width: 18 },
  { key: 'statusLabel', th: 'ผลตรวจ (คำอธิบาย)', en: 'Result (meaning)', width: 24 },
  { key: 'amount', th: 'จำนวนเงิน (บาท)', en: 'Amount (THB)', width: 16 },
  { key: 'clientRef', th: 'เลขออเดอร์ (clientRef)', en: 'Order ref (clientRef)', width: 22 },
  { key: 'transRef', th: 'เลขอ้างอิงธนาคาร', en: 'Bank reference', width: 26 },
  { key: 'transDate', th: 'วันเวลาโอน', en: 'Transfer time', width: 20 },
  { key: 'bankName', th: 'ธนาคารผู้โอน', en: 'Sender bank', width: 12 },
  { key: 'senderName', th: 'ชื่อผู้โอน', en: 'Sender name', width: 24 },
  { key: 'senderAccount', th: 'บัญชีผู้โอน', en: 'Sender account', width: 18 },
  { key: 'receiverName', th: 'ชื่อผู้รับ', en: 'Receiver name', width: 24 },
  { key: 'receiverAccount', th: 'บัญชีผู้รับ', en: 'Receiver account', width: 18 },
  { key: 'source', th: 'ช่องทาง', en: 'Channel', width: 12 },
  { key: 'environment', th: 'โหมด', en: 'Mode', width: 8 },
  { key: 'id', th: 'รหัสรายการ', en: 'Record id', width: 30 },
] as const;

const STATUS_LABEL: Record<string, { th: string; en: string }> = {
  SUCCESS: { th: 'ยืนยันแล้ว', en: 'Verified' },
  DUPLICATE: { th: 'สลิปซ้ำ', en: 'Duplicate slip' },
  AMOUNT_MISMATCH: { th: 'ยอดเงินไม่ตรง', en: 'Amount does not match' },
  RECEIVER_MISMATCH: { th: 'บัญชีผู้รับไม่ตรง', en: 'Receiver does not match' },
  INVALID: { th: 'สลิปไม่ถูกต้อง', en: 'Invalid slip' },
  FRAUD: { th: 'สงสัยปลอม', en: 'Suspected fraud' },
  QUOTA_EXCEEDED: { th: 'โควตาหมด', en: 'Quota used up' },
  PROVIDER_ERROR: { th: 'ตรวจไม่ได้ชั่วคราว', en: 'Could not check (temporary)' },
};

export interface ExportOptions {
  format: ExportFormat;
  lang: ExportLang;
  timeZone: string;
  /** PDPA auto-delete cutoff (housekeeping anonymizeCutoff): older rows leave with personal fields blank. */
  anonymizeBefore: Date | null;
}

/** The personal fields the anonymisation rule blanks (housekeeping anonymizeExpired). */
function applyAnonymisation(r: TransactionRecord, before: Date | null): TransactionRecord {
  if (!before || r.createdAt >= before.toISOString()) return r;
  return { ...r, senderName: null, senderAccount: null, receiverName: null, receiverAccount: null, clientRef: null };
}

/**
 * Streams records into CSV or XLSX. Memory stays flat whatever the row count: records arrive in
 * keyset pages (transactions.iterate), each page is written and dropped, and the CSV side waits for
 * the consumer (pipeline backpressure); the XLSX writer commits each row to its zip stream and we
 * wait for `drain` between pages. Returns the number of rows written.
 */
export async function writeExport(pages: AsyncIterable<TransactionRecord[]>, out: Writable, o: ExportOptions): Promise<number> {
  let rows = 0;
  if (o.format === 'csv') {
    async function* cells() {
      for await (const page of pages) {
        for (const raw of page) {
          const r = applyAnonymisation(raw, o.anonymizeBefore);
          rows++;
          yield {
            ...r,
            createdAt: localDateTime(r.createdAt, o.timeZone),
            transDate: r.transDate ? localDateTime(r.transDate, o.timeZone) : '',
            // Plain digits and a dot, no grouping: spreadsheets read it as a number.
            amount: r.amount === null ? '' : formatSatang(Math.round(r.amount * 100), false),
            statusLabel: STATUS_LABEL[r.status]?.[o.lang] ?? r.status,
          };
        }
      }
    }
    const csv = stringify({ bom: true, header: true, columns: EXPORT_COLUMNS.map((c) => ({ key: c.key, header: c[o.lang] })) });
    await pipeline(Readable.from(cells()), csv, out);
    return rows;
  }

  // exceljs costs ~1 s to load: only an XLSX export pays for it, not every CLI call and service start.
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const ws = wb.addWorksheet(o.lang === 'th' ? 'รายการ' : 'Transactions', { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = EXPORT_COLUMNS.map((c) => ({
    header: c[o.lang],
    key: c.key,
    width: c.width,
    ...(c.key === 'amount'
      ? { style: { numFmt: '#,##0.00' } }
      : c.key === 'createdAt' || c.key === 'transDate'
        ? { style: { numFmt: 'yyyy-mm-dd hh:mm:ss' } }
        : {}),
  }));
  ws.getRow(1).font = { bold: true };
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
        statusLabel: STATUS_LABEL[r.status]?.[o.lang] ?? r.status,
      }).commit();
    }
    if (out.writableNeedDrain)
      await new Promise<void>((resolve, reject) => {
        out.once('drain', resolve);
        out.once('error', reject);
      });
  }
  ws.commit();
  await wb.commit();
  return rows;
}

/** A readable body for HTTP: the export runs into it in the background; a failure destroys the stream. */
export function exportStream(pages: AsyncIterable<TransactionRecord[]>, o: ExportOptions, onDone?: (rows: number) => void): PassThrough {
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
