import type { ListedRecord } from '../api/types';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { bangkokDay, formatDateTime, formatMoney } from '../lib/format';
import { Link } from '../lib/router';
import { StatusBadge } from './status';
import { expectedAmountOf, stripBidi } from '../lib/result-explain';
import { formatSatang } from './reports';
import { MONEY_WORDS } from '@slipcheck/sdk';
import { useOriginal } from '../lib/use-original';
import { satangFromAmount } from '../lib/money';

/** A list rather than a table: it reads well on a 360 px phone and in a screen reader alike. */
export function TxList({ items, highlight }: { items: ListedRecord[]; highlight?: Set<string> }) {
  return (
    <ul className="tx-list">
      {items.map((r) => (
        <TxRow key={r.id} r={r} isNew={!!highlight?.has(r.id)} />
      ))}
    </ul>
  );
}

function TxRow({ r, isNew }: { r: ListedRecord; isNew: boolean }) {
  const { t, lang } = useI18n();
  // A duplicate shows the money and the sender of the transfer it repeats (the first record), and when
  // and where that was first used.
  const original = useOriginal(r);
  const amount = r.amount ?? original?.amount ?? null;
  const sender = r.senderName ?? original?.senderName ?? null;
  // An amount mismatch says which way and by how much (integer satang): paid short or paid over.
  const expected = expectedAmountOf(r);
  const paid = r.amount === null ? null : satangFromAmount(r.amount);
  const wanted = expected === null ? null : satangFromAmount(expected);
  const diff = paid !== null && wanted !== null ? paid - wanted : 0;
  const later = r.supersededBy ?? null;
  return (
    <li className={[isNew ? 'tx-new' : '', later ? 'tx-replaced' : ''].filter(Boolean).join(' ') || undefined}>
      <Link to={`/transactions/${r.id}`} className="tx-row">
        <span className="tx-main">
          <StatusBadge status={r.status} record={r} />
          <span className="tx-amount">{formatMoney(amount)}</span>
          {r.edited && r.printedAmount !== null && (
            <span className="tx-edited" data-testid="tx-edited">
              {t('tx.editedMark', { printed: formatMoney(r.printedAmount) })}
            </span>
          )}
        </span>
        <span className="tx-sub">
          <span className="tx-party">{sender ? <bdi>{stripBidi(sender)}</bdi> : t('tx.unknownSender')}</span>
          <span className="tx-meta">
            {formatDateTime(r.createdAt, lang)} · {t(`source.${r.source}` as MessageKey)}
            {r.environment === 'test' && <> · {t('tx.test')}</>}
          </span>
          {r.transDate && bangkokDay(r.transDate) !== bangkokDay(r.createdAt) && (
            // The bank app lists a transfer on the day the bank moved it: a late-night transfer checked after
            // midnight, or an old slip, is on another day there than the check time above.
            <span className="tx-meta" data-testid="transferred-on">
              {t('tx.transferredOn', { time: formatDateTime(r.transDate, lang) })}
            </span>
          )}
          {diff !== 0 && (
            <span className="tx-meta" data-testid="mismatch-diff">
              {diff < 0 ? MONEY_WORDS[lang].under : MONEY_WORDS[lang].over} {formatSatang(Math.abs(diff))}
            </span>
          )}
          {original && (
            <span className="tx-meta" data-testid="first-use">
              {t('tx.firstUsed', { time: formatDateTime(original.createdAt, lang), source: t(`source.${original.source}` as MessageKey) })}
            </span>
          )}
          {r.transRef && <span className="tx-ref">{r.transRef}</span>}
        </span>
      </Link>
      {later && <SupersededNote later={later} />}
    </li>
  );
}

/**
 * A check a later check of the same transfer replaced (a corrected amount mismatch, a second try): the
 * money card counts the transfer once, on the later record, so this row says so and links to it. The
 * service decides which (`supersededBy`, the money figures' rule); outside the row's own link, since a
 * link may not hold another.
 */
export function SupersededNote({ later }: { later: NonNullable<ListedRecord['supersededBy']> }) {
  const { t, lang } = useI18n();
  return (
    <p className="tx-superseded" data-testid="superseded">
      <span className="tx-superseded-mark">{t('tx.superseded')}</span>{' '}
      <Link to={`/transactions/${later.id}`} data-testid="superseded-link">
        {t('tx.supersededLink', { status: t(`status.${later.status}` as MessageKey), time: formatDateTime(later.createdAt, lang) })}
      </Link>
    </p>
  );
}
