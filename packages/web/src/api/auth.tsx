import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useI18n, type Lang } from '../i18n/i18n';
import { api, ApiError, lastRefreshTrouble, onAuthChange, pickToken, refreshSession, setAccessToken } from './client';
import { ROUTES } from './routes';
import type { Me } from './types';

interface AuthCtx {
  me: Me | null;
  loading: boolean;
  /** The service could not be reached when the app opened (the session itself may be fine): said, with a retry. */
  unreachable: unknown;
  retry: () => void;
  reload: () => Promise<void>;
  /** The EN/ไทย switch: kept on the user when signed in (follows the person to another device). */
  chooseLanguage: (l: Lang) => Promise<void>;
  login: (email: string, password: string) => Promise<void>;
  signup: (input: { email: string; password: string; shopName: string; planCode: string; language: string }) => Promise<void>;
  logout: () => Promise<void>;
}
const Ctx = createContext<AuthCtx | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);
  const [loading, setLoading] = useState(true);
  const [unreachable, setUnreachable] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  const { setLang } = useI18n();
  // The signed-in person's stored choice wins over this browser's last choice.
  useEffect(() => {
    if (me?.user.language) setLang(me.user.language);
  }, [me?.user.language, setLang]);

  // Only a refused session signs the person out; a service that is down keeps them where they are.
  const reload = useCallback(async () => {
    try {
      setMe(await api<Me>(ROUTES.me));
      setUnreachable(null);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) setMe(null);
      else setUnreachable(e);
    }
  }, []);

  useEffect(() => {
    let live = true;
    setLoading(true);
    setUnreachable(null);
    (async () => {
      if (await refreshSession()) await reload();
      else if (live && lastRefreshTrouble()) setUnreachable(lastRefreshTrouble());
      if (live) setLoading(false);
    })();
    const off = onAuthChange((signedIn) => {
      if (!signedIn) setMe(null);
    });
    return () => {
      live = false;
      off();
    };
  }, [reload, attempt]);

  const value = useMemo<AuthCtx>(
    () => ({
      me,
      loading,
      unreachable,
      retry: () => setAttempt((n) => n + 1),
      reload,
      chooseLanguage: async (l) => {
        setLang(l);
        if (!me) return;
        try {
          const r = await api<{ user: Me['user'] }>(ROUTES.mePreferences, { method: 'PATCH', body: { language: l } });
          setMe((m) => (m ? { ...m, user: { ...m.user, ...r.user } } : m));
        } catch {
          /* the screen already switched; the next sign-in shows the stored choice */
        }
      },
      login: async (email, password) => {
        const data = await api<Record<string, unknown>>(ROUTES.login, { method: 'POST', body: { email, password }, noAuth: true });
        setAccessToken(pickToken(data));
        await reload();
      },
      signup: async (input) => {
        const data = await api<Record<string, unknown>>(ROUTES.signup, { method: 'POST', body: input, noAuth: true });
        const token = pickToken(data);
        if (token) setAccessToken(token);
        else {
          const login = await api<Record<string, unknown>>(ROUTES.login, {
            method: 'POST',
            body: { email: input.email, password: input.password },
            noAuth: true,
          });
          setAccessToken(pickToken(login));
        }
        await reload();
      },
      logout: async () => {
        try {
          await api(ROUTES.logout, { method: 'POST' });
        } catch {
          /* the session ends locally either way */
        }
        setAccessToken(null);
        setMe(null);
      },
    }),
    [me, loading, unreachable, reload, setLang],
  );
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

/** For components also used outside the dashboard's provider (the LINE mini-app's language switch). */
export function useAuthMaybe(): AuthCtx | null {
  return useContext(Ctx);
}

export function useAuth(): AuthCtx {
  const v = useContext(Ctx);
  if (!v) throw new Error('useAuth outside AuthProvider');
  return v;
}
