import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * LINE Login v2.1 as the service uses it (developers.line.biz/en/reference/line-login/): the
 * authorization page, the token endpoint (authorization code + PKCE) and the ID-token verify
 * endpoint, plus what a LIFF app gets from the LINE app: an ID token for the person who opened it.
 * ID tokens are real JWTs signed HS256 with the channel secret, as LINE signs those of web logins;
 * a token signed otherwise, expired, for another channel or with another nonce is refused with
 * LINE's error body.
 */
export interface LoginChannel {
  channelId: string;
  channelSecret: string;
  /** Exact callback URLs registered on the channel (LINE compares them exactly). */
  callbackUrls: string[];
  liffId?: string;
  /** The LIFF app's endpoint URL (where liff.line.me/<liffId> sends the browser). */
  liffEndpoint?: string;
}
export interface IdTokenClaims {
  sub: string;
  aud: string;
  exp: number;
  iss?: string;
  iat?: number;
  nonce?: string;
  name?: string;
}
export interface LoginState {
  /** Test knob: verify answers 200 for any well-signed token, to prove the service re-checks the claims. */
  lenient: boolean;
  /** Who the authorization page signs in without asking (tests); null = show the page. */
  authorizeAs: null | { sub: string; name?: string };
  lastAuthorize: null | URLSearchParams;
  verifyCalls: number;
}

const ISSUER = 'https://access.line.me';
const CODE_TTL_MS = 10 * 60_000; // LINE: an authorization code is valid for 10 minutes, once
const ID_TOKEN_TTL_S = 3600;

const b64u = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

export function signIdToken(secret: string, claims: IdTokenClaims): string {
  // Every issued token is a distinct string, as LINE's are (they differ by issue time, nonce and
  // signature): `jti` stands for that, so two tokens for one user in one second are still two tokens
  // (the service accepts each ID token once).
  const body = b64u({ iss: ISSUER, iat: claims.exp - ID_TOKEN_TTL_S, amr: ['pwd'], ...claims, jti: randomBytes(6).toString('hex') });
  const head = b64u({ typ: 'JWT', alg: 'HS256' });
  return `${head}.${body}.${createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url')}`;
}

function readIdToken(token: string): { claims: IdTokenClaims & Record<string, unknown>; signed: string; mac: string } | null {
  const [head, body, mac] = token.split('.');
  if (!head || !body || !mac) return null;
  try {
    const h = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    if (h.alg !== 'HS256') return null;
    return { claims: JSON.parse(Buffer.from(body, 'base64url').toString('utf8')), signed: `${head}.${body}`, mac };
  } catch {
    return null;
  }
}

const macOk = (secret: string, signed: string, mac: string) => {
  const want = Buffer.from(createHmac('sha256', secret).update(signed).digest('base64url'));
  const got = Buffer.from(mac);
  return want.length === got.length && timingSafeEqual(want, got);
};

export interface LineLoginDeps {
  channels: Map<string, LoginChannel>;
  state: LoginState;
  now: () => Date;
  /** The sign-in page: who can be chosen (simulated LINE users). */
  people: () => Array<{ sub: string; name: string }>;
}

