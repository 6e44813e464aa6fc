import { resultWord } from '@slipcheck/sdk';
import type { TransactionRecord, TxStatus } from '../api/types';
import { useI18n } from '../i18n/i18n';

/**
 * Okabe-Ito colours (Okabe & Ito, "Color Universal Design"): duplicates (orange) and amount mismatches
 * (sky blue) no longer look alike to the one man in twelve with a red-green deficiency; every use also
 * carries the status's word, so colour is never the only signal.
 */
export const STATUS_COLOR: Record<TxStatus, string> = {
  SUCCESS: '#009E73',
  DUPLICATE: '#E69F00',
  AMOUNT_MISMATCH: '#56B4E9',
  RECEIVER_MISMATCH: '#CC79A7',
  INVALID: '#999999',
  FRAUD: '#D55E00',
  QUOTA_EXCEEDED: '#0072B2',
  PROVIDER_ERROR: '#000000',
};
/** Stale slips and replays: warnings about an otherwise genuine result (the replay card's amber). */
export const STALE_COLOR = '#E69F00';

type BadgeRecord = Pick<TransactionRecord, 'status'> & Partial<Pick<TransactionRecord, 'errorCode' | 'stale' | 'cached'>>;

/**
 * The result's pill: the word from the one vocabulary (a pending transfer says the bank has not
 * published it; a stale slip says "old slip"), and for a replay the replay's word and colour.
 */
export function StatusBadge({ status, record }: { status: TxStatus; record?: BadgeRecord }) {
  const { t, lang } = useI18n();
  const r: BadgeRecord = record ?? { status };
  const replay = !!r.cached;
  const stale = !replay && !!r.stale && (r.status === 'SUCCESS' || r.status === 'AMOUNT_MISMATCH');
  const word = replay ? t('result.replay.pill') : resultWord(r, lang);
  const color = replay || stale ? STALE_COLOR : STATUS_COLOR[status];
  const cls = replay ? 'badge-replay' : stale ? 'badge-stale' : `badge-${status.toLowerCase()}`;
  return (
    <span className={`badge ${cls}`} data-status={status} data-stale={stale ? 'true' : undefined}>
      <span className="badge-dot" aria-hidden="true" style={{ background: color }} />
      {word}
    </span>
  );
}
