import { readFile } from 'node:fs/promises';
import { readPrintedTime } from './slip-qr-amount.js';
import { ocrEngine } from './slip-qr-ocr.js';
import { createSlipDecoderPool } from './slip-qr-pool.js';
import { usableCores } from '../../lib/usable-cores.js';

export interface DecodeCommandLine {
  file: string;
  ok: boolean;
  bankCode: string | null;
  transRef: string | null;
  payload: string | null;
  ms: number;
  error: { code: string; message: string } | null;
}

/**
 * `slipcheck decode FILE...`: one JSON line per file, through the same worker pool and cascade the
 * service uses, so an operator sees exactly what the service would read.
 * Exit code: 0 all files decoded as slips, 1 some did not, 2 usage error or a file could not be read.
 */
export async function runDecodeCommand(files: string[], out: (line: string) => void): Promise<number> {
  if (files.length === 0) {
    out(JSON.stringify({ error: { code: 'USAGE', message: 'usage: slipcheck decode FILE...' } }));
    return 2;
  }
  const pool = createSlipDecoderPool({ threads: Math.min(files.length, usableCores()), maxQueue: files.length });
  let exit = 0;
  try {
    // Start-up (tsx + wasm in each worker) is not decode time: keep it out of `ms`.
    await pool.ready().catch(() => undefined);
    const lines = files.map(async (file): Promise<DecodeCommandLine> => {
      const base = { file, ok: false, bankCode: null, transRef: null, payload: null, ms: 0 };
      let image: Buffer;
      try {
        image = await readFile(file);
      } catch (err) {
        exit = 2;
        const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
        return { ...base, error: { code: 'FILE_UNREADABLE', message: `cannot read file (${code})` } };
      }
      const t0 = performance.now();
      try {
        const r = await pool.decode(image);
        const ms = Math.round(performance.now() - t0);
        if (r.ok) return { file, ok: true, bankCode: r.bankCode, transRef: r.transRef, payload: r.payload, ms, error: null };
        exit = Math.max(exit, 1);
        return { ...base, ms, error: { code: r.errorCode, message: r.message } };
      } catch (err) {
        exit = 2;
        const code = (err as { code?: string }).code ?? 'DECODER_ERROR';
        return { ...base, ms: Math.round(performance.now() - t0), error: { code, message: (err as Error).message } };
      }
    });
    // Print in argument order, each line as soon as it and all before it are done.
    for (const line of lines) out(JSON.stringify(await line));
  } finally {
    await pool.close();
  }
  return exit;
}

export interface ReadCommandLine {
  file: string;
  /** What the slip QR says (as `slipcheck decode` prints it). */
  qr: { ok: boolean; bankCode: string | null; transRef: string | null; error: { code: string; message: string } | null };
  /** The printed amount in THB (from integer satang), or null when it was not read with confidence. */
  printedAmount: number | null;
  /** 0..1; the service concludes only at PRINTED_MIN_CONFIDENCE or above. */
  confidence: number;
  /**
   * The other printed fields the reader gives: the amount as printed, the transfer time ("HH:MM", or
   * null where not read), lines read, why no amount was read. Only the amount ever concludes anything
   * (FRAUD EDITED_SLIP); the time is for people. The receiver's account is not read (see the reader).
   */
  printed: {
    amountText: string | null;
    time: string | null;
    lines: number;
    reason: string | null;
  } | null;
  ms: number;
}

const READ_COMMAND_BUDGET_MS = 20_000;

/**
 * `slipcheck read FILE...`: what the service reads from each picture, through the same decoder pool
 * and reader as a verify (an operator looking into a disputed slip), with room to finish instead of
 * the service's time limit: the QR, the printed amount with its confidence, and the milliseconds
 * spent. One JSON line per file, in argument order.
 * Exit code: 0 every file decoded and its amount read, 1 some did not, 2 usage or unreadable file.
 */
export async function runReadCommand(files: string[], out: (line: string) => void): Promise<number> {
  if (files.length === 0) {
    out(JSON.stringify({ error: { code: 'USAGE', message: 'usage: slipcheck read FILE...' } }));
    return 2;
  }
  // The service's time limit is for answering customers at once; an operator asks for the answer. A
  // busy host (or a test run beside others) ran out the 1.7 s budget and printed a slip as unread. `ms`
  // still tells how long it took, so a read slower than the service allows shows.
  const pool = createSlipDecoderPool({
    threads: Math.min(files.length, usableCores()),
    maxQueue: files.length,
    warmReader: true,
    imageBudgetMs: READ_COMMAND_BUDGET_MS,
    jobTimeoutMs: READ_COMMAND_BUDGET_MS + 5000,
  });
  let exit = 0;
  try {
    await pool.ready().catch(() => undefined);
    const lines = files.map(async (file): Promise<ReadCommandLine | Record<string, unknown>> => {
      let image: Buffer;
      try {
        image = await readFile(file);
      } catch (err) {
        exit = 2;
        return { file, error: { code: 'FILE_UNREADABLE', message: `cannot read file (${(err as NodeJS.ErrnoException).code ?? 'EIO'})` } };
      }
      const t0 = performance.now();
      try {
        const { decoded, printed } = await pool.decodeAndRead(image, { copy: true });
        const p = await printed;
        const ms = Math.round(performance.now() - t0);
        // Here, not in the decoder: the time's extra lines must not spend the image's budget.
        const time = decoded.ok ? await readPrintedTime(image, decoded.qrAngle) : null;
        if (!decoded.ok || p?.amountSatang == null) exit = Math.max(exit, 1);
        return {
          file,
          qr: decoded.ok
            ? { ok: true, bankCode: decoded.bankCode, transRef: decoded.transRef, error: null }
            : { ok: false, bankCode: null, transRef: null, error: { code: decoded.errorCode, message: decoded.message } },
          printedAmount: p?.amountSatang == null ? null : p.amountSatang / 100,
          confidence: p?.confidence ?? 0,
          printed: p ? { amountText: p.text, time, lines: p.lines, reason: p.reason } : null,
          ms,
        };
      } catch (err) {
        exit = 2;
        return { file, error: { code: (err as { code?: string }).code ?? 'DECODER_FAILED', message: (err as Error).message } };
      }
    });
    for (const line of lines) out(JSON.stringify(await line));
  } finally {
    await pool.close();
    await ocrEngine().close();
  }
  return exit;
}
