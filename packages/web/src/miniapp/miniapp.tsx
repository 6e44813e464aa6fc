import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { api, ApiError } from '../api/client';
import { hasErrorCode } from '../api/error-code';
import { useLiveResults } from '../api/live';
import { ROUTES } from '../api/routes';
import type { Overview, TotalsSummary, TransactionRecord, TxStatus } from '../api/types';
import { LangSwitch } from '../components/layout';
import { ResultCard } from '../components/result-card';
import { StatusBadge } from '../components/status';
import { TxList } from '../components/tx-list';
import { CheckingNotice, firstUseOf, ReusedSlipWarning, SlipPickers } from '../components/slip-check';
import { Alert, Button, ErrorText, Field } from '../components/ui';
import { bangkokDay, bangkokDayEnd, bangkokDayStart } from '../lib/format';
import { amountProblem, amountQuery, formatBaht } from '../lib/money';
import {
  linkWithCode,
  liffIdToken,
  renewLineToken,
  resumeOrSignIn,
  savedShop,
  switchShop,
  type MiniAuth,
  type MiniConfig,
} from './liff-session';
import { useMiniText } from './miniapp-text';

type Phase =
  | { kind: 'loading' }
  | { kind: 'unlinked'; idToken: string }
  | { kind: 'ready'; auth: MiniAuth; idToken: string }
  | { kind: 'failed'; why: 'openInLine' | 'notSetUp' | 'signInFailed' };

/** The LINE mini-app: sign in with LINE, check a slip, see today. Phone-only layout, Thai first. */
export function MiniApp() {
  const m = useMiniText();
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });

  useEffect(() => {
    void (async () => {
      try {
        const config = await api<MiniConfig>('/api/miniapp/config', { noAuth: true });
        if (!config.loginWithLine) return setPhase({ kind: 'failed', why: 'notSetUp' });
        const idToken = await liffIdToken(config);
        if (!idToken) return setPhase({ kind: 'failed', why: 'openInLine' });
        try {
          setPhase({ kind: 'ready', auth: await resumeOrSignIn(idToken, savedShop()), idToken });
        } catch (e) {
          if (hasErrorCode(e, 'LINE_NOT_LINKED')) return setPhase({ kind: 'unlinked', idToken });
          // A spent or expired token LIFF keeps handing back: get a fresh one from LINE (once).
          if (hasErrorCode(e, 'LINE_TOKEN_INVALID') && (await renewLineToken(config))) return;
          throw e;
        }
      } catch {
        setPhase({ kind: 'failed', why: 'signInFailed' });
      }
    })();
  }, []);

  return (
    <div className="mini">
      <header className="mini-top">
        <h1 className="mini-title">{m('title')}</h1>
        <LangSwitch />
      </header>
      {/* One main landmark for every phase (signing in, not linked, signed in): screen readers jump to it. */}
      <main>
        {phase.kind === 'loading' && (
          <p className="mini-pad muted" role="status">
            {m('loading')}
          </p>
        )}
        {phase.kind === 'failed' && (
          <div className="mini-pad">
            <Alert kind="error" title={m(phase.why)} />
          </div>
        )}
        {phase.kind === 'unlinked' && (
          <LinkForm idToken={phase.idToken} onLinked={(auth) => setPhase({ kind: 'ready', auth, idToken: phase.idToken })} />
        )}
        {phase.kind === 'ready' && (
          <Signed
            auth={phase.auth}
            onSwitch={async (shopId) => setPhase({ kind: 'ready', auth: await switchShop(shopId), idToken: phase.idToken })}
          />
        )}
      </main>
    </div>
  );
}

function LinkForm({ idToken, onLinked }: { idToken: string; onLinked: (a: MiniAuth) => void }) {
  const m = useMiniText();
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <form
      className="mini-pad"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          onLinked(await linkWithCode(idToken, code));
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <Alert kind="warn" title={m('notLinkedTitle')}>
        {m('notLinkedBody')}
      </Alert>
      <Field
        label={m('codeLabel')}
        hint={m('codeHint')}
        value={code}
        onChange={(e) => setCode(e.target.value.toUpperCase())}
        autoCapitalize="characters"
        autoComplete="one-time-code"
        required
        maxLength={12}
        data-testid="link-code"
      />
      <ErrorText error={error} />
      <Button type="submit" busy={busy}>
        {m('link')}
      </Button>
    </form>
  );
}

const TABS = ['check', 'today'] as const;
type Tab = (typeof TABS)[number];

