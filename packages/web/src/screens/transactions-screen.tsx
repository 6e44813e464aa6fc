import { useCallback, useMemo, useRef, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { useLiveResults } from '../api/live';
import { ROUTES } from '../api/routes';
import { SOURCES, STATUSES, type ListedRecord, type TransactionRecord } from '../api/types';
import { ResultCard } from '../components/result-card';
import { reasonOf } from '../lib/result-explain';
import { SupersededNote, TxList } from '../components/tx-list';
import { Button, Card, Empty, ErrorText, Field, Loading, PageHeader, Select } from '../components/ui';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { bangkokDayEnd, bangkokDayStart, formatDateTime, formatMoney, gregorianDay } from '../lib/format';
import { parseAmountToSatang, satangFromAmount } from '../lib/money';
import { Link, useRouter } from '../lib/router';
import { ExportButtons, TotalsCard } from '../components/reports';
import { useAsyncAction } from '../lib/use-async-action';
import { useLoad } from '../lib/use-load';
import { useMediaQuery } from '../lib/use-media-query';

interface Filters {
  status: string;
  source: string;
  transRef: string;
  from: string;
  to: string;
  clientRef: string;
  amountMin: string;
  amountMax: string;
}
const EMPTY: Filters = { status: '', source: '', transRef: '', from: '', to: '', clientRef: '', amountMin: '', amountMax: '' };
// Compared as integer satang, like the server does (a filter that is not a price matches nothing here; the server refuses it).
/** The phone layout's width: the same as the `.tx-tools` rules in styles.css. */
const PHONE_LAYOUT = '(max-width: 640px)';
const satang = (v: string) => parseAmountToSatang(v.trim()) ?? Number.NaN;
const recordSatang = (r: TransactionRecord) => (r.amount === null ? null : satangFromAmount(r.amount));

function matches(r: TransactionRecord, f: Filters): boolean {
  if (f.status && r.status !== f.status) return false;
  if (f.source && r.source !== f.source) return false;
  if (f.transRef && r.transRef !== f.transRef.trim()) return false;
  if (f.from && new Date(r.createdAt) < new Date(bangkokDayStart(f.from))) return false;
  if (f.to && new Date(r.createdAt) > new Date(bangkokDayEnd(f.to))) return false;
  if (f.clientRef && r.clientRef !== f.clientRef.trim()) return false;
  if (f.amountMin && !((recordSatang(r) ?? Number.NaN) >= satang(f.amountMin))) return false;
  if (f.amountMax && !((recordSatang(r) ?? Number.NaN) <= satang(f.amountMax))) return false;
  return true;
}

export function TransactionsScreen() {
  const { t } = useI18n();
  // The daily summary links here with ?from=YYYY-MM-DD&to=YYYY-MM-DD (Bangkok days).
  const { search } = useRouter();
  const day = (k: string) => (/^\d{4}-\d{2}-\d{2}$/.test(search.get(k) ?? '') ? gregorianDay(search.get(k)!) : '');
  const [initial] = useState<Filters>(() => ({ ...EMPTY, from: day('from'), to: day('to') }));
  const [draft, setDraft] = useState<Filters>(initial);
  const [filters, setFilters] = useState<Filters>(initial);
  const [items, setItems] = useState<ListedRecord[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const [announce, setAnnounce] = useState('');
  // Every live result (and every resync after a reconnect) asks the money card again. The card is today,
  // this week and this month whatever the list's filters: keyed on the list's length, it stood still
  // while the list was filtered to another day (the daily summary's link) or to one status.
  const [moneyKey, setMoneyKey] = useState(0);
  // "Load more": a next page that cannot be fetched is said beside the button (it stopped spinning and
  // nothing more, so the list looked complete); the same button tries again.
  const more = useAsyncAction();
  const query = useCallback(
    (f: Filters, c?: string | null) => ({
      status: f.status,
      source: f.source,
      transRef: f.transRef.trim(),
      from: f.from ? bangkokDayStart(f.from) : '',
      to: f.to ? bangkokDayEnd(f.to) : '',
      cursor: c ?? '',
      limit: 30,
      clientRef: f.clientRef.trim(),
      amountMin: f.amountMin,
      amountMax: f.amountMax,
    }),
    [],
  );
  const list = useLoad(async () => {
    const page = await api<{ items: ListedRecord[]; nextCursor: string | null }>(ROUTES.transactions, { query: query(filters) });
    setItems(page.items);
    setCursor(page.nextCursor);
    more.setError(null); // a failed "load more" of the previous list is no longer this list's
    return page;
    // The filters object itself (state: a new one only when applied), never a new array per render.
  }, filters);
  const filtersRef = useRef(filters);
  filtersRef.current = filters;
  const itemsRef = useRef(items);
  itemsRef.current = items;
  type Page = { items: ListedRecord[]; nextCursor: string | null };
  /**
   * The rows of one transfer again, in place: a new check of a listed transfer may replace one of them
   * ("replaced by a later check", which the service decides). Reloading the list for it dropped the
   * pages the owner had loaded with "load more" and took them back to the top.
   */
  async function refreshTransfer(transRef: string) {
    const page = await api<Page>(ROUTES.transactions, { query: { ...query(EMPTY), transRef, limit: 100 } });
    const byId = new Map(page.items.map((x) => [x.id, x]));
    setItems((xs) => xs.map((x) => byId.get(x.id) ?? x));
  }
  /**
   * After the live feed reconnects (events may have been missed): the newest page again, above the rows
   * already loaded, which stay. If none of them is on the newest page any more, the gap between cannot
   * be known, so the list starts again from the top.
   */
  async function refreshTop() {
    const f = filtersRef.current;
    const page = await api<Page>(ROUTES.transactions, { query: query(f) });
    if (filtersRef.current !== f) return; // other filters applied meanwhile: their own load stands
    const ids = new Set(page.items.map((x) => x.id));
    const loaded = itemsRef.current;
    if (loaded.length <= page.items.length || !loaded.some((x) => ids.has(x.id))) {
      setItems(page.items);
      setCursor(page.nextCursor);
      return;
    }
    setItems((xs) => [...page.items, ...xs.filter((x) => !ids.has(x.id))]);
  }
  const live = useLiveResults(
    (r) => {
      setMoneyKey((k) => k + 1);
      if (r.transRef && itemsRef.current.some((x) => x.transRef === r.transRef && x.environment === r.environment))
        void refreshTransfer(r.transRef).catch(() => undefined);
      if (!matches(r, filtersRef.current)) return;
      setItems((xs) => (xs.some((x) => x.id === r.id) ? xs : [r, ...xs]));
      setFresh((s) => new Set(s).add(r.id));
      setAnnounce(t('tx.liveNew', { status: t(`status.${r.status}` as MessageKey) }));
    },
    true,
    () => {
      setMoneyKey((k) => k + 1);
      void refreshTop().catch(() => undefined);
    },
  );
  function loadMore() {
    if (!cursor) return;
    void more.run(async () => {
      const page = await api<Page>(ROUTES.transactions, { query: query(filters, cursor) });
      setItems((xs) => [...xs, ...page.items.filter((p) => !xs.some((x) => x.id === p.id))]);
      setCursor(page.nextCursor);
    });
  }
  const [toolsOpen, setToolsOpen] = useState(false);
  // A range the wrong way round matches nothing: said beside its end instead of "no results", which an
  // owner reads as "no slip that day".
  const [reversed, setReversed] = useState<{ dates: boolean; amounts: boolean }>({ dates: false, amounts: false });
  function apply(e: FormEvent) {
    e.preventDefault();
    // The fields then show the year the search used.
    const f = { ...draft, from: gregorianDay(draft.from), to: gregorianDay(draft.to) };
    setDraft(f);
    const wrong = {
      dates: !!f.from && !!f.to && f.from > f.to,
      amounts: !!f.amountMin.trim() && !!f.amountMax.trim() && satang(f.amountMin) > satang(f.amountMax),
    };
    setReversed(wrong);
    if (wrong.dates || wrong.amounts) return;
    setFilters(f);
    setToolsOpen(false);
  }
  const active = useMemo(() => Object.values(filters).some(Boolean), [filters]);
  // On a phone the money card goes under the list, in the DOM and not with CSS `order`: a screen reader
  // reads the DOM, and read the whole money card before the list a person sees first.
  const phone = useMediaQuery(PHONE_LAYOUT);
  const totals = (
    <div className="tx-totals">
      <TotalsCard reloadKey={moneyKey} />
    </div>
  );
  return (
    <>
      <PageHeader
        title={t('tx.title')}
        intro={t('tx.intro')}
        actions={
          <span className={`live live-${live}`} role="status">
            <span className="live-dot" aria-hidden="true" />
            {t(`live.${live}` as MessageKey)}
          </span>
        }
      />
      {/* On a phone the filters and downloads fold behind one button and the money card goes under the
          list, so the first results show on the first screen (390x844); wide screens show everything. */}
      <Button
        variant="secondary"
        className="tx-tools-toggle btn-block"
        aria-expanded={toolsOpen}
        aria-controls="tx-tools"
        onClick={() => setToolsOpen(!toolsOpen)}
      >
        {t('tx.filtersToggle')}
        {active ? ` (${t('tx.filtersOn')})` : ''}
      </Button>
      <div className="tx-layout">
        <div id="tx-tools" className="tx-tools" data-open={toolsOpen ? 'true' : 'false'}>
          <Card>
            <form className="filters" onSubmit={apply} aria-label={t('tx.filters')}>
              <Select label={t('tx.status')} value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.target.value })}>
                <option value="">{t('common.all')}</option>
                {STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {t(`status.${s}` as MessageKey)}
                  </option>
                ))}
              </Select>
              <Select label={t('tx.source')} value={draft.source} onChange={(e) => setDraft({ ...draft, source: e.target.value })}>
                <option value="">{t('common.all')}</option>
                {SOURCES.map((s) => (
                  <option key={s} value={s}>
                    {t(`source.${s}` as MessageKey)}
                  </option>
                ))}
              </Select>
              <Field
                label={t('tx.transRef')}
                value={draft.transRef}
                maxLength={64}
                onChange={(e) => setDraft({ ...draft, transRef: e.target.value })}
              />
              <Field label={t('tx.from')} type="date" value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
              <Field
                label={t('tx.to')}
                type="date"
                value={draft.to}
                error={reversed.dates ? t('tx.toBeforeFrom') : null}
                onChange={(e) => setDraft({ ...draft, to: e.target.value })}
              />
              <Field
                label={t('reports.clientRef')}
                value={draft.clientRef}
                maxLength={64}
                onChange={(e) => setDraft({ ...draft, clientRef: e.target.value })}
              />
              <Field
                label={t('reports.amountMin')}
                type="number"
                inputMode="decimal"
                min={0}
                step="0.01"
                value={draft.amountMin}
                onChange={(e) => setDraft({ ...draft, amountMin: e.target.value })}
              />
              <Field
                label={t('reports.amountMax')}
                type="number"
                inputMode="decimal"
                min={0}
                step="0.01"
                value={draft.amountMax}
                error={reversed.amounts ? t('tx.maxBelowMin') : null}
                onChange={(e) => setDraft({ ...draft, amountMax: e.target.value })}
              />
              <div className="filter-actions">
                <Button type="submit">{t('tx.apply')}</Button>
                {active && (
                  <Button
                    variant="ghost"
                    onClick={() => {
                      setDraft(EMPTY);
                      setFilters(EMPTY);
                      setReversed({ dates: false, amounts: false });
                    }}
                  >
                    {t('tx.clear')}
                  </Button>
                )}
              </div>
            </form>
          </Card>
          <ExportButtons query={query(filters)} />
        </div>
        {!phone && totals}
        <div className="sr-only" aria-live="polite" aria-atomic="true">
          {announce}
        </div>
        <div className="tx-results">
          <Card>
            <ErrorText error={list.error} />
            {list.loading && !items.length ? (
              <Loading />
            ) : items.length ? (
              <>
                <TxList items={items} highlight={fresh} />
                {cursor && (
                  <>
                    <ErrorText error={more.error} />
                    <Button variant="secondary" busy={more.busy} onClick={loadMore} className="btn-block">
                      {t('common.loadMore')}
                    </Button>
                  </>
                )}
              </>
            ) : (
              // Only a list that loaded is empty: one that did not says so above and nothing more.
              list.data &&
              !list.error && <Empty title={active ? t('tx.emptyFiltered') : t('tx.empty')}>{!active && t('tx.emptyHint')}</Empty>
            )}
          </Card>
        </div>
        {phone && totals}
      </div>
    </>
  );
}

