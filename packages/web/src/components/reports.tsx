import { useState, type ReactNode } from 'react';
import { MONEY_WORDS, sourceWord } from '@slipcheck/sdk';
import { bankName } from '../lib/banks';
import { api } from '../api/client';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { useLoad } from '../lib/use-load';
import { useThrottledKey } from '../lib/use-throttled-key';
import { useSavedForm } from '../lib/use-saved-form';
import { SavedFormActions } from '../lib/saved-form-actions';
import { Button, Card, Checkbox, ErrorText, Field, Loading } from './ui';
// The route's own answer shape, generated from its schema (api/dashboard-types.gen.ts).
import type { ExportTicket, PeriodName, TotalsSummary as Totals } from '../api/types';
import { formatBaht } from '../lib/money';

const B = '/api/dashboard';
/** The money card asks for its figures at most once in this many ms (live results come faster at a busy till). */
const TOTALS_RELOAD_MS = 5_000;
export const REPORT_ROUTES = {
  totals: `${B}/reports/totals`,
  export: `${B}/transactions/export`,
  exportTicket: `${B}/transactions/export/ticket`,
  summary: `${B}/reports/summary-settings`,
};

/** Satang (integer) to "฿1,234.50" by integer arithmetic: money never goes through a float on screen either. */
export const formatSatang = formatBaht;

/**
 * The money card, held against the bank app at the end of the day (docs/dashboard-api.md "The money
 * figures"): received (every genuine transfer into the shop's accounts, one row per account as the shop
 * entered it, and per channel), what of it is verified, what needs a look, and what was stopped, which is
 * never part of received. Labels come from the one vocabulary (MONEY_WORDS) LINE and e-mails use too.
 */
export function TotalsCard({ reloadKey }: { reloadKey?: unknown }) {
  const { t, lang } = useI18n();
  const w = MONEY_WORDS[lang];
  // The figures are sums over the whole month (0.3-0.9 s on SQLite at 50,000 results a month, on the
  // thread that answers every request): asked at most once per window however fast results come.
  const key = useThrottledKey(reloadKey, TOTALS_RELOAD_MS);
  const totals = useLoad(() => api<Totals>(REPORT_ROUTES.totals), key);
  const [period, setPeriod] = useState<PeriodName>('today');
  const p = totals.data?.periods[period];
  const row = (key: string, label: ReactNode, m: { count: number; amountSatang: number }, testId: string, extra?: ReactNode) => (
    <div key={key} data-testid={testId}>
      <dt>{label}</dt>
      <dd>
        <span className="money">{formatSatang(m.amountSatang)}</span> · {t('reports.slips', { n: m.count })}
        {extra}
      </dd>
    </div>
  );
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
          <p className="muted small">{w.received}</p>
          <p className="big" data-testid="received-total">
            {formatSatang(p.received.amountSatang)}
          </p>
          {p.received.earlier.count === 0 ? (
            <p className="muted">{t('reports.receivedCount', { n: p.received.count })}</p>
          ) : (
            <>
              <p className="muted">{t('reports.receivedCountChecked', { n: p.received.count })}</p>
              {/* A late-night transfer checked after midnight, an old slip: the bank app lists it on an earlier day. */}
              <p className="small earlier-note" data-testid="received-earlier">
                {t('reports.earlier', { money: formatSatang(p.received.earlier.amountSatang), n: p.received.earlier.count })}
              </p>
            </>
          )}
          <h3 className="money-section">{w.byPayee}</h3>
          <dl className="kv">
            {p.received.byPayee.map((x) =>
              row(
                x.payeeId ?? '-',
                x.payeeId === null ? (
                  w.notRecorded
                ) : (
                  <>
                    {x.exists ? bankName(x.bankCode ?? '', lang) : w.removed} <span className="mono small">••••{x.accountLast4 ?? ''}</span>{' '}
                    <span className="small">{x.holder ?? ''}</span>
                  </>
                ),
                x,
                'payee-row',
              ),
            )}
          </dl>
          <h3 className="money-section">{w.byChannel}</h3>
          <dl className="kv">{p.received.byChannel.map((c) => row(c.source, sourceWord(c.source, lang), c, 'channel-row'))}</dl>
          <h3 className="money-section">{t('reports.ofWhich')}</h3>
          <dl className="kv">
            {row('verified', w.verified, p.verified, 'verified-row')}
            {row(
              'under',
              w.under,
              p.needsLook.under,
              'under-row',
              p.needsLook.under.count > 0 && <> · {t('reports.short', { money: formatSatang(p.needsLook.under.differenceSatang) })}</>,
            )}
            {row(
              'over',
              w.over,
              p.needsLook.over,
              'over-row',
              p.needsLook.over.count > 0 && <> · {t('reports.over', { money: formatSatang(p.needsLook.over.differenceSatang) })}</>,
            )}
            {row('stale', <span className="stale-mark">{w.stale}</span>, p.needsLook.stale, 'stale-row')}
            {p.needsLook.edited.count > 0 && row('edited', w.edited, p.needsLook.edited, 'edited-row')}
          </dl>
          <h3 className="money-section">{w.stopped}</h3>
          <p className="muted small">{t('reports.stoppedHint')}</p>
          <dl className="kv" data-testid="stopped">
            {row('dup', w.duplicate, p.stopped.duplicate, 'stopped-duplicate')}
            {row('forged', w.forged, p.stopped.forged, 'stopped-forged')}
            {row('elsewhere', w.receiverMismatch, p.stopped.receiverMismatch, 'stopped-elsewhere')}
          </dl>
          <p className="muted small">{t('reports.liveOnly')}</p>
        </>
      )}
    </Card>
  );
}

/**
 * Downloads the export the filters describe as a real browser download: the page asks for a one-time
 * ticket (bearer, POST: 60 s, single use, docs/dashboard-api.md "Exports"), then a hidden link hands its
 * URL to the browser, which streams the file to disk with its own progress. Holding the file in the tab
 * (`res.blob()`) kept a 100,000-row shop on a spinner with the whole file in memory. A refusal of the
 * ticket (bad filters, a lost connection) shows here in the page's language.
 */
export function ExportButtons({ query }: { query: Record<string, string | number | undefined | null> }) {
  const { t, lang } = useI18n();
  const [busy, setBusy] = useState<'' | 'csv' | 'xlsx'>('');
  const [error, setError] = useState<unknown>(null);
  async function download(format: 'csv' | 'xlsx') {
    setBusy(format);
    setError(null);
    try {
      const body: Record<string, string | number> = { format, lang };
      for (const [k, v] of Object.entries(query))
        if (k !== 'cursor' && k !== 'limit' && v !== undefined && v !== null && v !== '') body[k] = v;
      const { url } = await api<ExportTicket>(REPORT_ROUTES.exportTicket, { method: 'POST', body });
      const a = document.createElement('a');
      a.href = url;
      // An empty download attribute: the file name is the service's (Content-Disposition), and a refusal
      // of the link (used, expired) ends as a failed download instead of replacing the page.
      a.setAttribute('download', '');
      a.rel = 'noopener';
      a.hidden = true;
      document.body.appendChild(a);
      a.click();
      a.remove();
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
      {!!error && (
        <div className="export-error">
          <p className="small">{t('reports.exportFailed')}</p>
          <ErrorText error={error} />
        </div>
      )}
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
