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

const RENEWAL_KEY = 'slipcheck.miniapp.renewal';
const RENEWAL_WINDOW_MS = 2 * 60_000;

/**
 * LIFF keeps the ID token it was given in the browser's storage until it expires (up to an hour) and
 * hands the same one to every start. The service accepts a token for one sign-in, so once the session
 * it opened has ended (signed out, revoked, a member removed and added again) a start has nothing to
 * sign in with, and "close and open again" got the same spent token back for up to an hour. So a
 * refused token is dropped (`liff.logout()`) and the mini-app is opened again through LINE, which hands
 * it a fresh one: in the LINE app by its LIFF URL (`liff.login()` does nothing there), elsewhere by LINE
 * Login. Once: a second refusal within two minutes is shown, not looped. True when the page is leaving.
 */
export async function renewLineToken(config: MiniConfig): Promise<boolean> {
  try {
    const last = Number(sessionStorage.getItem(RENEWAL_KEY));
    if (Date.now() - last < RENEWAL_WINDOW_MS) return false;
    sessionStorage.setItem(RENEWAL_KEY, String(Date.now()));
  } catch {
    return false; // without storage a loop could not be told from a first try
  }
  const { default: liff } = await import('@line/liff');
  liff.logout();
  if (config.mock) {
    // Development and tests stand in for LINE here: this address is answered with a fresh token.
    const next = new URL(window.location.href);
    next.searchParams.delete('mockIdToken');
    next.searchParams.set('mockRenewal', '1');
    window.location.replace(next.toString());
  } else if (liff.isInClient() && config.miniAppUrl) {
    window.location.replace(config.miniAppUrl);
  } else {
    liff.login({ redirectUri: window.location.href });
  }
  return true;
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
  try {
    sessionStorage.removeItem(RENEWAL_KEY); // signed in: a later refusal may renew again
  } catch {
    /* storage may be blocked */
  }
  return a;
}