export function TransactionDetailScreen({ id }: { id: string }) {
  const { t, lang } = useI18n();
  const rec = useLoad(() => api<ListedRecord>(ROUTES.transaction(id)), id);
  const r = rec.data;
  const reason = r ? reasonOf(r) : null;
  return (
    <>
      <p>
        <Link to="/transactions" className="btn btn-ghost back-link">
          ← {t('tx.back')}
        </Link>
      </p>
      <PageHeader title={t('tx.detailTitle')} />
      <ErrorText error={rec.error} />
      {!r && !rec.error && <Loading />}
      {r && (
        <>
          {r.supersededBy && (
            <div className="alert alert-warn" role="status" data-testid="superseded-detail">
              <SupersededNote later={r.supersededBy} />
            </div>
          )}
          <ResultCard record={r} replaced={!!r.supersededBy} />
          <Card title={t('tx.technical')}>
            <dl className="kv">
              <div>
                <dt>ID</dt>
                <dd className="mono">{r.id}</dd>
              </div>
              <div>
                <dt>{t('tx.createdAt')}</dt>
                <dd>{formatDateTime(r.createdAt, lang)}</dd>
              </div>
              <div>
                <dt>{t('tx.source')}</dt>
                <dd>{t(`source.${r.source}` as MessageKey)}</dd>
              </div>
              <div>
                <dt>{t('tx.environment')}</dt>
                <dd>{t(`keys.env.${r.environment}` as MessageKey)}</dd>
              </div>
              <div>
                <dt>{t('tx.duplicate')}</dt>
                <dd>{r.duplicate ? t('common.yes') : t('common.no')}</dd>
              </div>
              <div>
                <dt>{t('tx.stale')}</dt>
                <dd>{r.stale ? t('common.yes') : t('common.no')}</dd>
              </div>
              <div>
                <dt>{t('tx.printedAmount')}</dt>
                <dd>{r.printedAmount === null ? t('tx.printedUnread') : formatMoney(r.printedAmount)}</dd>
              </div>
              <div>
                <dt>{t('tx.clientRef')}</dt>
                <dd className="mono">{r.clientRef ?? '—'}</dd>
              </div>
              <div>
                <dt>{t('tx.latency')}</dt>
                <dd>{r.latencyMs} ms</dd>
              </div>
              {reason && (
                <div>
                  <dt>{t('tx.errorMessage')}</dt>
                  <dd>{'key' in reason ? t(reason.key) : reason.text}</dd>
                </div>
              )}
            </dl>
          </Card>
        </>
      )}
    </>
  );
}
