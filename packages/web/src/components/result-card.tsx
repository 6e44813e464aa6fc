import type { TransactionRecord } from '../api/types';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { bankName } from '../lib/banks';
import { formatDateTime, formatMoney } from '../lib/format';
import { OUTCOME_TONE, outcomeOf, StatusBadge } from './status';

/** Says in one sentence what the result means for the owner, then shows the bank data behind it. */
export function ResultCard({ record, headingLevel = 2 }: { record: TransactionRecord; headingLevel?: 2 | 3 }) {
  const { t, lang } = useI18n();
  const outcome = outcomeOf(record);
  const tone = OUTCOME_TONE[outcome];
  const H = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <article className={`result result-${tone}`} aria-labelledby={`res-${record.id}`}>
      <header className="result-head">
        <span className={`result-icon icon-${tone}`} aria-hidden="true">{tone === 'ok' ? '✓' : tone === 'error' ? '✕' : tone === 'warn' ? '!' : '↻'}</span>
        <div>
          <H id={`res-${record.id}`} className="result-title">{t(`outcome.${outcome}.title` as MessageKey)}</H>
          <p className="result-body">{t(`outcome.${outcome}.body` as MessageKey)}</p>
        </div>
      </header>
      {record.cached && <p className="muted small">{t('result.cached')}</p>}
      <dl className="kv">
        <div><dt>{t('tx.status')}</dt><dd><StatusBadge status={record.status} /></dd></div>
        <div><dt>{t('tx.amount')}</dt><dd className="amount">{formatMoney(record.amount)}</dd></div>
        <div><dt>{t('tx.sender')}</dt><dd>{record.senderName ?? '—'}{record.senderAccount && <span className="muted"> · {record.senderAccount}</span>}</dd></div>
        <div><dt>{t('tx.receiver')}</dt><dd>{record.receiverName ?? '—'}{record.receiverAccount && <span className="muted"> · {record.receiverAccount}</span>}</dd></div>
        <div><dt>{t('tx.bank')}</dt><dd>{record.bankCode ? bankName(record.bankCode, lang, record.bankName) : record.bankName ?? '—'}</dd></div>
        <div><dt>{t('tx.transDate')}</dt><dd>{formatDateTime(record.transDate, lang)}</dd></div>
        <div><dt>{t('tx.transRef')}</dt><dd className="mono">{record.transRef ?? '—'}</dd></div>
        {record.errorCode && <div><dt>{t('tx.errorCode')}</dt><dd className="mono">{record.errorCode}</dd></div>}
      </dl>
    </article>
  );
}
