import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useAuth, useAuthMaybe } from '../api/auth';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { Link, useRouter } from '../lib/router';

export const NAV: { to: string; key: MessageKey; icon: string; ownerOnly?: boolean }[] = [
  { to: '/', key: 'nav.overview', icon: 'M3 12l9-8 9 8v8a1 1 0 0 1-1 1h-5v-6H9v6H4a1 1 0 0 1-1-1z' },
  { to: '/check', key: 'nav.check', icon: 'M5 3h10l4 4v14H5zM9 13l2 2 4-4' },
  { to: '/transactions', key: 'nav.transactions', icon: 'M4 6h16M4 12h16M4 18h10' },
  { to: '/payees', key: 'nav.payees', icon: 'M3 10l9-6 9 6M5 10v8M9 10v8M15 10v8M19 10v8M3 20h18' },
  { to: '/keys', key: 'nav.keys', icon: 'M15 7a4 4 0 1 1-3.5 6H9v2H7v2H4v-3l6.5-6.5A4 4 0 0 1 15 7z', ownerOnly: true },
  { to: '/line', key: 'nav.line', icon: 'M4 5h16v11H9l-5 4zM8 10h8' },
  { to: '/webhooks', key: 'nav.webhooks', icon: 'M8 17a4 4 0 1 1 3-6.7M16 17h-6l3-5M16 17a4 4 0 1 0-1-7.9', ownerOnly: true },
  {
    to: '/team',
    key: 'nav.team',
    icon: 'M9 11a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM3 20c0-3.3 2.7-6 6-6s6 2.7 6 6M16 5a3 3 0 0 1 0 6M21 20c0-2.6-1.7-4.8-4-5.6',
  },
  { to: '/settings', key: 'nav.settings', icon: 'M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM4 12h2M18 12h2M12 4v2M12 18v2' },
  { to: '/security', key: 'nav.security', icon: 'M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z' },
];

export function LangSwitch() {
  const { lang, t, setLang: setLocal } = useI18n();
  const setLang = useAuthMaybe()?.chooseLanguage ?? setLocal;
  return (
    <div className="lang-switch" role="group" aria-label={t('common.language')}>
      <button type="button" aria-pressed={lang === 'th'} onClick={() => setLang('th')} lang="th">
        ไทย
      </button>
      <button type="button" aria-pressed={lang === 'en'} onClick={() => setLang('en')} lang="en">
        EN
      </button>
    </div>
  );
}

export function Brand() {
  return (
    <span className="brand">
      <svg aria-hidden="true" viewBox="0 0 32 32" width="28" height="28">
        <rect width="32" height="32" rx="8" fill="#0f5f4a" />
        <path d="M9 17l5 5 9-11" stroke="#fff" strokeWidth="3" fill="none" strokeLinecap="round" strokeLinejoin="round" />
      </svg>
      slipcheck
    </span>
  );
}

export function AppShell({ children }: { children: ReactNode }) {
  const { t } = useI18n();
  const { me, logout } = useAuth();
  const { path, navigate } = useRouter();
  const [open, setOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  // Escape closes the phone menu, as it closes a dialog, and the keyboard goes back to the menu button.
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      menuButton.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  useEffect(() => {
    setOpen(false);
    // Move focus to the new page's heading so screen readers announce the change of page.
    const h = document.getElementById('page-title');
    h?.focus({ preventScroll: true });
  }, [path]);
  return (
    <Frame
      className="shell"
      mainClassName="main"
      top={
        <>
          <header className="topbar">
            <button
              ref={menuButton}
              type="button"
              className="icon-btn menu-btn"
              aria-expanded={open}
              aria-controls="sidenav"
              onClick={() => setOpen((o) => !o)}
              aria-label={t('nav.menu')}
            >
              <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
                <path d="M4 7h16M4 12h16M4 17h16" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
              </svg>
            </button>
            <Link to="/" className="brand-link" aria-label="slipcheck">
              <Brand />
            </Link>
            <span className="topbar-shop" title={me?.shop.name}>
              {me?.shop.name}
            </span>
            <LangSwitch />
          </header>
          <nav id="sidenav" className={`sidenav ${open ? 'open' : ''}`} aria-label={t('nav.main')}>
            <ul>
              {NAV.filter((n) => !(n.ownerOnly && me?.user.role === 'staff')).map((n) => (
                <li key={n.to}>
                  <Link to={n.to} className="nav-link">
                    <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
                      <path d={n.icon} fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
                    </svg>
                    {t(n.key)}
                  </Link>
                </li>
              ))}
            </ul>
            <div className="sidenav-foot">
              <p className="sidenav-email" title={me?.user.email}>
                {me?.user.email}
              </p>
              {/* Signing out on purpose: the next sign-in (perhaps someone else's) starts at the overview. */}
              <button
                type="button"
                className="btn btn-ghost"
                onClick={() => void logout().then(() => navigate('/login', { replace: true }))}
              >
                {t('nav.logout')}
              </button>
            </div>
          </nav>
        </>
      }
    >
      {children}
    </Frame>
  );
}

export function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <Frame
      className="auth-page"
      mainClassName="auth-main"
      top={
        <header className="auth-top">
          <Brand />
          <LangSwitch />
        </header>
      }
    >
      {children}
    </Frame>
  );
}

/** Both shells: the skip link first, then their header, then the main region the skip link jumps to. */
function Frame({
  className,
  mainClassName,
  top,
  children,
}: {
  className: string;
  mainClassName: string;
  top: ReactNode;
  children: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <div className={className}>
      <a className="skip" href="#main">
        {t('common.skip')}
      </a>
      {top}
      <main id="main" className={mainClassName} tabIndex={-1}>
        <OfflineNotice />
        {children}
      </main>
    </div>
  );
}

/** Phones drop off the network often; say so instead of letting every call fail with a vague error. */
export function OfflineNotice() {
  const { t } = useI18n();
  const [online, setOnline] = useState(() => navigator.onLine !== false);
  useEffect(() => {
    const up = () => setOnline(true);
    const down = () => setOnline(false);
    window.addEventListener('online', up);
    window.addEventListener('offline', down);
    return () => {
      window.removeEventListener('online', up);
      window.removeEventListener('offline', down);
    };
  }, []);
  return (
    <div role="status" className="offline-slot">
      {online ? null : <p className="alert alert-warn offline">{t('error.offlineBanner')}</p>}
    </div>
  );
}
