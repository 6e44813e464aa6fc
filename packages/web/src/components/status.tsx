import type { TransactionRecord, TxStatus } from '../api/types';
import { useI18n, type MessageKey } from '../i18n/i18n';

export const STATUS_COLOR: Record<TxStatus, string> = {
  SUCCESS: '#15803d',
  DUPLICATE: '#b45309',
  AMOUNT_MISMATCH: '#c2410c',
  RECEIVER_MISMATCH: '#7e22ce',
  INVALID: '#64748b',
  FRAUD: '#b91c1c',
  QUOTA_EXCEEDED: '#0369a1',
  PROVIDER_ERROR: '#475569',
};

export function StatusBadge({ status }: { status: TxStatus }) {
  const { t } = useI18n();
  return (
    <span className={`badge badge-${status.toLowerCase()}`}>
      <span className="badge-dot" aria-hidden="true" style={{ background: STATUS_COLOR[status] }} />
      {t(`status.${status}` as MessageKey)}
    </span>
  );
}

export type Outcome = 'genuine' | 'duplicate' | 'wrongAccount' | 'amount' | 'stale' | 'fake' | 'retry' | 'unreadable' | 'quota';

/** What a result means to the owner, in one word; the stale case counts even when the record is SUCCESS (alert mode). */
export function outcomeOf(r: Pick<TransactionRecord, 'status' | 'errorCode' | 'stale'>): Outcome {
  switch (r.status) {
    case 'SUCCESS': return r.stale ? 'stale' : 'genuine';
    case 'DUPLICATE': return 'duplicate';
    case 'RECEIVER_MISMATCH': return 'wrongAccount';
    case 'AMOUNT_MISMATCH': return 'amount';
    case 'FRAUD': return 'fake';
    case 'QUOTA_EXCEEDED': return 'quota';
    case 'PROVIDER_ERROR': return 'retry';
    case 'INVALID': return r.errorCode === 'STALE_SLIP' ? 'stale' : 'unreadable';
    default: return 'retry';
  }
}

export const OUTCOME_TONE: Record<Outcome, 'ok' | 'warn' | 'error' | 'info'> = {
  genuine: 'ok', duplicate: 'warn', wrongAccount: 'error', amount: 'warn', stale: 'warn', fake: 'error', retry: 'info', unreadable: 'info', quota: 'error',
};
