import type { TransactionRecord } from '../api/types';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { formatDateTime, formatMoney } from '../lib/format';
import { Link } from '../lib/router';
import { StatusBadge } from './status';
import { stripBidi } from '../lib/result-explain';

/** A list rather than a table: it reads well on a 360 px phone and in a screen reader alike. */
export function TxList({ items, highlight }: { items: TransactionRecord[]; highlight?: Set<string> }) {
  const { t, lang } = useI18n();
  return (
    <ul className="tx-list">
      {items.map((r) => (
        <li key={r.id} className={highlight?.has(r.id) ? 'tx-new' : undefined}>
          <Link to={`/transactions/${r.id}`} className="tx-row">
            <span className="tx-main">
              <StatusBadge status={r.status} />
              <span className="tx-amount">{formatMoney(r.amount)}</span>
              {r.edited && r.printedAmount !== null && (
                <span className="tx-edited" data-testid="tx-edited">
                  {t('tx.editedMark', { printed: formatMoney(r.printedAmount) })}
                </span>
              )}
            </span>
            <span className="tx-sub">
              <span className="tx-party">{r.senderName ? <bdi>{stripBidi(r.senderName)}</bdi> : t('tx.unknownSender')}</span>
              <span className="tx-meta">
                {formatDateTime(r.createdAt, lang)} · {t(`source.${r.source}` as MessageKey)}
                {r.environment === 'test' && <> · {t('tx.test')}</>}
              </span>
              {r.transRef && <span className="tx-ref">{r.transRef}</span>}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
