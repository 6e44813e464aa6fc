import { useState, type FormEvent } from 'react';
import { useAuth } from '../api/auth';
import { api } from '../api/client';
import { ROUTES } from '../api/routes';
import type { Settings } from '../api/types';
import { Alert, Button, Card, Checkbox, CopyButton, Dialog, ErrorText, Field, Loading, PageHeader, Select } from '../components/ui';
export const ERASED_KEY = 'slipcheck.erasedUntil';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { fieldRefusal, nameProblem } from '../lib/field-errors';
import { SummarySettingsCard } from '../components/reports';
import { ConfirmActions, CurrentPasswordField, NewPasswordField, SubmitRow } from '../components/form-parts';
import { useAsyncAction } from '../lib/use-async-action';
import { useSavedForm } from '../lib/use-saved-form';
import { SavedFormActions } from '../lib/saved-form-actions';

export function SettingsScreen() {
  const { t } = useI18n();
  const { me, reload: reloadMe } = useAuth();
  // Staff read the shop settings; changing them and erasing the shop are the owner's. Each exports their own data.
  const isOwner = me?.user.role !== 'staff';
  const {
    loaded: s,
    form,
    setForm,
    saved,
    busy,
    error,
    submit: save,
  } = useSavedForm(
    () => api<Settings>(ROUTES.settings),
    (f) =>
      api<Settings>(ROUTES.settings, {
        method: 'PATCH',
        body: { shopName: f.shopName.trim(), language: f.language, notifications: f.notifications, privacy: f.privacy },
      }),
    // The shop's language is for LINE and mails; the screen's language is the person's own switch.
    reloadMe,
  );
  // The name is checked here first; a refusal the server still names is shown beside it too, in words.
  const [nameError, setNameError] = useState<MessageKey | null>(null);
  // The retention months as typed. Clamping each keystroke to 1..120 made a field cleared with Backspace
  // show 1, so the "6" typed next became 16 (and "24" became 120), saved without a word. The text is kept
  // as typed; a whole number in range goes into the form, anything else is refused by the field's own
  // required/min/max when saving.
  const [monthsText, setMonthsText] = useState<string | null>(null);
  const refused = fieldRefusal(error, { shopName: 'form.nameInvalid' });
  const shownNameError = nameError ?? refused?.key;
  function submit(e: FormEvent) {
    const problem = form ? nameProblem(form.shopName) : null;
    setNameError(problem);
    if (problem) return e.preventDefault();
    save(e);
  }

  return (
    <>
      <PageHeader title={t('settings.title')} />
      <ErrorText error={s.error} />
      {!form ? (
        !s.error && <Loading />
      ) : (
        <Card title={t('settings.shop')}>
          <form onSubmit={submit}>
            <fieldset disabled={!isOwner}>
              <Field
                label={t('signup.shopName')}
                required
                maxLength={120}
                value={form.shopName}
                error={shownNameError ? t(shownNameError) : null}
                onChange={(e) => {
                  setForm({ ...form, shopName: e.target.value });
                  setNameError(null);
                }}
              />
              <Select
                label={t('common.language')}
                value={form.language}
                onChange={(e) => setForm({ ...form, language: e.target.value === 'en' ? 'en' : 'th' })}
                hint={t('settings.languageHint')}
              >
                <option value="th">ไทย (Thai)</option>
                <option value="en">English</option>
              </Select>
              <fieldset>
                <legend>{t('settings.notifications')}</legend>
                <Checkbox
                  label={t('settings.staleAlerts')}
                  hint={t('settings.staleAlertsHint')}
                  checked={form.notifications.staleSlipAlerts}
                  onChange={(e) => setForm({ ...form, notifications: { ...form.notifications, staleSlipAlerts: e.target.checked } })}
                />
                <Checkbox
                  label={t('settings.emailNotices')}
                  hint={t('settings.emailHint', { email: form.email })}
                  checked={form.notifications.email}
                  onChange={(e) => setForm({ ...form, notifications: { ...form.notifications, email: e.target.checked } })}
                />
              </fieldset>
              <fieldset>
                <legend>{t('settings.retention')}</legend>
                <Checkbox
                  label={t('settings.autoDelete')}
                  hint={t('settings.autoDeleteHint', { months: String(form.privacy.retentionMonths) })}
                  checked={form.privacy.autoDelete}
                  onChange={(e) => setForm({ ...form, privacy: { ...form.privacy, autoDelete: e.target.checked } })}
                />
                <Field
                  label={t('settings.retentionMonths')}
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={120}
                  required
                  value={monthsText ?? String(form.privacy.retentionMonths)}
                  onChange={(e) => {
                    const text = e.target.value;
                    setMonthsText(text);
                    const n = Number(text);
                    if (/^\d+$/.test(text) && n >= 1 && n <= 120) setForm({ ...form, privacy: { ...form.privacy, retentionMonths: n } });
                  }}
                />
              </fieldset>
              <SavedFormActions saved={saved} error={refused ? null : error} busy={busy} isOwner={isOwner} />
            </fieldset>
          </form>
        </Card>
      )}
      <SummarySettingsCard isOwner={isOwner} />
      {me && (
        <Card title={t('settings.shopId')}>
          <p className="field-hint">{t('settings.shopIdHint')}</p>
          <p className="mono break" data-testid="shop-id">
            {me.shop.id}
          </p>
          <CopyButton value={me.shop.id} />
        </Card>
      )}
      <PasswordCard />
      <ExportCard isOwner={isOwner} />
      {isOwner && me && <EraseCard email={me.user.email} />}
    </>
  );
}

