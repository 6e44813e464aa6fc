import type { BankSlip } from '../checker/checker-port.js';
import { matchReceiver, type PayeeForMatch } from './receiver-match.js';
import type { TxStatus } from '../transactions/transaction-record.js';
import { formatSatang } from '../../lib/money.js';

export interface OutcomeRules {
  staleMode: 'off' | 'alert' | 'reject';
  staleMaxAgeHours: number;
  now: Date;
}

export interface SlipOutcome {
  status: TxStatus;
  errorCode: string | null;
  errorMessage: string | null;
  stale: boolean;
  /** Index (into the payees given) of the payee account the receiver matched; absent when none did. */
  payeeIndex?: number;
}

/**
 * Judges a transfer the bank confirmed; `slipSatang` is the bank's amount and `expectedSatang` the
 * request's, both integer satang (compared exactly, shown with integer formatting). Order: the money must have reached the shop (receiver),
 * then be the right amount, then be recent enough. An unknown receiver is not a pass.
 */
export function judgeFoundSlip(
  slip: BankSlip,
  slipSatang: number,
  payees: PayeeForMatch[],
  expectedSatang: number | undefined,
  rules: OutcomeRules,
): SlipOutcome {
  const ageMs = rules.now.getTime() - Date.parse(slip.transDate);
  const stale = rules.staleMode !== 'off' && ageMs > rules.staleMaxAgeHours * 3_600_000;

  const receiver = matchReceiver({ ...slip.receiver, bankCode: slip.receiver.bankCode ?? slip.receivingBankCode }, payees);
  if (receiver.result === 'MISMATCH') {
    return {
      status: 'RECEIVER_MISMATCH',
      errorCode: 'RECEIVER_MISMATCH',
      stale,
      errorMessage:
        "The transfer went to an account that is not one of this shop's payee accounts. If the customer paid into another account of yours, add it under Payee accounts.",
    };
  }
  if (receiver.result === 'UNKNOWN') {
    return {
      status: 'RECEIVER_MISMATCH',
      errorCode: 'RECEIVER_UNVERIFIED',
      stale,
      errorMessage:
        'The bank data does not show enough of the receiving account to confirm it is yours. Check the payee accounts, or confirm this payment in your banking app.',
    };
  }
  const payeeIndex = receiver.payeeIndex;
  if (expectedSatang !== undefined && slipSatang !== expectedSatang) {
    return {
      payeeIndex,
      status: 'AMOUNT_MISMATCH',
      errorCode: 'AMOUNT_MISMATCH',
      stale,
      errorMessage: `The slip amount ${formatSatang(slipSatang)} THB differs from the expected ${formatSatang(expectedSatang)} THB.`,
    };
  }
  if (stale && rules.staleMode === 'reject') {
    return {
      payeeIndex,
      status: 'INVALID',
      errorCode: 'STALE_SLIP',
      stale,
      errorMessage: `The transfer is older than ${rules.staleMaxAgeHours} hours; an old slip may be re-used from an earlier payment.`,
    };
  }
  return { status: 'SUCCESS', errorCode: null, errorMessage: null, stale, payeeIndex };
}

/**
 * When the slip's own QR says the transfer happened, as the latest moment it can be (end of the day
 * printed in the QR, Bangkok time), or null when the QR carries no date. TrueMoney wallet QRs carry
 * DDMMYYYY (tag 00 sub-tag 04); the bank layout carries only bank code and reference, and no
 * document we have says which banks embed a date in the reference, so bank slips answer null.
 */
export function slipQrLatestDate(decoded: { kind?: string; trueMoney?: { date: string } }): Date | null {
  const d = decoded.kind === 'TRUEMONEY' ? decoded.trueMoney?.date : undefined;
  if (!d || !/^\d{8}$/.test(d)) return null;
  const t = Date.parse(`${d.slice(4, 8)}-${d.slice(2, 4)}-${d.slice(0, 2)}T23:59:59+07:00`);
  return Number.isFinite(t) ? new Date(t) : null;
}

/**
 * Provider and QR references may legitimately differ in case, padding (spaces, leading zeros) and
 * separators; those are not fraud. What is left after this is compared exactly.
 */
export function normalizeTransRef(ref: string): string {
  return ref
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[^0-9A-Z]/g, '')
    .replace(/^0+(?=.)/, '');
}
