import { createContext, useContext, useEffect, useMemo, useState, type AnchorHTMLAttributes, type ReactNode } from 'react';

// A tiny History-API router: the service answers every non-/api GET with index.html, so deep links work.
interface Loc {
  path: string;
  search: URLSearchParams;
}
interface RouterCtx extends Loc {
  navigate: (to: string, opts?: { replace?: boolean }) => void;
}
const Ctx = createContext<RouterCtx | null>(null);

const read = (): Loc => ({
  path: window.location.pathname.replace(/\/+$/, '') || '/',
  search: new URLSearchParams(window.location.search),
});

export function RouterProvider({ children }: { children: ReactNode }) {
  const [loc, setLoc] = useState<Loc>(read);
  useEffect(() => {
    const on = () => setLoc(read());
    window.addEventListener('popstate', on);
    return () => window.removeEventListener('popstate', on);
  }, []);
  const value = useMemo<RouterCtx>(
    () => ({
      ...loc,
      navigate: (to, opts) => {
        if (opts?.replace) window.history.replaceState(null, '', to);
        else window.history.pushState(null, '', to);
        setLoc(read());
        window.scrollTo(0, 0);
      },
    }),
    [loc],
  );
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useRouter(): RouterCtx {
  const v = useContext(Ctx);
  if (!v) throw new Error('useRouter outside RouterProvider');
  return v;
}

/** Matches `/transactions/:id` style patterns. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const a = pattern.split('/').filter(Boolean);
  const b = path.split('/').filter(Boolean);
  if (a.length !== b.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i].startsWith(':')) out[a[i].slice(1)] = decodeURIComponent(b[i]);
    else if (a[i] !== b[i]) return null;
  }
  return out;
}

export function Link({ to, children, ...rest }: { to: string; children: ReactNode } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const { navigate, path } = useRouter();
  const current = path === to || (to !== '/' && path.startsWith(`${to}/`));
  return (
    <a
      href={to}
      aria-current={current ? 'page' : undefined}
      {...rest}
      onClick={(e) => {
        rest.onClick?.(e);
        if (e.defaultPrevented || e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

/**
 * Where to go after signing in: the page a signed-out person asked for (`/login?next=...`: a daily
 * summary's link to the day, an alert mail's link to its record), else the overview. Only a path of
 * this site: `//host`, `/\\host` or a full URL would send a person elsewhere after they typed their password.
 */
export function nextAfterSignIn(search: URLSearchParams): string {
  const next = search.get('next') ?? '';
  // Browsers drop tabs and newlines from URLs ("/\t/host" is "//host"): no control character either.
  if (!/^\/(?![/\\])/.test(next) || /[\u0000-\u001f\u007f]/.test(next) || /^\/(login|signup)(?:[/?#]|$)/.test(next)) return '/';
  return next;
}

const NEXT_KEY = 'slipcheck.next';

/**
 * "Log in with LINE" leaves for LINE and comes back to `/` (the service's callback): the page asked for is
 * kept in this tab meanwhile and taken once signed in. Only what nextAfterSignIn accepts is kept.
 */
export function keepNextForLine(search: URLSearchParams): void {
  const next = nextAfterSignIn(search);
  try {
    if (next === '/') sessionStorage.removeItem(NEXT_KEY);
    else sessionStorage.setItem(NEXT_KEY, next);
  } catch {
    /* storage may be blocked: the overview, as before */
  }
}

/** The page kept by keepNextForLine, once (then forgotten), or null. */
export function takeKeptNext(): string | null {
  try {
    const kept = sessionStorage.getItem(NEXT_KEY);
    sessionStorage.removeItem(NEXT_KEY);
    if (!kept) return null;
    const next = nextAfterSignIn(new URLSearchParams({ next: kept }));
    return next === '/' ? null : next;
  } catch {
    return null;
  }
}

/** The sign-in page's address that comes back to `path` + `search` afterwards (the overview needs no way back). */
export function loginPathFor(path: string, search: URLSearchParams): string {
  const qs = search.toString();
  const here = `${path}${qs ? `?${qs}` : ''}`;
  return here === '/' ? '/login' : `/login?next=${encodeURIComponent(here)}`;
}