export function registerLineLogin(app: FastifyInstance, deps: LineLoginDeps) {
  const codes = new Map<string, { claims: IdTokenClaims; challenge: string; redirectUri: string; clientId: string; expires: number }>();
  const nowMs = () => deps.now().getTime();
  const form = (body: unknown) => new URLSearchParams(Buffer.isBuffer(body) ? body.toString('utf8') : '');
  const oauthError = (reply: FastifyReply, status: number, error: string, description: string) =>
    reply.code(status).send({ error, error_description: description });
  const isForm = (ct: string | undefined) => (ct ?? '').split(';')[0]!.trim() === 'application/x-www-form-urlencoded';

  function issueCode(ch: LoginChannel, q: URLSearchParams, who: { sub: string; name?: string }): string {
    const code = randomBytes(16).toString('base64url');
    codes.set(code, {
      claims: {
        sub: who.sub,
        aud: ch.channelId,
        exp: Math.floor(nowMs() / 1000) + ID_TOKEN_TTL_S,
        nonce: q.get('nonce') ?? undefined,
        name: who.name,
      },
      challenge: q.get('code_challenge') ?? '',
      redirectUri: q.get('redirect_uri') ?? '',
      clientId: ch.channelId,
      expires: nowMs() + CODE_TTL_MS,
    });
    return code;
  }

  /** Checks an authorization request; null = fine, else what is wrong (shown, never redirected: the redirect itself may be the attack). */
  function checkAuthorize(q: URLSearchParams): { channel?: LoginChannel; fatal?: string; error?: string } {
    const ch = deps.channels.get(q.get('client_id') ?? '');
    if (!ch) return { fatal: 'invalid client_id' };
    if (!ch.callbackUrls.includes(q.get('redirect_uri') ?? ''))
      return { fatal: 'redirect_uri does not match the callback URL registered on the channel' };
    if (q.get('response_type') !== 'code') return { channel: ch, error: 'unsupported_response_type' };
    if (!q.get('state')) return { channel: ch, error: 'invalid_request' };
    if (!(q.get('scope') ?? '').split(' ').includes('openid')) return { channel: ch, error: 'invalid_scope' };
    const challenge = q.get('code_challenge');
    if (challenge && (q.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43,128}$/.test(challenge)))
      return { channel: ch, error: 'invalid_request' };
    return { channel: ch };
  }

  const redirectWith = (reply: FastifyReply, q: URLSearchParams, params: Record<string, string>) => {
    const to = new URL(q.get('redirect_uri')!);
    for (const [k, v] of Object.entries(params)) to.searchParams.set(k, v);
    to.searchParams.set('state', q.get('state') ?? '');
    return reply.redirect(to.toString(), 302);
  };

  app.get('/oauth2/v2.1/authorize', async (req, reply) => {
    const q = new URLSearchParams(req.url.split('?')[1] ?? '');
    deps.state.lastAuthorize = q;
    const checked = checkAuthorize(q);
    if (checked.fatal) return reply.code(400).type('text/html; charset=utf-8').send(errorPage(checked.fatal));
    if (checked.error) return redirectWith(reply, q, { error: checked.error, error_description: checked.error });
    const as = deps.state.authorizeAs;
    if (as) return redirectWith(reply, q, { code: issueCode(checked.channel!, q, as) });
    return reply.type('text/html; charset=utf-8').send(consentPage(q, deps.people()));
  });

  // The consent page's buttons: sign in as the chosen simulated LINE user, or cancel.
  app.post('/oauth2/v2.1/authorize/consent', async (req, reply) => {
    const f = form(req.body);
    const q = new URLSearchParams(f.get('request') ?? '');
    const checked = checkAuthorize(q);
    if (checked.fatal || checked.error)
      return reply
        .code(400)
        .type('text/html; charset=utf-8')
        .send(errorPage(checked.fatal ?? checked.error!));
    if (f.get('allow') !== '1')
      return redirectWith(reply, q, { error: 'access_denied', error_description: 'The user has denied the request' });
    const who = deps.people().find((p) => p.sub === f.get('sub'));
    if (!who) return reply.code(400).type('text/html; charset=utf-8').send(errorPage('unknown user'));
    return redirectWith(reply, q, { code: issueCode(checked.channel!, q, who) });
  });

  app.post('/oauth2/v2.1/token', async (req, reply) => {
    if (!isForm(req.headers['content-type']))
      return oauthError(reply, 400, 'invalid_request', 'content-type must be application/x-www-form-urlencoded');
    const f = form(req.body);
    if (f.get('grant_type') !== 'authorization_code') return oauthError(reply, 400, 'unsupported_grant_type', 'unsupported grant_type');
    const ch = deps.channels.get(f.get('client_id') ?? '');
    if (!ch || !safeEqual(f.get('client_secret') ?? '', ch.channelSecret))
      return oauthError(reply, 400, 'invalid_client', 'invalid client');
    const code = f.get('code') ?? '';
    const c = codes.get(code);
    codes.delete(code); // single use, whatever happens next
    if (!c || c.expires <= nowMs() || c.clientId !== ch.channelId)
      return oauthError(reply, 400, 'invalid_grant', 'invalid authorization code');
    if (f.get('redirect_uri') !== c.redirectUri) return oauthError(reply, 400, 'invalid_grant', 'redirect_uri does not match');
    if (
      c.challenge &&
      createHash('sha256')
        .update(f.get('code_verifier') ?? '')
        .digest('base64url') !== c.challenge
    )
      return oauthError(reply, 400, 'invalid_grant', 'invalid code_verifier');
    return reply.send({
      access_token: randomBytes(24).toString('base64url'),
      token_type: 'Bearer',
      expires_in: 2592000,
      refresh_token: randomBytes(16).toString('base64url'),
      scope: 'openid profile',
      id_token: signIdToken(ch.channelSecret, c.claims),
    });
  });

  app.post('/oauth2/v2.1/verify', async (req, reply) => {
    deps.state.verifyCalls++;
    if (!isForm(req.headers['content-type']))
      return oauthError(reply, 400, 'invalid_request', 'content-type must be application/x-www-form-urlencoded');
    const f = form(req.body);
    const ch = deps.channels.get(f.get('client_id') ?? '');
    if (!ch) return oauthError(reply, 400, 'invalid_request', 'Invalid client_id.');
    const t = readIdToken(f.get('id_token') ?? '');
    if (!t) return oauthError(reply, 400, 'invalid_request', 'Invalid IdToken.');
    // A token is signed with the secret of the channel it was made for: checking it with this
    // client's secret refuses another channel's token as a bad signature, as LINE does.
    const signedByThis = macOk(ch.channelSecret, t.signed, t.mac);
    if (!deps.state.lenient) {
      if (!signedByThis)
        return oauthError(reply, 400, 'invalid_request', t.claims.aud !== ch.channelId ? 'Invalid IdToken Audience.' : 'Invalid IdToken.');
      if (t.claims.iss !== ISSUER) return oauthError(reply, 400, 'invalid_request', 'Invalid IdToken Issuer.');
      if (typeof t.claims.exp !== 'number' || t.claims.exp <= Math.floor(nowMs() / 1000))
        return oauthError(reply, 400, 'invalid_request', 'IdToken expired.');
      if (t.claims.aud !== ch.channelId) return oauthError(reply, 400, 'invalid_request', 'Invalid IdToken Audience.');
      if (f.get('nonce') && t.claims.nonce !== f.get('nonce')) return oauthError(reply, 400, 'invalid_request', 'Invalid IdToken Nonce.');
      if (f.get('user_id') && t.claims.sub !== f.get('user_id'))
        return oauthError(reply, 400, 'invalid_request', 'Invalid IdToken Subject Identifier.');
    } else if (![...deps.channels.values()].some((c) => macOk(c.channelSecret, t.signed, t.mac))) {
      return oauthError(reply, 400, 'invalid_request', 'Invalid IdToken.');
    }
    return reply.send(t.claims);
  });

  /**
   * What the LINE app does when a LIFF URL (liff.line.me/<liffId>) is opened: signs the person in to the
   * LIFF app's channel (authorization code, nonce and PKCE, as LINE Login does) and opens the endpoint
   * URL with the ID token. The mini-app in LIFF mock mode reads it from `mockIdToken`.
   */
  app.get<{ Params: { liffId: string }; Querystring: { as?: string } }>('/liff/:liffId', async (req, reply) => {
    const ch = [...deps.channels.values()].find((c) => c.liffId === req.params.liffId);
    if (!ch || !ch.liffEndpoint) return reply.code(404).type('text/html; charset=utf-8').send(errorPage('unknown LIFF app'));
    const who = deps.people().find((p) => p.sub === req.query.as) ?? deps.state.authorizeAs;
    if (!who)
      return reply
        .code(400)
        .type('text/html; charset=utf-8')
        .send(errorPage('open the mini-app from the chat simulator (choose who you are there)'));
    const nonce = randomBytes(16).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: ch.channelId,
      redirect_uri: ch.liffEndpoint,
      state: randomBytes(8).toString('hex'),
      scope: 'openid profile',
      nonce,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const code = issueCode(ch, q, who);
    const c = codes.get(code)!;
    codes.delete(code);
    if (c.claims.nonce !== nonce) throw new Error('nonce lost');
    const idToken = signIdToken(ch.channelSecret, c.claims);
    const to = new URL(ch.liffEndpoint);
    to.searchParams.set('mockIdToken', idToken);
    return reply.redirect(to.toString(), 302);
  });
}

