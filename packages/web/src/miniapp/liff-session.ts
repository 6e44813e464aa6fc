// Signs the mini-app in: LIFF gives a LINE ID token, the service verifies it with LINE Login and opens a
// session under the dashboard's rules (refresh cookie on /api, 15-minute access token in memory); a
// reload continues that session (`resumeOrSignIn`).
import { api, setAccessToken } from '../api/client';
import { hasErrorCode } from '../api/error-code';

export interface MiniConfig {
  liffId: string | null;
  mock: boolean;
  loginWithLine: boolean;
  miniAppUrl: string | null;
}
export interface Membership {
  shopId: string;
  shopName: string;
  role: 'owner' | 'staff';
}
export interface MiniAuth {
  accessToken: string;
  user: { id: string; email: string; role: 'owner' | 'staff' };
  shop: { id: string; name: string; planCode: string; state: string };
  shops: Membership[];
}

const SHOP_KEY = 'slipcheck.miniapp.shop';

/**
 * LIFF is loaded only here (a dynamic import), so the dashboard bundle never carries it. In mock mode
 * (development and tests, refused in production by the server's config) @line/liff-mock stands in for
 * the LINE app, and `?mockIdToken=` supplies the token a test issued from its fake LINE Login.
 */
export async function liffIdToken(config: MiniConfig): Promise<string | null> {
  const { default: liff } = await import('@line/liff');
  if (config.mock) {
    const { LiffMockPlugin } = await import('@line/liff-mock');
    liff.use(new LiffMockPlugin());
    await liff.init({ liffId: config.liffId ?? 'mock', mock: true } as Parameters<typeof liff.init>[0]);
    const token = new URLSearchParams(window.location.search).get('mockIdToken');
    (liff as unknown as { $mock: { set: (d: Record<string, unknown>) => void } }).$mock.set({ getIDToken: token });
    return token;
  }
  if (!config.liffId) return null;
  await liff.init({ liffId: config.liffId });
  if (!liff.isLoggedIn()) {
    liff.login({ redirectUri: window.location.href });
    return null; // the page navigates away
  }
  return liff.getIDToken();
}

export const savedShop = () => {
  try {
    return localStorage.getItem(SHOP_KEY) ?? undefined;
  } catch {
    return undefined;
  }
};
const saveShop = (id: string) => {
  try {
    localStorage.setItem(SHOP_KEY, id);
  } catch {
    /* storage may be blocked */
  }
};

/**
 * Every sign-in attempt carries a fresh one-time nonce from the service (it also sets it in an HttpOnly
 * cookie and checks that both match), and the service accepts each ID token once.
 */
async function freshNonce(): Promise<string> {
  return (await api<{ nonce: string }>('/api/miniapp/nonce', { method: 'POST', noAuth: true })).nonce;
}

// One sign-in per ID token and shop: the service accepts a token once and keeps one nonce per browser
// (its cookie), so a second concurrent attempt (the page's start-up running twice) would spend the
// nonce or the token of the first and both would be refused. A failed attempt may be tried again.
const signIns = new Map<string, Promise<MiniAuth>>();

export function signInWithLine(idToken: string, shopId?: string): Promise<MiniAuth> {
  const key = `${idToken} ${shopId ?? ''}`;
  let attempt = signIns.get(key);
  if (!attempt) {
    attempt = signInOnce(idToken, shopId);
    signIns.set(key, attempt);
    attempt.catch(() => signIns.delete(key));
  }
  return attempt;
}

async function signInOnce(idToken: string, shopId?: string): Promise<MiniAuth> {
  try {
    const nonce = await freshNonce();
    return remember(
      await api<MiniAuth>('/api/miniapp/auth/line', {
        method: 'POST',
        body: { idToken, nonce, ...(shopId ? { shopId } : {}) },
        noAuth: true,
      }),
    );
  } catch (e) {
    // A remembered shop the person no longer belongs to: fall back to their first shop (the refused
    // attempt did not spend the token).
    if (shopId && hasErrorCode(e, 'LINE_NOT_LINKED')) return signInWithLine(idToken);
    throw e;
  }
}

const resumes = new Map<string, Promise<MiniAuth>>();

/**
 * The page's start: a reload gets the same cached ID token from LIFF, which the service accepts for one
 * sign-in only, so first the session this browser already holds (its refresh cookie) is continued; the
 * service does that only when the session is a mini-app session of the LINE user this token names.
 * With nothing to continue (a first start, another person's session in the cookie, a session that
 * ended) it is a normal sign-in with the token. One attempt per token at a time, as with `signIns`.
 */
export function resumeOrSignIn(idToken: string, shopId?: string): Promise<MiniAuth> {
  let attempt = resumes.get(idToken);
  if (!attempt) {
    attempt = resumeOnce(idToken, shopId);
    resumes.set(idToken, attempt);
    attempt.catch(() => resumes.delete(idToken));
  }
  return attempt;
}

async function resumeOnce(idToken: string, shopId?: string): Promise<MiniAuth> {
  try {
    return remember(await api<MiniAuth>('/api/miniapp/resume', { method: 'POST', body: { idToken }, noAuth: true }));
  } catch (e) {
    if (!hasErrorCode(e, 'REFRESH_INVALID') && !hasErrorCode(e, 'REFRESH_REUSED')) throw e;
  }
  return signInWithLine(idToken, shopId);
}

export async function linkWithCode(idToken: string, code: string): Promise<MiniAuth> {
  const nonce = await freshNonce();
  return remember(await api<MiniAuth>('/api/miniapp/link', { method: 'POST', body: { idToken, nonce, code: code.trim() }, noAuth: true }));
}

/** The shop switcher moves the current session (its refresh cookie): an ID token is never used twice. */
export async function switchShop(shopId: string): Promise<MiniAuth> {
  return remember(await api<MiniAuth>('/api/miniapp/switch', { method: 'POST', body: { shopId }, noAuth: true }));
}

function remember(a: MiniAuth): MiniAuth {
  setAccessToken(a.accessToken);
  saveShop(a.shop.id);
  return a;
}
