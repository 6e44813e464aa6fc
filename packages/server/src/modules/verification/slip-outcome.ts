import type { BankSlip } from '../checker/checker-port.js';
import { matchReceiver, type PayeeForMatch } from './receiver-match.js';
import type { TxStatus } from '../transactions/transaction-record.js';
import { amountToSatang } from '../transactions/transaction-record.js';

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

const fmt = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * Judges a transfer the bank confirmed. Order: the money must have reached the shop (receiver),
 * then be the right amount, then be recent enough. An unknown receiver is not a pass.
 */
export function judgeFoundSlip(
  slip: BankSlip,
  payees: PayeeForMatch[],
  expectedAmount: number | undefined,
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
  if (expectedAmount !== undefined && amountToSatang(slip.amount) !== amountToSatang(expectedAmount)) {
    return {
      payeeIndex,
      status: 'AMOUNT_MISMATCH',
      errorCode: 'AMOUNT_MISMATCH',
      stale,
      errorMessage: `The slip amount ${fmt(slip.amount)} THB differs from the expected ${fmt(expectedAmount)} THB.`,
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
