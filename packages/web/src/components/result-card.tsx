import type { TransactionRecord } from '../api/types';
import { useI18n, type Lang, type TFunc } from '../i18n/i18n';
import { bankName } from '../lib/banks';
import { formatDateTime, formatMoney } from '../lib/format';
import { expectedAmountOf, explainResult, stripBidi } from '../lib/result-explain';
import type { MessageKey } from '../i18n/i18n';
import { StatusBadge } from './status';
import { useOriginal } from '../lib/use-original';

const ICON = { ok: '✓', error: '✕', warn: '!', info: '↻' } as const;

/**
 * The values a result's sentences name: a replay names the first check's time and result (the record is the
 * earlier one, unchanged); an edited slip says "the picture says ฿1,000.00, the bank says ฿100.00". A replay
 * of an edited slip repeats that slip's own sentence, so every sentence gets them all.
 */
export function resultVars(record: TransactionRecord, t: TFunc, lang: Lang): Record<string, string> {
  return {
    time: formatDateTime(record.createdAt, lang),
    result: t(`status.${record.status}` as MessageKey),
    printed: formatMoney(record.printedAmount),
    bank: formatMoney(record.amount),
  };
}

/**
 * Says in one sentence what the result means for the owner and what to do next, then shows the bank
 * data behind it. The wording lives in lib/result-explain.ts (unit-tested for every status/errorCode).
 */
export function ResultCard({
  record,
  headingLevel = 2,
  replaced = false,
}: {
  record: TransactionRecord;
  headingLevel?: 2 | 3;
  /** A later check of the same transfer counts instead (`supersededBy`): its advice is settled, not "ask for the difference". */
  replaced?: boolean;
}) {
  const { t, lang } = useI18n();
  const ex = explainResult(record);
  const H = headingLevel === 2 ? 'h2' : 'h3';
  const bank = record.bankCode ? bankName(record.bankCode, lang, record.bankName) : (record.bankName ?? '—');
  const expected = expectedAmountOf(record);
  // A duplicate's money and sender are the first record's: repeated on it since 2026-11-27, read here for older ones.
  const original = useOriginal(record);
  const shown =
    original && record.amount === null
      ? {
          ...record,
          amount: original.amount,
          senderName: original.senderName,
          senderAccount: original.senderAccount,
          receiverName: original.receiverName,
          receiverAccount: original.receiverAccount,
          transDate: original.transDate,
        }
      : record;
  const vars = resultVars(record, t, lang);
  return (
    <article className={`result result-${ex.tone}`} aria-labelledby={`res-${record.id}`} data-variant={ex.replay ? 'replay' : ex.variant}>
      <header className="result-head">
        <span className={`result-icon icon-${ex.tone}`} aria-hidden="true">
          {ICON[ex.tone]}
        </span>
        <div className="result-text">
          <H id={`res-${record.id}`} className="result-title">
            {t(ex.title, vars)}
          </H>
          <p className="result-body">{t(ex.body, vars)}</p>
        </div>
      </header>
      <p className="result-next">
        <strong>{t('result.nextLabel')}</strong> {replaced ? t('result.nextReplaced') : t(ex.next, vars)}
      </p>
      {ex.notes.map((k) => (
        <p key={k} className="result-note">
          {t(k, vars)}
        </p>
      ))}
      <dl className="kv">
        <div>
          <dt>{t('tx.status')}</dt>
          <dd>
            <StatusBadge status={record.status} record={record} />
          </dd>
        </div>
        <div>
          <dt>{t('tx.amount')}</dt>
          <dd className="amount">{formatMoney(shown.amount)}</dd>
        </div>
        {record.edited && record.printedAmount !== null && (
          <div data-testid="printed-amount">
            <dt>{t('tx.printedAmount')}</dt>
            <dd className="amount">{formatMoney(record.printedAmount)}</dd>
          </div>
        )}
        {original && (
          <div data-testid="first-use">
            <dt>{t('tx.firstUsedLabel')}</dt>
            <dd>
              {formatDateTime(original.createdAt, lang)} · {t(`source.${original.source}` as MessageKey)}
            </dd>
          </div>
        )}
        {expected !== null && (
          <div data-testid="expected-amount">
            <dt>{t('tx.expectedAmount')}</dt>
            <dd className="amount">{formatMoney(expected)}</dd>
          </div>
        )}
        <div>
          <dt>{t('tx.sender')}</dt>
          <Party name={shown.senderName} account={shown.senderAccount} />
        </div>
        <div>
          <dt>{t('tx.receiver')}</dt>
          <Party name={shown.receiverName} account={shown.receiverAccount} />
        </div>
        <div>
          <dt>{t('tx.bank')}</dt>
          <dd>{bank}</dd>
        </div>
        <div>
          <dt>{t('tx.transDate')}</dt>
          <dd>{formatDateTime(shown.transDate, lang)}</dd>
        </div>
        <div>
          <dt>{t('tx.transRef')}</dt>
          <dd className="mono">{record.transRef ?? '—'}</dd>
        </div>
      </dl>
      {record.errorCode && (
        // The code is for support and integrators; the owner reads the sentence above in their language.
        <details className="support-detail">
          <summary>{t('result.supportDetail')}</summary>
          <p className="small">
            {t('tx.errorCode')}: <span className="mono code-detail">{record.errorCode}</span>
          </p>
        </details>
      )}
    </article>
  );
}

/** A sender or receiver: the name as the bank wrote it (isolated, so Thai and Latin do not reorder), then the masked account. */
function Party({ name, account }: { name?: string | null; account?: string | null }) {
  return (
    <dd>
      {name ? <bdi className="bank-name">{stripBidi(name)}</bdi> : '—'}
      {account && (
        <span className="muted">
          {' '}
          · <span className="mono">{account}</span>
        </span>
      )}
    </dd>
  );
}
