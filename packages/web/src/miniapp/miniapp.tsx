import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/client';
import { hasErrorCode } from '../api/error-code';
import { useLiveResults } from '../api/live';
import { ROUTES } from '../api/routes';
import type { Overview, TransactionRecord, TxStatus } from '../api/types';
import { LangSwitch } from '../components/layout';
import { ResultCard } from '../components/result-card';
import { StatusBadge } from '../components/status';
import { TxList } from '../components/tx-list';
import { CheckingNotice, SlipPickers } from '../components/slip-check';
import { Alert, Button, ErrorText, Field } from '../components/ui';
import { bangkokDay, bangkokDayEnd, bangkokDayStart } from '../lib/format';
import { amountQuery, formatBaht, satangFromAmount } from '../lib/money';
import { linkWithCode, liffIdToken, savedShop, signInWithLine, switchShop, type MiniAuth, type MiniConfig } from './liff-session';
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
          setPhase({ kind: 'ready', auth: await signInWithLine(idToken, savedShop()), idToken });
        } catch (e) {
          if (hasErrorCode(e, 'LINE_NOT_LINKED')) return setPhase({ kind: 'unlinked', idToken });
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
        <strong className="mini-title">{m('title')}</strong>
        <LangSwitch />
      </header>
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

function Signed({ auth, onSwitch }: { auth: MiniAuth; onSwitch: (shopId: string) => Promise<void> }) {
  const m = useMiniText();
  const [tab, setTab] = useState<'check' | 'today'>('check');
  const [quota, setQuota] = useState<Overview['quota'] | null>(null);
  const loadQuota = useCallback(() => {
    api<Overview>(ROUTES.overview)
      .then((o) => setQuota(o.quota))
      .catch(() => undefined);
  }, []);
  useEffect(loadQuota, [loadQuota, auth.shop.id]);
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
      <nav className="mini-tabs" role="tablist">
        <button type="button" role="tab" aria-selected={tab === 'check'} onClick={() => setTab('check')}>
          {m('tabCheck')}
        </button>
        <button type="button" role="tab" aria-selected={tab === 'today'} onClick={() => setTab('today')}>
          {m('tabToday')}
        </button>
      </nav>
      <main className="mini-pad">
        {/* Both stay mounted: today's live list keeps counting while a slip is being checked. */}
        <div hidden={tab !== 'check'}>
          <CheckSlip key={auth.shop.id} onChecked={loadQuota} />
        </div>
        <div hidden={tab !== 'today'}>
          <Today key={auth.shop.id} />
        </div>
      </main>
    </>
  );
}

function CheckSlip({ onChecked }: { onChecked: () => void }) {
  const m = useMiniText();
  const [expected, setExpected] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TransactionRecord | null>(null);
  const [error, setError] = useState<unknown>(null);

  async function check(f: File | undefined) {
    if (!f) return;
    setBusy(true);
    setResult(null);
    setError(null);
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
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <Field label={m('expected')} inputMode="decimal" enterKeyHint="done" value={expected} onChange={(e) => setExpected(e.target.value)} />
      <SlipPickers actionsClassName="mini-actions" cameraLabel={m('camera')} pickLabel={m('pick')} onFile={(f) => void check(f)} />
      <div aria-live="polite" aria-busy={busy} className="result-region">
        {busy && <CheckingNotice label={m('checking')} />}
        <ErrorText error={error} />
        {result && <ResultCard record={result} />}
      </div>
    </>
  );
}

const COUNTED: TxStatus[] = ['SUCCESS', 'DUPLICATE', 'AMOUNT_MISMATCH', 'RECEIVER_MISMATCH', 'FRAUD', 'INVALID', 'PROVIDER_ERROR'];

function Today() {
  const m = useMiniText();
  const [items, setItems] = useState<TransactionRecord[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const load = useCallback(async () => {
    const day = bangkokDay(new Date());
    try {
      const page = await api<{ items: TransactionRecord[] }>(ROUTES.transactions, {
        query: { from: bangkokDayStart(day), to: bangkokDayEnd(day), limit: 100 },
      });
      setItems(page.items);
    } catch (e) {
      setError(e);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  const live = useLiveResults(
    (r) => {
      if (bangkokDay(r.createdAt) !== bangkokDay(new Date())) return;
      setItems((prev) => (prev && !prev.some((x) => x.id === r.id) ? [r, ...prev] : prev));
      setFresh((s) => new Set(s).add(r.id));
    },
    true,
    () => void load(),
  );

  if (error) return <ErrorText error={error} />;
  if (!items) return <p className="muted">{m('loading')}</p>;
  // Satang integers: a float sum of many amounts can be off by a satang.
  // The money view's "received" (docs/dashboard-api.md): every genuine transfer into the shop's accounts,
  // amount mismatches and stale slips included, live only; the dashboard and the daily summary say the same.
  const verifiedSatang = items
    .filter(
      (r) =>
        r.environment === 'live' &&
        r.amount !== null &&
        (r.status === 'SUCCESS' || r.status === 'AMOUNT_MISMATCH' || (r.status === 'INVALID' && r.errorCode === 'STALE_SLIP')),
    )
    .reduce((s, r) => s + (satangFromAmount(r.amount ?? 0) ?? 0), 0);
  const counts = COUNTED.map((s) => [s, items.filter((r) => r.status === s).length] as const).filter(([, n]) => n > 0);
  return (
    <>
      <section className="mini-total" aria-label={m('todayVerified')}>
        <span className="muted small">{m('todayVerified')}</span>
        <strong className="mini-total-amount" data-testid="today-total">
          {formatBaht(verifiedSatang)}
        </strong>
        <span className="muted small">
          {m('todayCount', { n: items.length })} · {live === 'open' ? m('live') : m('reconnecting')}
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
    </>
  );
}
