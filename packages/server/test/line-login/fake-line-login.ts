import { createHash, createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake LINE Login platform on loopback: the verify endpoint, the token endpoint and the authorize
 * redirect, behaving as LINE documents them (form-encoded POSTs, 400 with `error_description`).
 * ID tokens it issues are HMAC-signed JSON, so a forged one is refused like LINE refuses it.
 * `lenient` makes verify answer 200 for any well-signed token, to prove the service checks `aud`,
 * `iss`, `exp` and `nonce` itself instead of trusting whatever the endpoint says.
 */
export interface IdTokenClaims {
  sub: string;
  aud: string;
  exp: number;
  /** Default: one hour before `exp`, as LINE issues them. */
  iat?: number;
  iss?: string;
  nonce?: string;
  name?: string;
}

export async function startFakeLineLogin(opts: { channelId: string; channelSecret: string; now: () => Date }) {
  const key = randomBytes(32);
  const codes = new Map<string, { claims: IdTokenClaims; challenge: string; redirectUri: string }>();
  const state = {
    lenient: false,
    authorizeAs: null as null | { sub: string; name?: string },
    lastAuthorize: null as null | URLSearchParams,
    verifyCalls: 0,
  };

  // Every issued token is a distinct string (LINE's differ by issue time, nonce and signature): `jti`
  // stands for that here, so two tokens for one user in one second are still two tokens.
  const issue = (c: IdTokenClaims) => {
    const body = Buffer.from(
      JSON.stringify({ iss: 'https://access.line.me', iat: c.exp - 3600, ...c, jti: randomBytes(6).toString('hex') }),
    ).toString('base64url');
    return `eyJhbGciOiJIUzI1NiJ9.${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
  };
  const decode = (t: string): (IdTokenClaims & { iss: string }) | null => {
    const [, body, mac] = t.split('.');
    if (!body || !mac || createHmac('sha256', key).update(body).digest('base64url') !== mac) return null;
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  };
  const readForm = (req: http.IncomingMessage) =>
    new Promise<URLSearchParams>((resolve) => {
      let s = '';
      req.on('data', (d) => {
        s += d;
      });
      req.on('end', () => resolve(new URLSearchParams(s)));
    });
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const bad = (res: http.ServerResponse, description: string) =>
    send(res, 400, { error: 'invalid_request', error_description: description });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && url.pathname === '/oauth2/v2.1/verify') {
      state.verifyCalls++;
      const f = await readForm(req);
      if (req.headers['content-type'] !== 'application/x-www-form-urlencoded') return bad(res, 'form body required');
      const claims = decode(f.get('id_token') ?? '');
      if (!claims) return bad(res, 'Invalid IdToken.');
      if (!state.lenient) {
        if (claims.exp <= Math.floor(opts.now().getTime() / 1000)) return bad(res, 'IdToken expired.');
        if (claims.aud !== f.get('client_id')) return bad(res, 'Invalid IdToken Audience.');
        if (f.get('nonce') && claims.nonce !== f.get('nonce')) return bad(res, 'Invalid IdToken Nonce.');
      }
      return send(res, 200, { ...claims, amr: ['linesso'] });
    }
    if (req.method === 'POST' && url.pathname === '/oauth2/v2.1/token') {
      const f = await readForm(req);
      const c = codes.get(f.get('code') ?? '');
      if (!c || f.get('grant_type') !== 'authorization_code') return bad(res, 'invalid authorization code');
      if (f.get('client_id') !== opts.channelId || f.get('client_secret') !== opts.channelSecret)
        return send(res, 401, { error: 'invalid_client' });
      if (f.get('redirect_uri') !== c.redirectUri) return bad(res, 'redirect_uri does not match');
      if (
        createHash('sha256')
          .update(f.get('code_verifier') ?? '')
          .digest('base64url') !== c.challenge
      )
        return bad(res, 'code_verifier does not match');
      codes.delete(f.get('code')!);
      return send(res, 200, {
        access_token: 'at',
        token_type: 'Bearer',
        expires_in: 2592000,
        scope: 'openid profile',
        id_token: issue(c.claims),
      });
    }
    if (req.method === 'GET' && url.pathname === '/oauth2/v2.1/authorize') {
      state.lastAuthorize = url.searchParams;
      const redirect = new URL(url.searchParams.get('redirect_uri') ?? '');
      if (!state.authorizeAs) {
        redirect.searchParams.set('error', 'access_denied');
      } else {
        const code = randomBytes(12).toString('hex');
        codes.set(code, {
          claims: {
            sub: state.authorizeAs.sub,
            aud: opts.channelId,
            exp: Math.floor(opts.now().getTime() / 1000) + 3600,
            nonce: url.searchParams.get('nonce') ?? undefined,
            name: state.authorizeAs.name,
          },
          challenge: url.searchParams.get('code_challenge') ?? '',
          redirectUri: redirect.toString(),
        });
        redirect.searchParams.set('code', code);
      }
      redirect.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: redirect.toString() });
      return res.end();
    }
    send(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    state,
    issue,
    lineUserId: () => `U${randomBytes(16).toString('hex')}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
export type FakeLineLogin = Awaited<ReturnType<typeof startFakeLineLogin>>;
