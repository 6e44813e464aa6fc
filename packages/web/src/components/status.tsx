import type { TxStatus } from '../api/types';
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
