import { useState } from 'react';
import { api, ApiError, getAccessToken, refreshSession, withQuery } from '../api/client';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { useLoad } from '../lib/use-load';
import { useSavedForm } from '../lib/use-saved-form';
import { SavedFormActions } from '../lib/saved-form-actions';
import { Button, Card, Checkbox, ErrorText, Field, Loading } from './ui';
// The service's own answer shapes (types only): one declaration for the screen and the service.
import type { PeriodName, TotalsSummary as Totals } from '../../../server/src/modules/reports/reports-types';
import { formatBaht } from '../lib/money';

const B = '/api/dashboard';
export const REPORT_ROUTES = {
  totals: `${B}/reports/totals`,
  export: `${B}/transactions/export`,
  summary: `${B}/reports/summary-settings`,
};

/** Satang (integer) to "฿1,234.50" by integer arithmetic: money never goes through a float on screen either. */
export const formatSatang = formatBaht;

/** Verified THB today / this week / this month, by channel and payee account, and what checking blocked. */
export function TotalsCard({ reloadKey }: { reloadKey?: unknown }) {
  const { t } = useI18n();
  const totals = useLoad(() => api<Totals>(REPORT_ROUTES.totals), [reloadKey]);
  const [period, setPeriod] = useState<PeriodName>('today');
  const p = totals.data?.periods[period];
  return (
    <Card
      title={t('reports.totalsTitle')}
      actions={
        <div className="segmented" role="group" aria-label={t('reports.period')}>
          {(['today', 'week', 'month'] as const).map((k) => (
            <Button key={k} variant={k === period ? 'primary' : 'ghost'} aria-pressed={k === period} onClick={() => setPeriod(k)}>
              {t(`reports.${k}` as MessageKey)}
            </Button>
          ))}
        </div>
      }
    >
      <ErrorText error={totals.error} />
      {!p ? (
        !totals.error && <Loading />
      ) : (
        <>
          <p className="big" data-testid="verified-total">
            {formatSatang(p.verified.amountSatang)}
          </p>
          <p className="muted">{t('reports.verifiedCount', { n: p.verified.count })}</p>
          <dl className="kv">
            {p.byChannel.map((c) => (
              <div key={c.source}>
                <dt>{t(`source.${c.source}` as MessageKey)}</dt>
                <dd>
                  {formatSatang(c.amountSatang)} · {c.count}
                </dd>
              </div>
            ))}
            {p.byPayee.map((x) => (
              <div key={`${x.account}|${x.name}`}>
                <dt>
                  {x.name ?? '—'} <span className="mono small">{x.account ?? ''}</span>
                </dt>
                <dd>
                  {formatSatang(x.amountSatang)} · {x.count}
                </dd>
              </div>
            ))}
          </dl>
          <p className="small">
            {t('reports.blocked', {
              dup: p.blocked.duplicate.count,
              mis: p.blocked.mismatch.count,
              fraud: p.blocked.fraud.count,
              money: formatSatang(p.blocked.duplicate.amountSatang + p.blocked.mismatch.amountSatang + p.blocked.fraud.amountSatang),
            })}
          </p>
          <p className="muted small">{t('reports.liveOnly')}</p>
        </>
      )}
    </Card>
  );
}

/** Downloads the export the filters describe; a refusal shows the server's message (error envelope). */
export function ExportButtons({ query }: { query: Record<string, string | number | undefined | null> }) {
  const { t, lang } = useI18n();
  const [busy, setBusy] = useState<'' | 'csv' | 'xlsx'>('');
  const [error, setError] = useState<unknown>(null);
  async function download(format: 'csv' | 'xlsx') {
    setBusy(format);
    setError(null);
    try {
      const url = withQuery(REPORT_ROUTES.export, { ...query, cursor: undefined, limit: undefined, format, lang });
      const go = () => fetch(url, { headers: { Authorization: `Bearer ${getAccessToken() ?? ''}` }, credentials: 'include' });
      let res = await go();
      if (res.status === 401 && (await refreshSession())) res = await go();
      if (!res.ok) {
        const body = await res.json().catch(() => ({}));
        throw new ApiError(res.status, body.code ?? `HTTP_${res.status}`, body.message ?? res.statusText, body);
      }
      const blob = await res.blob();
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? `slipcheck-transactions.${format}`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    } catch (e) {
      setError(e);
    } finally {
      setBusy('');
    }
  }
  return (
    <div className="export-actions">
      <Button variant="secondary" busy={busy === 'csv'} onClick={() => void download('csv')}>
        {t('reports.exportCsv')}
      </Button>
      <Button variant="secondary" busy={busy === 'xlsx'} onClick={() => void download('xlsx')}>
        {t('reports.exportXlsx')}
      </Button>
      <ErrorText error={error} />
    </div>
  );
}

interface SummarySettings {
  enabled: boolean;
  time: string;
  line: boolean;
  email: boolean;
  sendEmpty: boolean;
}

/** Settings: when and where the daily summary goes (owner only). */
export function SummarySettingsCard({ isOwner }: { isOwner: boolean }) {
  const { t } = useI18n();
  const {
    loaded: s,
    form,
    setForm,
    saved,
    busy,
    error,
    submit: save,
  } = useSavedForm(
    () => api<SummarySettings>(REPORT_ROUTES.summary),
    (f) => api<SummarySettings>(REPORT_ROUTES.summary, { method: 'PUT', body: f }),
  );
  return (
    <Card title={t('reports.summaryTitle')}>
      <ErrorText error={s.error} />
      {!form ? (
        !s.error && <Loading />
      ) : (
        <form onSubmit={save}>
          <fieldset disabled={!isOwner}>
            <Checkbox
              label={t('reports.summaryEnabled')}
              hint={t('reports.summaryHint')}
              checked={form.enabled}
              onChange={(e) => setForm({ ...form, enabled: e.target.checked })}
            />
            <Field
              label={t('reports.summaryTime')}
              type="time"
              required
              value={form.time}
              onChange={(e) => setForm({ ...form, time: e.target.value.slice(0, 5) })}
            />
            <Checkbox label={t('reports.summaryLine')} checked={form.line} onChange={(e) => setForm({ ...form, line: e.target.checked })} />
            <Checkbox
              label={t('reports.summaryEmail')}
              checked={form.email}
              onChange={(e) => setForm({ ...form, email: e.target.checked })}
            />
            <Checkbox
              label={t('reports.summaryEmpty')}
              checked={form.sendEmpty}
              onChange={(e) => setForm({ ...form, sendEmpty: e.target.checked })}
            />
            <SavedFormActions saved={saved} error={error} busy={busy} isOwner={isOwner} />
          </fieldset>
        </form>
      )}
    </Card>
  );
}
