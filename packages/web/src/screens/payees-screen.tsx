import { useAuth } from '../api/auth';
import { useState } from 'react';
import { api } from '../api/client';
import { ROUTES } from '../api/routes';
import type { Payee } from '../api/types';
import { Alert, Button, Card, Checkbox, Dialog, Empty, ErrorText, Field, Loading, PageHeader, Select } from '../components/ui';
import { ConfirmActions, Segmented, SubmitRow } from '../components/form-parts';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { BANKS, bankName } from '../lib/banks';
import { fieldRefusal, nameProblem, payeeNumberProblem, payeeNumberRule } from '../lib/field-errors';
import { useAsyncAction } from '../lib/use-async-action';
import { useLoad } from '../lib/use-load';

export function PayeesScreen() {
  const { t, lang } = useI18n();
  const { me } = useAuth();
  // Staff see the accounts slips are matched against; adding or changing them is the owner's.
  const isOwner = me?.user.role !== 'staff';
  const list = useLoad(() => api<{ items: Payee[] }>(ROUTES.payees));
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<Payee | null>(null);
  const [removing, setRemoving] = useState<Payee | null>(null);
  const { busyKey: busyId, error, run } = useAsyncAction();
  const items = list.data?.items ?? [];
  const act = (id: string, fn: () => Promise<unknown>) =>
    run(async () => {
      await fn();
      await list.reload();
    }, id);

  return (
    <>
      <PageHeader
        title={t('payees.title')}
        intro={t('payees.intro')}
        actions={isOwner ? <Button onClick={() => setAdding(true)}>{t('payees.add')}</Button> : undefined}
      />
      <ErrorText error={error ?? list.error} />
      {/* A list that did not load is not an empty one: "no payee account" would send the owner to add it again. */}
      {list.loading && !list.data ? (
        <Loading />
      ) : !list.data ? null : items.length === 0 ? (
        <Card>
          <Alert kind="warn" title={t('payees.emptyTitle')}>
            {t('payees.emptyBody')}
          </Alert>
          <Empty title={t('payees.emptyList')}>
            {isOwner ? (
              <Button onClick={() => setAdding(true)}>{t('payees.add')}</Button>
            ) : (
              <Alert kind="info" title={t('common.ownerOnly')} />
            )}
          </Empty>
        </Card>
      ) : (
        <ul className="cards-list">
          {items.map((p) => (
            <li key={p.id} className="card payee">
              <div className="payee-main">
                <p className="payee-holder">{p.holder}</p>
                <p className="muted">
                  {p.kind === 'PROMPTPAY'
                    ? `PromptPay (${t(`payees.proxy.${p.proxyType ?? 'PHONE'}` as MessageKey)})`
                    : bankName(p.bankCode, lang)}
                  {' · '}
                  {/* A plain span cannot carry a name (aria-label is ignored there): the dots are hidden from
                      screen readers and the words "ending in 6609" are read in their place. */}
                  <span className="mono" aria-hidden="true">
                    •••• {p.accountLast4}
                  </span>
                  <span className="sr-only">{t('payees.endingIn', { last4: p.accountLast4 })}</span>
                </p>
                <p className="tags">
                  {p.isPrimary && <span className="tag tag-primary">{t('payees.primary')}</span>}
                  {p.status !== 'ACTIVE' && <span className="tag">{t('payees.disabled')}</span>}
                </p>
              </div>
              {isOwner && (
                <div className="row-actions">
                  {!p.isPrimary && (
                    <Button
                      variant="secondary"
                      busy={busyId === p.id}
                      onClick={() => void act(p.id, () => api(ROUTES.payee(p.id), { method: 'PATCH', body: { isPrimary: true } }))}
                    >
                      {t('payees.makePrimary')}
                    </Button>
                  )}
                  <Button variant="secondary" onClick={() => setEditing(p)}>
                    {t('common.edit')}
                  </Button>
                  <Button variant="danger" onClick={() => setRemoving(p)}>
                    {t('common.remove')}
                  </Button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <Dialog open={adding} title={t('payees.add')} onClose={() => setAdding(false)}>
        <PayeeForm
          onDone={async () => {
            setAdding(false);
            await list.reload();
          }}
        />
      </Dialog>
      <Dialog open={!!editing} title={t('payees.edit')} onClose={() => setEditing(null)}>
        {editing && (
          <EditPayee
            payee={editing}
            onDone={async () => {
              setEditing(null);
              await list.reload();
            }}
          />
        )}
      </Dialog>
      <Dialog open={!!removing} title={t('payees.removeTitle')} onClose={() => setRemoving(null)}>
        {removing && (
          <>
            <p>{t('payees.removeBody', { holder: removing.holder, last4: removing.accountLast4 })}</p>
            {items.length === 1 && <Alert kind="warn" title={t('payees.emptyBody')} />}
            <ConfirmActions
              busy={busyId === removing.id}
              confirmLabel={t('common.remove')}
              onCancel={() => setRemoving(null)}
              onConfirm={() => {
                const p = removing;
                setRemoving(null);
                void act(p.id, () => api(ROUTES.payee(p.id), { method: 'DELETE' }));
              }}
            />
          </>
        )}
      </Dialog>
    </>
  );
}

function PayeeForm({ onDone }: { onDone: () => Promise<void> }) {
  const { t, lang } = useI18n();
  const [kind, setKind] = useState<'BANK' | 'PROMPTPAY'>('BANK');
  const [bankCode, setBankCode] = useState('004');
  const [proxyType, setProxyType] = useState('PHONE');
  const [accountNumber, setAccountNumber] = useState('');
  const [holder, setHolder] = useState('');
  const [isPrimary, setPrimary] = useState(false);
  // The form's own checks first, so a typo is told beside its field in the page's language.
  const [problems, setProblems] = useState<{ accountNumber?: MessageKey | null; holder?: MessageKey | null }>({});
  const { busy, error, onSubmit } = useAsyncAction();
  const refused = fieldRefusal(error, { accountNumber: payeeNumberRule(kind, proxyType), holder: 'form.nameInvalid' });
  const fieldError = (f: 'accountNumber' | 'holder') => {
    const key = problems[f] ?? (refused?.field === f ? refused.key : null);
    return key ? t(key) : null;
  };
  const submit = onSubmit(async () => {
    const found = { accountNumber: payeeNumberProblem(kind, proxyType, accountNumber), holder: nameProblem(holder) };
    setProblems(found);
    if (found.accountNumber || found.holder) return;
    const body =
      kind === 'BANK'
        ? { kind, bankCode, accountNumber: accountNumber.replace(/[\s-]/g, ''), holder: holder.trim(), isPrimary }
        : { kind, proxyType, accountNumber: accountNumber.replace(/[\s-]/g, ''), holder: holder.trim(), isPrimary };
    await api(ROUTES.payees, { method: 'POST', body });
    setAccountNumber(''); // the full number is not kept in the page once saved
    await onDone();
  });
  return (
    <form onSubmit={submit}>
      <Segmented
        legend={t('payees.kind')}
        name="kind"
        options={[
          { value: 'BANK', label: t('payees.kindBank') },
          { value: 'PROMPTPAY', label: 'PromptPay' },
        ]}
        value={kind}
        onChange={setKind}
      />
      {kind === 'BANK' ? (
        <Select label={t('payees.bank')} value={bankCode} onChange={(e) => setBankCode(e.target.value)}>
          {BANKS.map((b) => (
            <option key={b.code} value={b.code}>
              {lang === 'th' ? b.th : b.en} ({b.short})
            </option>
          ))}
        </Select>
      ) : (
        <Select label={t('payees.proxyType')} value={proxyType} onChange={(e) => setProxyType(e.target.value)}>
          {['PHONE', 'NATID', 'EWALLET'].map((p) => (
            <option key={p} value={p}>
              {t(`payees.proxy.${p}` as MessageKey)}
            </option>
          ))}
        </Select>
      )}
      <Field
        label={kind === 'BANK' ? t('payees.accountNumber') : t('payees.promptpayId')}
        inputMode="numeric"
        autoComplete="off"
        required
        hint={t('payees.numberOnce')}
        value={accountNumber}
        error={fieldError('accountNumber')}
        onChange={(e) => {
          setAccountNumber(e.target.value);
          setProblems({ ...problems, accountNumber: null });
        }}
      />
      <Field
        label={t('payees.holder')}
        required
        maxLength={120}
        hint={t('payees.holderHint')}
        value={holder}
        error={fieldError('holder')}
        onChange={(e) => {
          setHolder(e.target.value);
          setProblems({ ...problems, holder: null });
        }}
      />
      <Checkbox label={t('payees.setPrimary')} checked={isPrimary} onChange={(e) => setPrimary(e.target.checked)} />
      <SubmitRow error={refused ? null : error} busy={busy}>
        {t('common.save')}
      </SubmitRow>
    </form>
  );
}

function EditPayee({ payee, onDone }: { payee: Payee; onDone: () => Promise<void> }) {
  const { t } = useI18n();
  const [holder, setHolder] = useState(payee.holder);
  const [active, setActive] = useState(payee.status === 'ACTIVE');
  const [problem, setProblem] = useState<MessageKey | null>(null);
  const { busy, error, onSubmit } = useAsyncAction();
  const refused = fieldRefusal(error, { holder: 'form.nameInvalid' });
  const holderError = problem ?? refused?.key;
  const submit = onSubmit(async () => {
    const found = nameProblem(holder);
    setProblem(found);
    if (found) return;
    await api(ROUTES.payee(payee.id), { method: 'PATCH', body: { holder: holder.trim(), status: active ? 'ACTIVE' : 'DISABLED' } });
    await onDone();
  });
  return (
    <form onSubmit={submit}>
      <p className="muted">{t('payees.numberLocked', { last4: payee.accountLast4 })}</p>
      <Field
        label={t('payees.holder')}
        required
        maxLength={120}
        value={holder}
        error={holderError ? t(holderError) : null}
        onChange={(e) => {
          setHolder(e.target.value);
          setProblem(null);
        }}
      />
      <Checkbox label={t('payees.active')} checked={active} onChange={(e) => setActive(e.target.checked)} />
      <SubmitRow error={refused ? null : error} busy={busy}>
        {t('common.save')}
      </SubmitRow>
    </form>
  );
}