function Signed({ auth, onSwitch }: { auth: MiniAuth; onSwitch: (shopId: string) => Promise<void> }) {
  const m = useMiniText();
  const [tab, setTab] = useState<Tab>('check');
  const ids = useId();
  const tabRefs = useRef<Partial<Record<Tab, HTMLButtonElement | null>>>({});
  // The WAI-ARIA tabs pattern with automatic activation: the arrow keys (wrapping), Home and End
  // select the tab they move to, since showing a panel costs nothing (both stay mounted).
  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    const at = TABS.indexOf(tab);
    const moves: Record<string, number> = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: TABS.length - 1 };
    const to = moves[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const next = TABS[(to + TABS.length) % TABS.length];
    setTab(next);
    tabRefs.current[next]?.focus();
  };
  const [quota, setQuota] = useState<Overview['quota'] | null>(null);
  const loadQuota = useCallback(() => {
    api<Overview>(ROUTES.overview)
      .then((o) => setQuota(o.quota))
      .catch(() => undefined);
  }, []);
  useEffect(loadQuota, [loadQuota, auth.shop.id]);
  // A 402 carries the count the service refused on: shown at once, so the line never says checks are
  // left beside "quota used up" (other channels may have used them since it was read). A 402 without
  // that count reads the overview again.
  const quotaRefused = useCallback(
    (left: number | null) => {
      if (left === null) return loadQuota();
      setQuota((q) => (q ? { ...q, remaining: left } : q));
    },
    [loadQuota],
  );
  return (
    <>
      <div className="mini-shop">
        {auth.shops.length > 1 ? (
          <label className="mini-switch">
            <span className="sr-only">{m('shop')}</span>
            <select value={auth.shop.id} onChange={(e) => void onSwitch(e.target.value)} data-testid="shop-switch">
              {auth.shops.map((s) => (
                <option key={s.shopId} value={s.shopId}>
                  {s.shopName}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span className="mini-shop-name">{auth.shop.name}</span>
        )}
        {quota && (
          <span className="mini-quota" data-testid="quota-left">
            {m('quotaLeft', { n: Math.max(0, quota.remaining).toLocaleString() })}
          </span>
        )}
      </div>
      <div className="mini-tabs" role="tablist">
        {TABS.map((name) => (
          <button
            key={name}
            ref={(el) => {
              tabRefs.current[name] = el;
            }}
            type="button"
            role="tab"
            id={`${ids}-tab-${name}`}
            aria-selected={tab === name}
            aria-controls={`${ids}-panel-${name}`}
            // Roving tabindex: Tab reaches the selected tab only, the arrow keys move between tabs.
            tabIndex={tab === name ? 0 : -1}
            onClick={() => setTab(name)}
            onKeyDown={onTabKey}
          >
            {m(name === 'check' ? 'tabCheck' : 'tabToday')}
          </button>
        ))}
      </div>
      <div className="mini-pad">
        {/* Both stay mounted: today's live list keeps counting while a slip is being checked. */}
        <div role="tabpanel" id={`${ids}-panel-check`} aria-labelledby={`${ids}-tab-check`} tabIndex={0} hidden={tab !== 'check'}>
          <CheckSlip key={auth.shop.id} onChecked={loadQuota} onQuotaRefused={quotaRefused} />
        </div>
        <div role="tabpanel" id={`${ids}-panel-today`} aria-labelledby={`${ids}-tab-today`} tabIndex={0} hidden={tab !== 'today'}>
          <Today key={auth.shop.id} />
        </div>
      </div>
    </>
  );
}

/** What a 402 says is left of the quota it refused on, when it says it. */
function remainingOf(error: unknown): number | null {
  if (!(error instanceof ApiError) || error.status !== 402) return null;
  const q = error.body.quota as { remaining?: unknown } | undefined;
  return typeof q?.remaining === 'number' ? q.remaining : null;
}

function CheckSlip({ onChecked, onQuotaRefused }: { onChecked: () => void; onQuotaRefused: (left: number | null) => void }) {
  const m = useMiniText();
  const [expected, setExpected] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TransactionRecord | null>(null);
  const [error, setError] = useState<unknown>(null);
  const firstUse = firstUseOf(error);
  const [amountError, setAmountError] = useState(false);

  async function check(f: File | undefined) {
    if (!f) return;
    setResult(null);
    setError(null);
    // An amount the service would refuse is said beside the field (its refusal is an English schema rule).
    const wrongAmount = amountProblem(expected) !== null;
    setAmountError(wrongAmount);
    if (wrongAmount) return;
    setBusy(true);
    try {
      setResult(
        await api<TransactionRecord>(ROUTES.verify, {
          method: 'POST',
          raw: f,
          contentType: f.type || 'application/octet-stream',
          query: { expectedAmount: amountQuery(expected) },
        }),
      );
      onChecked();
    } catch (e) {
      setError(e);
      if (e instanceof ApiError && e.status === 402) onQuotaRefused(remainingOf(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <Field
        label={m('expected')}
        inputMode="decimal"
        enterKeyHint="done"
        value={expected}
        error={amountError ? m('expectedInvalid') : null}
        onChange={(e) => {
          setExpected(e.target.value);
          setAmountError(false);
        }}
      />
      <SlipPickers actionsClassName="mini-actions" cameraLabel={m('camera')} pickLabel={m('pick')} onFile={(f) => void check(f)} />
      <div aria-live="polite" aria-busy={busy} className="result-region">
        {busy && <CheckingNotice label={m('checking')} />}
        {firstUse && (
          <ReusedSlipWarning
            firstUse={firstUse}
            link={(href, label) => (
              <a href={href} className="alert-action">
                {label}
              </a>
            )}
          />
        )}
        <ErrorText error={error} />
        {result && <ResultCard record={result} />}
      </div>
    </>
  );
}

const COUNTED: TxStatus[] = ['SUCCESS', 'DUPLICATE', 'AMOUNT_MISMATCH', 'RECEIVER_MISMATCH', 'FRAUD', 'INVALID', 'PROVIDER_ERROR'];
/** The newest checks the tab lists; the figures above them never come from this list (a busy day has more). */
const LIST_SIZE = 20;
/** Live results refresh the figures at most once in this window, so a busy shop does not flood the API. */
const FIGURES_REFRESH_MS = 1500;

interface TodayFigures {
  /** The money view's "received" today: the amount and the slips that make it up (integer satang). */
  received: { count: number; amountSatang: number };
  /** Today's live checks by status, counted by the server (not capped like a list page). */
  byStatus: Partial<Record<TxStatus, number>>;
}

function Today() {
  const m = useMiniText();
  const [items, setItems] = useState<TransactionRecord[] | null>(null);
  const [more, setMore] = useState(false);
  const [figures, setFigures] = useState<TodayFigures | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // The same figures as the dashboard's money card: its totals route for the money, the overview's
  // day counts for the statuses. Adding up a list page in the browser went wrong past 100 checks.
  const loadFigures = useCallback(async () => {
    const [totals, overview] = await Promise.all([api<TotalsSummary>(ROUTES.reportsTotals), api<Overview>(ROUTES.overview)]);
    const today = overview.daily[overview.daily.length - 1];
    setFigures({ received: totals.periods.today.received, byStatus: today?.byStatus ?? {} });
  }, []);
  const loadList = useCallback(async () => {
    const day = bangkokDay(new Date());
    try {
      const page = await api<{ items: TransactionRecord[]; nextCursor: string | null }>(ROUTES.transactions, {
        query: { from: bangkokDayStart(day), to: bangkokDayEnd(day), limit: LIST_SIZE },
      });
      setItems(page.items);
      setMore(page.nextCursor !== null);
    } catch (e) {
      setError(e);
    }
  }, []);
  const refreshSoon = useCallback(() => {
    // A throttle rather than a plain debounce: a shop with a result every second would otherwise never refresh.
    if (refreshTimer.current) return;
    refreshTimer.current = setTimeout(() => {
      refreshTimer.current = undefined;
      // A failed refresh keeps the figures shown; the next result or reconnect tries again.
      loadFigures().catch(() => undefined);
    }, FIGURES_REFRESH_MS);
  }, [loadFigures]);
  useEffect(() => {
    loadFigures().catch(setError);
    void loadList();
    return () => clearTimeout(refreshTimer.current);
  }, [loadFigures, loadList]);
  const live = useLiveResults(
    (r) => {
      if (bangkokDay(r.createdAt) !== bangkokDay(new Date())) return;
      setItems((prev) => {
        if (!prev || prev.some((x) => x.id === r.id)) return prev;
        if (prev.length >= LIST_SIZE) setMore(true);
        return [r, ...prev].slice(0, LIST_SIZE);
      });
      setFresh((s) => new Set(s).add(r.id));
      refreshSoon();
    },
    true,
    () => {
      loadFigures().catch(() => undefined);
      void loadList();
    },
  );

  if (error) return <ErrorText error={error} />;
  if (!items || !figures) return <p className="muted">{m('loading')}</p>;
  const counts = COUNTED.map((s) => [s, figures.byStatus[s] ?? 0] as const).filter(([, n]) => n > 0);
  return (
    <>
      <section className="mini-total" aria-label={m('todayVerified')}>
        <span className="muted small">{m('todayVerified')}</span>
        <strong className="mini-total-amount" data-testid="today-total">
          {formatBaht(figures.received.amountSatang)}
        </strong>
        <span className="muted small">
          <span data-testid="today-count">
            {m(figures.received.count === 1 ? 'todayCountOne' : 'todayCount', { n: figures.received.count })}
          </span>{' '}
          · {live === 'open' ? m('live') : m('reconnecting')}
        </span>
      </section>
      {counts.length > 0 && (
        <ul className="mini-counts" aria-label={m('byStatus')}>
          {counts.map(([s, n]) => (
            <li key={s}>
              <StatusBadge status={s} /> <span data-testid={`count-${s}`}>{n}</span>
            </li>
          ))}
        </ul>
      )}
      {items.length ? <TxList items={items} highlight={fresh} /> : <p className="muted">{m('todayEmpty')}</p>}
      {more && (
        <p className="muted small" data-testid="today-more">
          {m('todayNewest', { n: items.length })} <a href="/transactions">{m('todayAll')}</a>
        </p>
      )}
    </>
  );
}
