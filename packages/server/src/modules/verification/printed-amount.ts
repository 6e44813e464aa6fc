import type { PrintedRead } from '../slip-qr/slip-qr-amount.js';

export type EditMode = 'off' | 'alert' | 'reject';

/**
 * The lowest OCR confidence at which a printed amount counts as read. Below it the read proves
 * nothing (no FRAUD, no warning). Measured: docs/benchmarks.md "Edited slips".
 */
export const PRINTED_MIN_CONFIDENCE = 0.8;

interface Judged {
  status: string;
  amount_satang: number | null;
  error_code: string | null;
  error_message: string | null;
  success_ref: string | null;
}

const baht = (satang: number) => `${Math.floor(satang / 100).toLocaleString('en-US')}.${String(satang % 100).padStart(2, '0')}`;

/**
 * Edited-slip rule (issue 20), after the checker confirmed the transfer: a printed amount read with
 * confidence that differs from the bank's makes the record FRAUD EDITED_SLIP in reject mode (the
 * bank's data is kept beside the printed amount), or marks it `edited` in alert mode. An amount
 * that could not be read concludes nothing.
 */
export function judgePrinted<T extends Judged>(
  draft: T,
  read: PrintedRead | null,
  mode: EditMode,
): Partial<T> & { printed_amount_satang: number | null; edited: number } {
  if (mode === 'off' || draft.amount_satang === null || !read || read.amountSatang === null || read.confidence < PRINTED_MIN_CONFIDENCE)
    return { printed_amount_satang: null, edited: 0 } as Partial<T> & { printed_amount_satang: null; edited: number };
  const printed = read.amountSatang;
  if (printed === draft.amount_satang)
    return { printed_amount_satang: printed, edited: 0 } as Partial<T> & { printed_amount_satang: number; edited: number };
  const base = { printed_amount_satang: printed, edited: 1 };
  if (mode === 'alert') return base as Partial<T> & typeof base;
  return {
    ...base,
    status: 'FRAUD',
    error_code: 'EDITED_SLIP',
    error_message: `The slip picture says ${baht(printed)} THB but the bank transferred ${baht(draft.amount_satang)} THB: this slip was edited. Do not hand over goods for the printed amount.`,
    success_ref: null,
  } as Partial<T> & typeof base;
}
