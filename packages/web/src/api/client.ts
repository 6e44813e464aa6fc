// The access token lives only in memory (never localStorage): a page load gets a fresh one through the
// refresh cookie, which the browser keeps HttpOnly on path /api.
import { ROUTES } from './routes';

let accessToken: string | null = null;
let refreshing: Promise<boolean> | null = null;
/**
 * Why the last refresh did not give a token, when the service did not refuse the session: it could not
 * be reached or answered an error (a deploy, a proxy's 502, the database away). The session may well be
 * fine then, so the person stays signed in and reads this error instead of being sent to sign in.
 */
let refreshTrouble: unknown = null;
export const lastRefreshTrouble = () => refreshTrouble;
const listeners = new Set<(signedIn: boolean) => void>();
/**
 * Why the service last refused the session, for the sign-in page to say (until the next sign-in):
 * `MEMBER_REMOVED` (the owner removed this person from the shop: signing in again cannot work),
 * `REFRESH_REUSED`, or `REFRESH_INVALID` when this page had been signed in (an ordinary end). A first
 * visit without a session is not "ended", so it leaves nothing.
 */
export type SignOutReason = 'MEMBER_REMOVED' | 'REFRESH_REUSED' | 'REFRESH_INVALID';
let signOutReason: SignOutReason | null = null;
export const lastSignOutReason = () => signOutReason;

export function setAccessToken(token: string | null) {
  const changed = !!token !== !!accessToken;
  if (token) signOutReason = null;
  accessToken = token;
  if (changed) listeners.forEach((l) => l(!!token));
}
export const getAccessToken = () => accessToken;
export function onAuthChange(l: (signedIn: boolean) => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

function pickToken(data: unknown): string | null {
  const d = data as Record<string, unknown> | null;
  if (!d) return null;
  const t = d.accessToken ?? d.access_token ?? d.token;
  return typeof t === 'string' ? t : null;
}

async function refreshOnce(): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await fetch(ROUTES.refresh, {
      method: 'POST',
      credentials: 'include',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    // 409 REFRESH_RACE came from servers before the grace re-issue: another tab had rotated the cookie.
    if (res.status === 409 && attempt === 0) {
      await new Promise((r) => setTimeout(r, 300));
      continue;
    }
    // Only the service's own refusal (401: missing, expired, revoked or reused; 403: origin) ends the session.
    if (res.status === 401 || res.status === 403) {
      const code = ((await res.json().catch(() => null)) as { code?: unknown } | null)?.code;
      if (code === 'MEMBER_REMOVED' || code === 'REFRESH_REUSED') signOutReason = code;
      else if (accessToken !== null) signOutReason = 'REFRESH_INVALID';
      setAccessToken(null);
      return false;
    }
    if (!res.ok) {
      refreshTrouble = new ApiError(res.status, res.status === 429 ? 'RATE_LIMITED' : `HTTP_${res.status}`, res.statusText);
      return false;
    }
    const body = await res.json().catch(() => null);
    const token = pickToken(body?.data ?? body);
    setAccessToken(token);
    return !!token;
  }
  return false;
}

/**
 * One refresh at a time: parallel 401s share it, and tabs take a Web Lock, so a rotated cookie is
 * never presented twice (the server would treat that as reuse and revoke the chain).
 */
export function refreshSession(): Promise<boolean> {
  if (!refreshing) {
    refreshTrouble = null;
    refreshing = (async () => {
      try {
        const locks = (navigator as Navigator & { locks?: { request: (n: string, cb: () => Promise<boolean>) => Promise<boolean> } }).locks;
        return locks ? await locks.request('slipcheck-refresh', refreshOnce) : await refreshOnce();
      } catch (e) {
        refreshTrouble = e; // the request never reached the service
        return false;
      } finally {
        setTimeout(() => {
          refreshing = null;
        }, 0);
      }
    })();
  }
  return refreshing;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: Record<string, string | number | undefined | null>;
  raw?: Blob | ArrayBuffer;
  contentType?: string;
  noAuth?: boolean;
  signal?: AbortSignal;
}

export function withQuery(path: string, query?: RequestOptions['query']) {
  if (!query) return path;
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return s ? `${path}${path.includes('?') ? '&' : '?'}${s}` : path;
}

async function send(path: string, o: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (accessToken && !o.noAuth) headers.Authorization = `Bearer ${accessToken}`;
  let body: BodyInit | undefined;
  if (o.raw !== undefined) {
    body = o.raw;
    headers['Content-Type'] = o.contentType ?? 'application/octet-stream';
  } else if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['Content-Type'] = 'application/json';
  } else if (o.method && o.method !== 'GET') {
    body = '{}';
    headers['Content-Type'] = 'application/json';
  }
  return fetch(withQuery(path, o.query), { method: o.method ?? 'GET', headers, body, credentials: 'include', signal: o.signal });
}

/** Calls the dashboard API; unwraps `{success, data}`; retries once after a refresh on 401. */
export async function api<T = unknown>(path: string, o: RequestOptions = {}): Promise<T> {
  let res = await send(path, o);
  if (res.status === 401 && !o.noAuth && accessToken !== null) {
    if (await refreshSession()) res = await send(path, o);
    // The refresh could not reach the service: say that, not "your session has ended".
    else if (lastRefreshTrouble()) throw lastRefreshTrouble();
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: Record<string, unknown> | null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok || (json && json.success === false)) {
    const code = typeof json?.code === 'string' ? json.code : res.status === 429 ? 'RATE_LIMITED' : `HTTP_${res.status}`;
    const msg = typeof json?.message === 'string' ? json.message : res.statusText;
    const err = new ApiError(res.status, code, msg, json ?? {});
    if (res.status === 429) (err.body as Record<string, unknown>).retryAfter = res.headers.get('Retry-After');
    throw err;
  }
  return (json && 'data' in json ? json.data : json) as T;
}

export { pickToken };