function safeEqual(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const PAGE_CSS =
  'body{font-family:system-ui,sans-serif;max-width:380px;margin:40px auto;padding:0 16px;color:#111}h1{font-size:20px}.who{display:block;width:100%;margin:8px 0;padding:12px;border:1px solid #06c755;border-radius:8px;background:#fff;font-size:16px;text-align:left}.who:hover{background:#e8f9ee}.cancel{margin-top:16px;background:none;border:0;color:#555;text-decoration:underline}.note{color:#666;font-size:13px}';

function errorPage(why: string): string {
  return `<!doctype html><meta charset="utf-8"><title>LINE Login (sandbox)</title><style>${PAGE_CSS}</style><h1>LINE Login · sandbox</h1><p>400 Bad Request: ${esc(why)}</p>`;
}

function consentPage(q: URLSearchParams, people: Array<{ sub: string; name: string }>): string {
  const request = esc(q.toString());
  const buttons = people
    .map(
      (p) =>
        `<form method="post" action="/oauth2/v2.1/authorize/consent"><input type="hidden" name="request" value="${request}"><input type="hidden" name="sub" value="${esc(p.sub)}"><input type="hidden" name="allow" value="1"><button class="who" type="submit">${esc(p.name)} <span class="note">${esc(p.sub.slice(0, 9))}…</span></button></form>`,
    )
    .join('');
  return `<!doctype html><html lang="th"><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>LINE Login (sandbox)</title><style>${PAGE_CSS}</style>
<h1>เข้าสู่ระบบด้วย LINE · Log in with LINE</h1>
<p class="note">Sandbox LINE Login: เลือกผู้ใช้ LINE จำลอง · choose a simulated LINE user. Real LINE asks for your LINE account here.</p>
${buttons || '<p>ยังไม่มีผู้ใช้จำลอง · no simulated users yet: open the chat simulator first.</p>'}
<form method="post" action="/oauth2/v2.1/authorize/consent"><input type="hidden" name="request" value="${request}"><button class="cancel" type="submit">ยกเลิก · Cancel</button></form></html>`;
}
