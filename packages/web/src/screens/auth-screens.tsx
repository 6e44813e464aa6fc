import { useState, type FormEvent } from 'react';
import { LineLoginButton } from '../components/line-login';
import { useAuth } from '../api/auth';
import { api, pickToken, setAccessToken } from '../api/client';
import { ROUTES } from '../api/routes';
import type { PlanCard } from '../api/types';
import { Alert, Button, Card, ErrorText, Field, Loading } from '../components/ui';
import { AuthLayout } from '../components/layout';
import { useI18n } from '../i18n/i18n';
import { formatDateTime, formatMoney } from '../lib/format';
import { Link, useRouter } from '../lib/router';
import { useLoad } from '../lib/use-load';
import { ERASED_KEY } from './settings-screen';

export function LoginScreen() {
  const { t, lang } = useI18n();
  const { login } = useAuth();
  const { navigate } = useRouter();
  // Back here right after "delete shop and account" (Settings): say it worked and when the purge runs.
  const [erasedUntil] = useState(() => {
    try {
      return sessionStorage.getItem(ERASED_KEY);
    } catch {
      return null;
    }
  });
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(email, password);
      try {
        sessionStorage.removeItem(ERASED_KEY);
      } catch {
        /* ignore */
      }
      navigate('/', { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <AuthLayout>
      <Card className="auth-card">
        <h1 id="page-title" tabIndex={-1}>
          {t('auth.loginTitle')}
        </h1>
        {erasedUntil && !Number.isNaN(Date.parse(erasedUntil)) && (
          <Alert kind="ok" title={t('erase.doneTitle')}>
            {t('erase.doneBody', { time: formatDateTime(erasedUntil, lang) })}
          </Alert>
        )}
        <p className="muted">{t('auth.tagline')}</p>
        <form onSubmit={submit} noValidate={false}>
          <Field
            label={t('auth.email')}
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <Field
            label={t('auth.password')}
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <ErrorText error={error} />
          <Button type="submit" busy={busy} className="btn-block">
            {t('auth.login')}
          </Button>
        </form>
        <LineLoginButton />
        <p className="auth-links">
          <Link to="/forgot-password">{t('auth.forgot')}</Link>
          <span aria-hidden="true"> · </span>
          <Link to="/signup">{t('auth.noAccount')}</Link>
        </p>
      </Card>
    </AuthLayout>
  );
}

export function SignupScreen() {
  const { t, lang } = useI18n();
  const { signup } = useAuth();
  const { navigate } = useRouter();
  const plans = useLoad(() => api<{ items: PlanCard[] }>(ROUTES.plans, { noAuth: true }));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [shopName, setShopName] = useState('');
  const [planCode, setPlanCode] = useState('STARTER');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const cards = (plans.data?.items ?? []).filter((p) => p.code !== 'TRIAL');
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signup({ email, password, shopName, planCode, language: lang });
      navigate('/?welcome=1', { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <AuthLayout>
      <Card className="auth-card auth-wide">
        <h1 id="page-title" tabIndex={-1}>
          {t('signup.title')}
        </h1>
        <Alert kind="info" title={t('signup.trialTitle')}>
          {t('signup.trialBody')}
        </Alert>
        <form onSubmit={submit}>
          <Field
            label={t('signup.shopName')}
            autoComplete="organization"
            required
            maxLength={120}
            value={shopName}
            onChange={(e) => setShopName(e.target.value)}
          />
          <Field
            label={t('auth.email')}
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <Field
            label={t('auth.password')}
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            maxLength={200}
            hint={t('auth.passwordHint')}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <fieldset className="plan-cards">
            <legend>{t('signup.choosePlan')}</legend>
            {plans.loading && !plans.data && <Loading />}
            <ErrorText error={plans.error} />
            <div className="plan-grid">
              {cards.map((p) => (
                <label key={p.code} className={`plan-card ${planCode === p.code ? 'selected' : ''}`}>
                  <input type="radio" name="plan" value={p.code} checked={planCode === p.code} onChange={() => setPlanCode(p.code)} />
                  <span className="plan-name">{p.code === 'TRIAL' ? t('plan.TRIAL') : p.name}</span>
                  <span className="plan-price">{t('signup.perMonth', { price: formatMoney(p.priceThb) })}</span>
                  <span className="plan-feat">{t('signup.slipsPerMonth', { n: p.monthlyLimit.toLocaleString() })}</span>
                  <span className="plan-feat">{p.apiAccess ? t('signup.withApi') : t('signup.noApi')}</span>
                  <span className="plan-feat">{p.webhooks ? t('signup.withWebhooks') : t('signup.noWebhooks')}</span>
                </label>
              ))}
            </div>
          </fieldset>
          <ol className="next-steps">
            <li>{t('signup.step1')}</li>
            <li>{t('signup.step2')}</li>
            <li>{t('signup.step3')}</li>
          </ol>
          <ErrorText error={error} />
          <Button type="submit" busy={busy} className="btn-block">
            {t('signup.submit')}
          </Button>
        </form>
        <p className="auth-links">
          <Link to="/login">{t('auth.haveAccount')}</Link>
        </p>
      </Card>
    </AuthLayout>
  );
}

export function ForgotScreen() {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api(ROUTES.resetRequest, { method: 'POST', body: { email }, noAuth: true });
      setSent(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <AuthLayout>
      <Card className="auth-card">
        <h1 id="page-title" tabIndex={-1}>
          {t('forgot.title')}
        </h1>
        {sent ? (
          <Alert kind="ok" title={t('forgot.sentTitle')}>
            {t('forgot.sentBody')}
          </Alert>
        ) : (
          <form onSubmit={submit}>
            <p>{t('forgot.intro')}</p>
            <Field
              label={t('auth.email')}
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
            <ErrorText error={error} />
            <Button type="submit" busy={busy} className="btn-block">
              {t('forgot.submit')}
            </Button>
          </form>
        )}
        <p className="auth-links">
          <Link to="/login">{t('auth.backToLogin')}</Link>
        </p>
      </Card>
    </AuthLayout>
  );
}

/** A new password typed twice; used by the reset link and the team invite link. */
function NewPasswordForm({
  intro,
  submitLabel,
  onSubmit,
}: {
  intro?: string;
  submitLabel: string;
  onSubmit: (password: string) => Promise<void>;
}) {
  const { t } = useI18n();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const mismatch = confirm.length > 0 && confirm !== password;
  async function submit(e: FormEvent) {
    e.preventDefault();
    if (mismatch) return;
    setBusy(true);
    setError(null);
    try {
      await onSubmit(password);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <form onSubmit={submit}>
      {intro && <p>{intro}</p>}
      <Field
        label={t('reset.newPassword')}
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        maxLength={200}
        hint={t('auth.passwordHint')}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <Field
        label={t('reset.confirm')}
        type="password"
        autoComplete="new-password"
        required
        value={confirm}
        error={mismatch ? t('reset.mismatch') : null}
        onChange={(e) => setConfirm(e.target.value)}
      />
      <ErrorText error={error} />
      <Button type="submit" busy={busy} className="btn-block">
        {submitLabel}
      </Button>
    </form>
  );
}

export function ResetScreen() {
  const { t } = useI18n();
  const { search } = useRouter();
  const token = search.get('token') ?? '';
  const [done, setDone] = useState(false);
  return (
    <AuthLayout>
      <Card className="auth-card">
        <h1 id="page-title" tabIndex={-1}>
          {t('reset.title')}
        </h1>
        {!token && <Alert kind="error" title={t('error.RESET_TOKEN_INVALID')} />}
        {done ? (
          <Alert kind="ok" title={t('reset.done')}>
            <Link to="/login">{t('auth.backToLogin')}</Link>
          </Alert>
        ) : (
          token && (
            <NewPasswordForm
              submitLabel={t('reset.submit')}
              onSubmit={async (password) => {
                await api(ROUTES.resetConfirm, { method: 'POST', body: { token, password }, noAuth: true });
                setDone(true);
              }}
            />
          )
        )}
        <p className="auth-links">
          <Link to="/login">{t('auth.backToLogin')}</Link>
        </p>
      </Card>
    </AuthLayout>
  );
}

/** The link from a team invite e-mail: set a password, join the shop as staff, signed in at once. */
export function AcceptInviteScreen() {
  const { t } = useI18n();
  const { reload } = useAuth();
  const { search, navigate } = useRouter();
  const token = search.get('token') ?? '';
  return (
    <AuthLayout>
      <Card className="auth-card">
        <h1 id="page-title" tabIndex={-1}>
          {t('accept.title')}
        </h1>
        {!token ? (
          <Alert kind="error" title={t('error.INVITE_INVALID')} />
        ) : (
          <NewPasswordForm
            intro={t('accept.intro')}
            submitLabel={t('accept.submit')}
            onSubmit={async (password) => {
              const data = await api<Record<string, unknown>>(ROUTES.acceptInvite, {
                method: 'POST',
                body: { token, password },
                noAuth: true,
              });
              setAccessToken(pickToken(data));
              await reload();
              navigate('/', { replace: true });
            }}
          />
        )}
        <p className="auth-links">
          <Link to="/login">{t('auth.backToLogin')}</Link>
        </p>
      </Card>
    </AuthLayout>
  );
}
