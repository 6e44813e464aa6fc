import { useState, type FormEvent, type ReactNode } from 'react';
import { LineLoginButton } from '../components/line-login';
import { useAuth } from '../api/auth';
import { api, lastSignOutReason, pickToken, setAccessToken } from '../api/client';
import { ROUTES } from '../api/routes';
import type { PlanCard } from '../api/types';
import { Alert, Card, ErrorText, Field, Loading } from '../components/ui';
import { EmailField, CurrentPasswordField, NewPasswordField, SubmitRow } from '../components/form-parts';
import { AuthLayout } from '../components/layout';
import { useI18n } from '../i18n/i18n';
import { formatDateTime, formatMoney } from '../lib/format';
import { Link, nextAfterSignIn, useRouter } from '../lib/router';
import { useAsyncAction } from '../lib/use-async-action';
import { useLoad } from '../lib/use-load';
import { ERASED_KEY } from './settings-screen';

/** The frame of every signed-out page: the page's heading, its content, then the links to the other pages. */
function AuthPage({
  title,
  className = 'auth-card',
  links,
  children,
}: {
  title: string;
  className?: string;
  links: ReactNode;
  children: ReactNode;
}) {
  return (
    <AuthLayout>
      <Card className={className}>
        <h1 id="page-title" tabIndex={-1}>
          {title}
        </h1>
        {children}
        <p className="auth-links">{links}</p>
      </Card>
    </AuthLayout>
  );
}

export function LoginScreen() {
  const { t, lang } = useI18n();
  const { login } = useAuth();
  const { navigate, search } = useRouter();
  // Back here right after "delete shop and account" (Settings): say it worked and when the purge runs.
  const [erasedUntil] = useState(() => {
    try {
      return sessionStorage.getItem(ERASED_KEY);
    } catch {
      return null;
    }
  });
  // Sent here because the service refused the session: say why (removed from the shop: ask the owner).
  const [signedOut] = useState(lastSignOutReason);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, onSubmit } = useAsyncAction();
  const submit = onSubmit(async () => {
    await login(email, password);
    try {
      sessionStorage.removeItem(ERASED_KEY);
    } catch {
      /* ignore */
    }
    navigate(nextAfterSignIn(search), { replace: true });
  });
  return (
    <AuthPage
      title={t('auth.loginTitle')}
      links={
        <>
          <Link to="/forgot-password">{t('auth.forgot')}</Link>
          <span aria-hidden="true"> · </span>
          <Link to="/signup">{t('auth.noAccount')}</Link>
        </>
      }
    >
      {erasedUntil && !Number.isNaN(Date.parse(erasedUntil)) && (
        <Alert kind="ok" title={t('erase.doneTitle')}>
          {t('erase.doneBody', { time: formatDateTime(erasedUntil, lang) })}
        </Alert>
      )}
      {signedOut === 'MEMBER_REMOVED' ? (
        <Alert kind="warn" title={t('auth.removedTitle')}>
          {t('auth.removedBody')}
        </Alert>
      ) : (
        signedOut && <Alert kind="info" title={t(`error.${signedOut}`)} />
      )}
      <p className="muted">{t('auth.tagline')}</p>
      <form onSubmit={submit} noValidate={false}>
        <EmailField value={email} onChange={(e) => setEmail(e.target.value)} />
        <CurrentPasswordField value={password} onChange={(e) => setPassword(e.target.value)} />
        <SubmitRow error={error} busy={busy}>
          {t('auth.login')}
        </SubmitRow>
      </form>
      <LineLoginButton />
    </AuthPage>
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
  const { busy, error, onSubmit } = useAsyncAction();
  const cards = (plans.data?.items ?? []).filter((p) => p.code !== 'TRIAL');
  const submit = onSubmit(async () => {
    await signup({ email, password, shopName, planCode, language: lang });
    navigate('/?welcome=1', { replace: true });
  });
  return (
    <AuthPage title={t('signup.title')} className="auth-card auth-wide" links={<Link to="/login">{t('auth.haveAccount')}</Link>}>
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
        <EmailField value={email} onChange={(e) => setEmail(e.target.value)} />
        <NewPasswordField value={password} onChange={(e) => setPassword(e.target.value)} />
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
        <SubmitRow error={error} busy={busy}>
          {t('signup.submit')}
        </SubmitRow>
      </form>
    </AuthPage>
  );
}

export function ForgotScreen() {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const { busy, error, onSubmit } = useAsyncAction();
  const submit = onSubmit(async () => {
    await api(ROUTES.resetRequest, { method: 'POST', body: { email }, noAuth: true });
    setSent(true);
  });
  return (
    <AuthPage title={t('forgot.title')} links={<Link to="/login">{t('auth.backToLogin')}</Link>}>
      {sent ? (
        <Alert kind="ok" title={t('forgot.sentTitle')}>
          {t('forgot.sentBody')}
        </Alert>
      ) : (
        <form onSubmit={submit}>
          <p>{t('forgot.intro')}</p>
          <EmailField value={email} onChange={(e) => setEmail(e.target.value)} />
          <SubmitRow error={error} busy={busy}>
            {t('forgot.submit')}
          </SubmitRow>
        </form>
      )}
    </AuthPage>
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
  const { busy, error, run } = useAsyncAction();
  const mismatch = confirm.length > 0 && confirm !== password;
  function submit(e: FormEvent) {
    e.preventDefault();
    if (!mismatch) void run(() => onSubmit(password));
  }
  return (
    <form onSubmit={submit}>
      {intro && <p>{intro}</p>}
      <NewPasswordField label={t('reset.newPassword')} value={password} onChange={(e) => setPassword(e.target.value)} />
      <Field
        label={t('reset.confirm')}
        type="password"
        autoComplete="new-password"
        required
        value={confirm}
        error={mismatch ? t('reset.mismatch') : null}
        onChange={(e) => setConfirm(e.target.value)}
      />
      <SubmitRow error={error} busy={busy}>
        {submitLabel}
      </SubmitRow>
    </form>
  );
}

export function ResetScreen() {
  const { t } = useI18n();
  const { search } = useRouter();
  const token = search.get('token') ?? '';
  const [done, setDone] = useState(false);
  return (
    <AuthPage title={t('reset.title')} links={<Link to="/login">{t('auth.backToLogin')}</Link>}>
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
    </AuthPage>
  );
}

/** The link from a team invite e-mail: set a password, join the shop as staff, signed in at once. */
export function AcceptInviteScreen() {
  const { t } = useI18n();
  const { reload } = useAuth();
  const { search, navigate } = useRouter();
  const token = search.get('token') ?? '';
  return (
    <AuthPage title={t('accept.title')} links={<Link to="/login">{t('auth.backToLogin')}</Link>}>
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
    </AuthPage>
  );
}