function PasswordCard() {
  const { t } = useI18n();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, onSubmit } = useAsyncAction();
  const submit = onSubmit(async () => {
    setDone(false);
    await api(ROUTES.changePassword, { method: 'POST', body: { currentPassword: current, newPassword: next } });
    setDone(true);
    setCurrent('');
    setNext('');
  });
  return (
    <Card title={t('settings.password')}>
      <form onSubmit={submit}>
        <CurrentPasswordField label={t('settings.currentPassword')} value={current} onChange={(e) => setCurrent(e.target.value)} />
        <NewPasswordField label={t('reset.newPassword')} value={next} onChange={(e) => setNext(e.target.value)} />
        <div aria-live="polite">{done && <Alert kind="ok" title={t('settings.passwordChanged')} />}</div>
        <SubmitRow error={error} busy={busy} block={false}>
          {t('settings.changePassword')}
        </SubmitRow>
      </form>
    </Card>
  );
}

/** Owner: the shop's data; staff: their own (GET /privacy/export answers each with their own scope). */
function ExportCard({ isOwner }: { isOwner: boolean }) {
  const { t } = useI18n();
  const { busy, error, run } = useAsyncAction();
  const download = () =>
    run(async () => {
      const data = await api<unknown>(ROUTES.privacyExport);
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = 'slipcheck-export.json';
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    });
  return (
    <Card title={t('settings.privacy')}>
      <p>{t(isOwner ? 'settings.exportBody' : 'settings.exportBodyStaff')}</p>
      <ErrorText error={error} />
      <Button variant="secondary" busy={busy} onClick={() => void download()}>
        {t('settings.export')}
      </Button>
    </Card>
  );
}

/** Erasure (PDPA): what it means before the password is asked; the API is POST /privacy/erase. */
function EraseCard({ email }: { email: string }) {
  const { t } = useI18n();
  const { logout } = useAuth();
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const { busy, error, setError, onSubmit } = useAsyncAction();
  const submit = onSubmit(async () => {
    const r = await api<{ erased: boolean; purgeAfter: string }>(ROUTES.privacyErase, {
      method: 'POST',
      body: { password, confirm: 'DELETE' },
    });
    setOpen(false);
    setPassword('');
    // Every session is revoked now: sign out here too; the sign-in page says it worked (session storage
    // survives the redirect that signing out causes, a query string would not).
    try {
      sessionStorage.setItem(ERASED_KEY, r.purgeAfter);
    } catch {
      /* storage blocked: no notice */
    }
    await logout();
    // A fresh page load: nothing of the erased shop stays in memory, and no screen can call the API again.
    window.location.assign('/login');
  });
  const meaning = (
    <ul className="erase-meaning">
      <li>{t('erase.now')}</li>
      <li>{t('erase.after')}</li>
      <li>{t('erase.kept')}</li>
      <li>{t('erase.mail', { email })}</li>
    </ul>
  );
  return (
    <Card title={t('erase.title')} className="danger-zone">
      <p>{t('erase.intro')}</p>
      {meaning}
      <p className="field-hint">{t('erase.exportFirst')}</p>
      <Button
        variant="danger"
        onClick={() => {
          setError(null);
          setOpen(true);
        }}
      >
        {t('erase.open')}
      </Button>
      <Dialog open={open} title={t('erase.title')} onClose={() => setOpen(false)}>
        <form onSubmit={submit}>
          {meaning}
          <CurrentPasswordField label={t('erase.password')} value={password} onChange={(e) => setPassword(e.target.value)} />
          <ErrorText error={error} />
          <ConfirmActions submit busy={busy} confirmLabel={t('erase.confirm')} onCancel={() => setOpen(false)} />
        </form>
      </Dialog>
    </Card>
  );
}
