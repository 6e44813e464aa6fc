import { hkdfSync } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../../lib/clock.js';

export const ACCESS_TTL_SEC = 15 * 60;
export const TICKET_TTL_SEC = 60;
const ISSUER = 'slipcheck';
const AUDIENCE = 'slipcheck-dashboard';

/**
 * What a dashboard token carries: the person, their shop and the session (JWT sub, shop, sid). Not
 * called "claims" here: in this code base a claim is the verification module's hold on a slip image.
 */
export interface TokenFields {
  userId: string;
  shopId: string;
  sessionId: string;
}

/**
 * HS256 JWTs for the dashboard. The key is derived from the master secret (HKDF with its own label)
 * so it is never the same key as the one that encrypts data at rest. Two token kinds share the key
 * but not the `typ`: an access token (15 min, bearer header) and a stream ticket (60 s, only for
 * opening the server-sent events stream, which cannot send headers).
 */
export function createAccessTokens(deps: { secret: string; clock: Clock }) {
  const key = new Uint8Array(hkdfSync('sha256', deps.secret, 'slipcheck', 'dashboard-jwt-hs256-v1', 32));

  async function sign(fields: TokenFields, typ: 'access' | 'ticket', ttlSec: number) {
    const nowSec = Math.floor(deps.clock.now().getTime() / 1000);
    const token = await new SignJWT({ shop: fields.shopId, sid: fields.sessionId, typ })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(fields.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(nowSec)
      .setExpirationTime(nowSec + ttlSec)
      .sign(key);
    return { token, expiresAt: new Date((nowSec + ttlSec) * 1000).toISOString() };
  }

  async function verify(token: string, typ: 'access' | 'ticket'): Promise<TokenFields | null> {
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        currentDate: deps.clock.now(),
        clockTolerance: 0,
      });
      if (payload.typ !== typ || typeof payload.sub !== 'string' || typeof payload.shop !== 'string' || typeof payload.sid !== 'string')
        return null;
      return { userId: payload.sub, shopId: payload.shop, sessionId: payload.sid };
    } catch {
      return null;
    }
  }

  return {
    issueAccess: (fields: TokenFields) => sign(fields, 'access', ACCESS_TTL_SEC),
    issueTicket: (fields: TokenFields) => sign(fields, 'ticket', TICKET_TTL_SEC),
    verifyAccess: (token: string) => verify(token, 'access'),
    verifyTicket: (token: string) => verify(token, 'ticket'),
  };
}
export type AccessTokens = ReturnType<typeof createAccessTokens>;
