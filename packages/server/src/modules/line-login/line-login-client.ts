import { createHash } from 'node:crypto';
import { AppError } from '../../errors.js';

/** What the service keeps of a verified LINE ID token. */
export interface LineIdentity {
  lineUserId: string;
  name: string | null;
  /** SHA-256 of the token and its expiry: the token opens one session, remembered until it expires. */
  tokenHash: string;
  expiresAt: Date;
}

/** LINE issues ID tokens valid for one hour. */
export const LINE_ID_TOKEN_TTL_SEC = 3600;
/** Clock skew accepted between LINE's clock and ours. */
export const LINE_CLOCK_SKEW_SEC = 60;

export interface LineLoginClientDeps {
  /** `{LINE_API_BASE_URL}`: the verify and token endpoints live under /oauth2/v2.1 there. */
  apiBaseUrl: string;
  channelId: string;
  channelSecret: string;
  timeoutMs: number;
  now: () => Date;
}

const ISSUER = 'https://access.line.me';
const rejected = (why: string) => new AppError('LINE_TOKEN_INVALID', 401, `LINE sign-in failed: ${why}; open the mini-app from LINE again`);

/**
 * LINE Login over HTTP: ID tokens are verified by LINE's own verify endpoint (it checks the signature
 * with keys only LINE holds for HS256 channels), and the answer is checked again here (audience,
 * issuer, expiry, nonce) so a fake or misconfigured endpoint cannot hand us someone else's token.
 */
export function createLineLoginClient(deps: LineLoginClientDeps) {
  const base = deps.apiBaseUrl.replace(/\/+$/, '');

  async function postForm(path: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> | null }> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
        signal: AbortSignal.timeout(deps.timeoutMs),
        redirect: 'error',
      });
    } catch {
      throw new AppError('LINE_UNAVAILABLE', 503, 'LINE did not answer; try again in a moment', { retryAfter: 5 });
    }
    const text = await res.text();
    let body: Record<string, unknown> | null;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = null;
    }
    if (res.status >= 500) throw new AppError('LINE_UNAVAILABLE', 503, 'LINE did not answer; try again in a moment', { retryAfter: 5 });
    return { status: res.status, body };
  }

  /**
   * `nonce`: the token must carry exactly this nonce (the dashboard's OAuth flow sets it at LINE). The
   * mini-app passes none: LIFF does not let a page choose the nonce in its token (a nonce there is
   * LIFF's own, from its login), so its route checks the service's nonce round trip itself, and the
   * token is accepted once (line-login-service.ts).
   */
  async function verifyIdToken(idToken: string, nonce?: string): Promise<LineIdentity> {
    if (!deps.channelId) throw new AppError('LINE_LOGIN_DISABLED', 404, 'Sign-in with LINE is not set up on this service');
    const { status, body } = await postForm('/oauth2/v2.1/verify', {
      id_token: idToken,
      client_id: deps.channelId,
      ...(nonce ? { nonce } : {}),
    });
    if (status !== 200 || !body)
      throw rejected(typeof body?.error_description === 'string' ? body.error_description.slice(0, 80) : 'the token was refused');
    const nowSec = Math.floor(deps.now().getTime() / 1000);
    if (body.iss !== ISSUER) throw rejected('wrong issuer');
    if (body.aud !== deps.channelId) throw rejected('the token was made for another channel');
    if (typeof body.exp !== 'number' || body.exp <= nowSec) throw rejected('the token has expired');
    // A token from the future, or one living longer than LINE issues them, was not made by LINE for us.
    if (typeof body.iat !== 'number' || body.iat > nowSec + LINE_CLOCK_SKEW_SEC) throw rejected('the token is not valid yet');
    if (body.exp - body.iat > LINE_ID_TOKEN_TTL_SEC || body.exp > nowSec + LINE_ID_TOKEN_TTL_SEC + LINE_CLOCK_SKEW_SEC)
      throw rejected('the token lives longer than LINE issues them');
    if (nonce !== undefined && body.nonce !== nonce) throw rejected('the sign-in attempt does not match');
    if (typeof body.sub !== 'string' || !/^U[0-9a-f]{32}$/.test(body.sub)) throw rejected('no LINE user in the token');
    return {
      lineUserId: body.sub,
      name: typeof body.name === 'string' ? body.name.slice(0, 100) : null,
      tokenHash: createHash('sha256').update(idToken).digest('hex'),
      expiresAt: new Date(body.exp * 1000),
    };
  }

  /** OAuth 2.1 authorization code + PKCE verifier -> ID token (the dashboard's "Log in with LINE"). */
  async function exchangeCode(input: { code: string; redirectUri: string; codeVerifier: string }): Promise<string> {
    if (!deps.channelId || !deps.channelSecret)
      throw new AppError('LINE_LOGIN_DISABLED', 404, 'Sign-in with LINE is not set up on this service');
    const { status, body } = await postForm('/oauth2/v2.1/token', {
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: input.redirectUri,
      client_id: deps.channelId,
      client_secret: deps.channelSecret,
      code_verifier: input.codeVerifier,
    });
    if (status !== 200 || typeof body?.id_token !== 'string') throw rejected('LINE refused the sign-in code');
    return body.id_token;
  }

  return { verifyIdToken, exchangeCode, enabled: () => !!deps.channelId };
}
export type LineLoginClient = ReturnType<typeof createLineLoginClient>;
