import { useEffect } from 'react';
import { AuthProvider, useAuth } from './api/auth';
import { AppShell, AuthLayout, NAV } from './components/layout';
import { Button, Card, Empty, ErrorText, Loading, PageHeader } from './components/ui';
import { I18nProvider, useI18n } from './i18n/i18n';
import { loginPathFor, match, nextAfterSignIn, RouterProvider, takeKeptNext, useRouter, Link } from './lib/router';
import { AcceptInviteScreen, ForgotScreen, LoginScreen, ResetScreen, SignupScreen } from './screens/auth-screens';
import { CheckScreen } from './screens/check-screen';
import { KeysScreen } from './screens/keys-screen';
import { LineScreen } from './screens/line-screen';
import { OverviewScreen } from './screens/overview-screen';
import { PayeesScreen } from './screens/payees-screen';
import { SecurityScreen } from './screens/security-screen';
import { SettingsScreen } from './screens/settings-screen';
import { TeamScreen } from './screens/team-screen';
import { TransactionDetailScreen, TransactionsScreen } from './screens/transactions-screen';
import { WebhooksScreen } from './screens/webhooks-screen';

const PUBLIC: Record<string, () => React.JSX.Element> = {
  '/login': LoginScreen,
  '/signup': SignupScreen,
  '/forgot-password': ForgotScreen,
  '/reset-password': ResetScreen,
  '/accept-invite': AcceptInviteScreen,
};

/** Screens staff cannot use (the server answers 403 OWNER_ONLY there anyway). */
export const OWNER_ONLY_PATHS = new Set(['/keys', '/webhooks']);

function Routes() {
  const { path, search, navigate } = useRouter();
  const { me, loading, unreachable, retry } = useAuth();
  const { t } = useI18n();
  const Public = PUBLIC[path];
  const signedIn = !!me;

  useEffect(() => {
    if (loading) return;
    // A signed-out person on a page (a link from a mail or LINE, or a session that ended) comes back to it after signing in.
    if (!signedIn && !Public && !unreachable) navigate(loginPathFor(path, search), { replace: true });
    if (signedIn && (path === '/login' || path === '/signup')) navigate(nextAfterSignIn(search), { replace: true });
    // Back from "Log in with LINE" (the service's callback lands on /): the page asked for before leaving.
    if (signedIn && path === '/') {
      const kept = takeKeptNext();
      if (kept) navigate(kept, { replace: true });
    }
  }, [loading, signedIn, Public, unreachable, path, search, navigate]);

  // The screen's language is the person's (api/auth.tsx applies me.user.language); the shop's language
  // is for its LINE replies and mails only.

  useEffect(() => {
    const titleEl = document.getElementById('page-title');
    document.title = titleEl?.textContent ? `${titleEl.textContent} · slipcheck` : 'slipcheck';
  });

  if (loading)
    return (
      <div className="boot">
        <Loading />
      </div>
    );
  if (Public && (!signedIn || path === '/reset-password' || path === '/forgot-password' || path === '/accept-invite')) return <Public />;
  // The service could not be reached while opening: the session may be fine, so no sign-in page; say why and retry.
  if (!signedIn && unreachable)
    return (
      <AuthLayout>
        <Card className="auth-card">
          <h1 id="page-title" tabIndex={-1}>
            slipcheck
          </h1>
          <ErrorText error={unreachable} />
          <Button className="btn-block" onClick={retry}>
            {t('common.retry')}
          </Button>
        </Card>
      </AuthLayout>
    );
  if (!signedIn)
    return (
      <div className="boot">
        <Loading />
      </div>
    );

  const txId = match('/transactions/:id', path);
  let screen: React.JSX.Element;
  // These two pages have a level-one heading like every other: the shell moves focus to it on each
  // change of page (so a screen reader says where the person landed) and the tab's title is taken from it.
  const ownerOnly = NAV.find((n) => n.to === path);
  if (me?.user.role === 'staff' && OWNER_ONLY_PATHS.has(path))
    screen = (
      <>
        <PageHeader title={ownerOnly ? t(ownerOnly.key) : t('error.OWNER_ONLY')} />
        <Empty title={t('error.OWNER_ONLY')}>
          <Link to="/">{t('nav.overview')}</Link>
        </Empty>
      </>
    );
  else if (path === '/') screen = <OverviewScreen />;
  else if (path === '/transactions') screen = <TransactionsScreen />;
  else if (txId) screen = <TransactionDetailScreen id={txId.id} />;
  else if (path === '/check') screen = <CheckScreen />;
  else if (path === '/payees') screen = <PayeesScreen />;
  else if (path === '/keys') screen = <KeysScreen />;
  else if (path === '/line') screen = <LineScreen />;
  else if (path === '/webhooks') screen = <WebhooksScreen />;
  else if (path === '/settings') screen = <SettingsScreen />;
  else if (path === '/security') screen = <SecurityScreen />;
  else if (path === '/team') screen = <TeamScreen />;
  else
    screen = (
      <>
        <PageHeader title={t('common.notFound')} />
        <p>
          <Link to="/">{t('nav.overview')}</Link>
        </p>
      </>
    );
  return <AppShell>{screen}</AppShell>;
}

export function App() {
  return (
    <I18nProvider>
      <RouterProvider>
        <AuthProvider>
          <Routes />
        </AuthProvider>
      </RouterProvider>
    </I18nProvider>
  );
}
