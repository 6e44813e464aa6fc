import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type DbKind, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { cookieFrom, createDashHarness, ORIGIN, signup, UA, type Owner } from '../dashboard/dash-helpers.js';
import { startFakeLineLogin, type FakeLineLogin } from './fake-line-login.js';

const CHANNEL_ID = '1657000001';
const CHANNEL_SECRET = 'fake-line-login-channel-secret';

for (const kind of DB_KINDS) describe.skipIf(pgMissing(kind))(`sign-in with LINE (${kind})${skipNote(kind)}`, () => suite(kind));

/** The suite of one database kind (declared per kind above; hoisted). */
function suite(kind: DbKind) {
  let h: Harness;
  let clock: Awaited<ReturnType<typeof createDashHarness>>['clock'];
  let fake: FakeLineLogin;
  let seq = 0;

  beforeAll(async () => {
    const started = { now: () => new Date() };
    fake = await startFakeLineLogin({
      channelId: CHANNEL_ID,
      channelSecret: CHANNEL_SECRET,
      now: () => started.now(),
      callbackUrls: [`${ORIGIN}/api/dashboard/auth/line/callback`],
    });
    ({ h, clock } = await createDashHarness(kind, {
      LINE_API_BASE_URL: fake.url,
      LINE_LOGIN_CHANNEL_ID: CHANNEL_ID,
      LINE_LOGIN_CHANNEL_SECRET: CHANNEL_SECRET,
      LIFF_ID: '1657000001-AbCdEfGh',
      LINE_LOGIN_AUTHORIZE_URL: `${fake.url}/oauth2/v2.1/authorize`,
      RATE_LIMIT_LOGIN: '1000',
      RATE_LIMIT_DASHBOARD: '10000',
    }));
    started.now = () => clock.now();
  });
  afterAll(async () => {
    await h?.close();
    await fake?.close();
  });

  const nowSec = () => Math.floor(clock.now().getTime() / 1000);
  const tokenFor = (sub: string, over: Partial<{ aud: string; exp: number; iss: string; nonce: string }> = {}) =>
    fake.issue({ sub, aud: CHANNEL_ID, exp: nowSec() + 600, name: 'สมชาย', ...over });
  const ip = () => `10.77.${++seq % 250}.${(seq * 7) % 250}`;
  /** The mini-app asks for a sign-in nonce first: it comes back in the body and in a signed cookie. */
  const newNonce = async () => {
    const res = await h.app.inject({ method: 'POST', url: '/api/miniapp/nonce', headers: { origin: ORIGIN } });
    expect(res.statusCode).toBe(200);
    const cookie = /^(slipcheck_line_nonce=[^;]+)/.exec(String([res.headers['set-cookie']].flat()[0]))![1]!;
    return { nonce: res.json().data.nonce as string, cookie };
  };
  const miniSignIn = async (idToken: string, shopId?: string, remoteAddress = ip(), n?: { nonce: string; cookie: string }) => {
    const { nonce, cookie } = n ?? (await newNonce());
    return h.app.inject({
      method: 'POST',
      url: '/api/miniapp/auth/line',
      remoteAddress,
      headers: { origin: ORIGIN, 'user-agent': `${UA} Line/14.0`, cookie },
      payload: { idToken, nonce, ...(shopId ? { shopId } : {}) },
    });
  };
  const newCode = async (o: { auth: Record<string, string> }) => {
    const res = await h.app.inject({ method: 'POST', url: '/api/dashboard/line-login/code', headers: o.auth });
    expect(res.statusCode).toBe(201);
    return res.json().data as { code: string; expiresAt: string; miniAppUrl: string };
  };
  const link = async (idToken: string, code: string) => {
    const { nonce, cookie } = await newNonce();
    return h.app.inject({
      method: 'POST',
      url: '/api/miniapp/link',
      remoteAddress: ip(),
      headers: { origin: ORIGIN, 'user-agent': `${UA} Line/14.0`, cookie },
      payload: { idToken, code, nonce },
    });
  };
  const linkedOwner = async (): Promise<{ o: Owner; sub: string }> => {
    const o = await signup(h);
    const sub = fake.lineUserId();
    const res = await link(tokenFor(sub), (await newCode(o)).code);
    expect(res.statusCode, res.body).toBe(200);
    return { o, sub };
  };
  const joinStaff = async (o: Owner) => {
    const email = `staff${++seq}@example.com`;
    expect(
      (await h.app.inject({ method: 'POST', url: '/api/dashboard/team/invites', headers: o.auth, payload: { email } })).statusCode,
    ).toBe(201);
    const [m] = await h.c.mail.list({ to: email, limit: 1 });
    const token = /accept-invite\?token=(inv_[A-Za-z0-9_-]+)/.exec(m?.text ?? '')![1];
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/dashboard/auth/accept-invite',
      headers: { 'user-agent': UA },
      remoteAddress: ip(),
      payload: { token, password: 'staff password 1' },
    });
    expect(res.statusCode).toBe(201);
    return { auth: { authorization: `Bearer ${res.json().data.accessToken}` }, userId: res.json().data.user.id as string };
  };
  const refreshWith = (cookie: string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/dashboard/auth/refresh',
      headers: { cookie: `slipcheck_refresh=${cookie}`, origin: ORIGIN, 'user-agent': UA },
    });
  const sessionsOf = async (auth: Record<string, string>) =>
    (await h.app.inject({ method: 'GET', url: '/api/dashboard/sessions', headers: auth })).json().data.items as Array<{
      kind: string;
      current: boolean;
    }>;

  it('the mini-app reads its LIFF id and whether LINE sign-in is on', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/miniapp/config' });
    expect(res.json().data).toEqual({
      liffId: '1657000001-AbCdEfGh',
      mock: false,
      loginWithLine: true,
      miniAppUrl: 'https://liff.line.me/1657000001-AbCdEfGh',
    });
  });

  it('a linked owner signs in with the LIFF ID token: a mini-app session under the dashboard rules, new-device mail, audit', async () => {
    const { o, sub } = await linkedOwner();
    const res = await miniSignIn(tokenFor(sub));
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.shop.id).toBe(o.shopId);
    expect(data.user.role).toBe('owner');
    expect(data.shops).toEqual([{ shopId: o.shopId, shopName: 'ร้านทดสอบ', role: 'owner' }]);
    const cookieLine = String([res.headers['set-cookie']].flat()[0]);
    expect(cookieLine).toMatch(/HttpOnly/);
    expect(cookieLine).toMatch(/SameSite=Strict/);
    expect(cookieLine).toMatch(/Path=\/api/);
    const auth = { authorization: `Bearer ${data.accessToken}` };
    const sessions = await sessionsOf(auth);
    expect(sessions.find((s) => s.current)?.kind).toBe('miniapp');
    expect(sessions.some((s) => s.kind === 'dashboard')).toBe(true);
    // The mini-app uses the dashboard API with its token.
    expect((await h.app.inject({ method: 'GET', url: '/api/dashboard/overview', headers: auth })).statusCode).toBe(200);
    const mails = await h.c.mail.list({ to: o.email, limit: 10 });
    expect(mails.some((m: { template: string }) => m.template === 'new_device_login')).toBe(true);
    const actions = (await h.c.audit.list(o.shopId, 50)).map(
      (e: { action: string; detail: Record<string, unknown> }) => `${e.action}:${e.detail.method ?? ''}`,
    );
    expect(actions).toContain('auth.login:line');
    expect(actions).toContain('line_login.link:');
  });

  it('a LINE user linked to no shop gets a clear 403 and nothing of any shop', async () => {
    const res = await miniSignIn(tokenFor(fake.lineUserId()));
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('LINE_NOT_LINKED');
    expect(String(res.headers['set-cookie'] ?? '')).not.toMatch(/slipcheck_refresh=/);
    expect(res.body).not.toMatch(/shop_/);
  });

  it('expired, wrong-audience and forged tokens are refused; a lenient endpoint cannot fool the service', async () => {
    const { sub } = await linkedOwner();
    const cases = [tokenFor(sub, { exp: nowSec() - 1 }), tokenFor(sub, { aud: '1999999999' }), `${tokenFor(sub).slice(0, -4)}AAAA`];
    for (const t of cases) {
      const res = await miniSignIn(t);
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('LINE_TOKEN_INVALID');
    }
    fake.state.lenient = true;
    try {
      for (const t of [
        tokenFor(sub, { exp: nowSec() - 1 }),
        tokenFor(sub, { aud: '1999999999' }),
        tokenFor(sub, { iss: 'https://evil.example' }),
      ]) {
        const res = await miniSignIn(t);
        expect(res.statusCode).toBe(401);
      }
    } finally {
      fake.state.lenient = false;
    }
  });

  it('a link code works once, expires, and a code from another person links only that person', async () => {
    const o = await signup(h);
    const { code } = await newCode(o);
    const sub = fake.lineUserId();
    expect((await link(tokenFor(sub), code)).statusCode).toBe(200);
    const again = await link(tokenFor(fake.lineUserId()), code);
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('LINK_CODE_INVALID');
    const late = await newCode(o);
    clock.advance(11 * 60_000);
    expect((await link(tokenFor(fake.lineUserId()), late.code)).json().code).toBe('LINK_CODE_INVALID');
    const status = await h.app.inject({ method: 'GET', url: '/api/dashboard/line-login', headers: o.auth });
    expect(status.json().data).toMatchObject({ enabled: true, linked: true });
  });

  it('one LINE user in two shops: a shop switcher, staff keep staff permissions, a foreign shop id answers like an unlinked one', async () => {
    const { o: ownerA, sub } = await linkedOwner();
    const ownerB = await signup(h, { shopName: 'ร้าน B' });
    await h.c.shops.setPlan(ownerB.shopId, 'GROWTH', 'test'); // staff seats
    const staffB = await joinStaff(ownerB);
    expect((await link(tokenFor(sub), (await newCode(staffB)).code)).statusCode).toBe(200);
    const first = await miniSignIn(tokenFor(sub));
    expect(
      first
        .json()
        .data.shops.map((s: { shopId: string; role: string }) => `${s.shopId}:${s.role}`)
        .sort(),
    ).toEqual([`${ownerA.shopId}:owner`, `${ownerB.shopId}:staff`].sort());
    const asStaff = await miniSignIn(tokenFor(sub), ownerB.shopId);
    expect(asStaff.statusCode).toBe(200);
    expect(asStaff.json().data.user.role).toBe('staff');
    const staffAuth = { authorization: `Bearer ${asStaff.json().data.accessToken}` };
    const ownerOnly = await h.app.inject({
      method: 'POST',
      url: '/api/dashboard/api-keys',
      headers: staffAuth,
      payload: { environment: 'test', scopes: ['verify'] },
    });
    expect(ownerOnly.statusCode).toBe(403);
    expect(ownerOnly.json().code).toBe('OWNER_ONLY');
    const stranger = await signup(h);
    const foreign = await miniSignIn(tokenFor(sub), stranger.shopId);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().code).toBe('LINE_NOT_LINKED');
    // The switcher moves the current session (no second use of the ID token): the old session ends.
    const sw = (cookie: string, shopId: string) =>
      h.app.inject({
        method: 'POST',
        url: '/api/miniapp/switch',
        headers: { origin: ORIGIN, cookie: `slipcheck_refresh=${cookie}`, 'user-agent': UA },
        payload: { shopId },
      });
    const firstCookie = cookieFrom(first)!;
    const moved = await sw(firstCookie, ownerB.shopId);
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data).toMatchObject({ shop: { id: ownerB.shopId }, user: { role: 'staff' } });
    expect((await refreshWith(firstCookie)).statusCode).toBe(401);
    expect((await sw(cookieFrom(moved)!, stranger.shopId)).json().code).toBe('LINE_NOT_LINKED');
    // A password session has no LINE user to switch with.
    expect((await sw(ownerB.refresh, ownerA.shopId)).statusCode).toBe(403);
  });

  it('offers only the shops the LINE user may still enter, by shop name: not as a disabled person, not in an erased shop', async () => {
    const sub = fake.lineUserId();
    const owners: Owner[] = [];
    for (const shopName of ['ร้าน ข', 'ร้าน ก', 'ร้าน ค', 'ร้าน ง']) {
      const o = await signup(h, { shopName });
      expect((await link(tokenFor(sub), (await newCode(o)).code)).statusCode).toBe(200);
      owners.push(o);
    }
    const [, , erased, disabled] = owners;
    const at = clock.now().toISOString();
    await h.c.db.updateTable('shops').set({ deleted_at: at }).where('id', '=', erased!.shopId).execute();
    await h.c.db.updateTable('users').set({ disabled_at: at }).where('id', '=', disabled!.userId).execute();
    const res = await miniSignIn(tokenFor(sub));
    expect(res.statusCode).toBe(200);
    expect(res.json().data.shops.map((m: { shopName: string }) => m.shopName)).toEqual(['ร้าน ก', 'ร้าน ข']);
    expect((await miniSignIn(tokenFor(sub), disabled!.shopId)).json().code).toBe('LINE_NOT_LINKED');
  });

  it('refresh rotation and reuse detection hold for mini-app sessions; unlinking ends them and keeps the dashboard session', async () => {
    const { o, sub } = await linkedOwner();
    const res = await miniSignIn(tokenFor(sub));
    const auth = { authorization: `Bearer ${res.json().data.accessToken}` };
    const c1 = cookieFrom(res)!;
    const refresh = (cookie: string) =>
      h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/refresh',
        headers: { cookie: `slipcheck_refresh=${cookie}`, origin: ORIGIN, 'user-agent': UA },
      });
    const r1 = await refresh(c1);
    expect(r1.statusCode).toBe(200);
    const c2 = cookieFrom(r1)!;
    clock.advance(60_000);
    const reuse = await refresh(c1);
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json().code).toBe('REFRESH_REUSED');
    expect((await refresh(c2)).statusCode).toBe(401); // the whole chain is gone

    const again = await miniSignIn(tokenFor(sub));
    const miniAuth = { authorization: `Bearer ${again.json().data.accessToken}` };
    expect((await h.app.inject({ method: 'GET', url: '/api/dashboard/me', headers: miniAuth })).statusCode).toBe(200);
    const unlink = await h.app.inject({ method: 'DELETE', url: '/api/dashboard/line-login', headers: o.auth });
    expect(unlink.statusCode).toBe(204);
    expect((await h.app.inject({ method: 'GET', url: '/api/dashboard/me', headers: miniAuth })).statusCode).toBe(401);
    expect((await h.app.inject({ method: 'GET', url: '/api/dashboard/me', headers: o.auth })).statusCode).toBe(200);
    expect((await miniSignIn(tokenFor(sub))).json().code).toBe('LINE_NOT_LINKED');
    expect((await h.c.audit.list(o.shopId, 50)).map((e: { action: string }) => e.action)).toContain('line_login.unlink');
    expect(auth.authorization).toMatch(/^Bearer /);
  });

  it('"Log in with LINE" on the dashboard: OAuth code flow with state, nonce and PKCE S256', async () => {
    const { o, sub } = await linkedOwner();
    const start = await h.app.inject({ method: 'GET', url: '/api/dashboard/auth/line/start' });
    expect(start.statusCode).toBe(302);
    const authorize = new URL(String(start.headers.location));
    expect(authorize.origin).toBe(fake.url);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{30,}$/);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${ORIGIN}/api/dashboard/auth/line/callback`);
    const oauthCookie = /^(slipcheck_line_oauth=[^;]+)/.exec(String([start.headers['set-cookie']].flat()[0]))![1];

    // The person signs in at (fake) LINE, which redirects back with a code.
    fake.state.authorizeAs = { sub };
    const back = await fetch(authorize, { redirect: 'manual' });
    const callback = new URL(back.headers.get('location')!);
    const cb = (query: string, cookie = oauthCookie) =>
      h.app.inject({ method: 'GET', url: `/api/dashboard/auth/line/callback${query}`, headers: { cookie, 'user-agent': UA } });

    const tampered = await cb(`?code=${callback.searchParams.get('code')}&state=forged`);
    expect(tampered.headers.location).toBe('/login?line=LINE_STATE_MISMATCH');
    const noCookie = await cb(callback.search, '');
    expect(noCookie.headers.location).toBe('/login?line=LINE_STATE_MISMATCH');

    const ok = await cb(callback.search);
    expect(ok.statusCode).toBe(302);
    expect(ok.headers.location).toBe('/');
    const refreshCookie = cookieFrom(ok);
    expect(refreshCookie).toMatch(/^rt_/);
    const r = await h.app.inject({
      method: 'POST',
      url: '/api/dashboard/auth/refresh',
      headers: { cookie: `slipcheck_refresh=${refreshCookie}`, origin: ORIGIN, 'user-agent': UA },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json().data.shop.id).toBe(o.shopId);

    // A LINE user linked to no shop is sent back to the sign-in page with the reason.
    fake.state.authorizeAs = { sub: fake.lineUserId() };
    const start2 = await h.app.inject({ method: 'GET', url: '/api/dashboard/auth/line/start' });
    const back2 = await fetch(String(start2.headers.location), { redirect: 'manual' });
    const cookie2 = /^(slipcheck_line_oauth=[^;]+)/.exec(String([start2.headers['set-cookie']].flat()[0]))![1];
    const denied = await cb(new URL(back2.headers.get('location')!).search, cookie2);
    expect(denied.headers.location).toBe('/login?line=LINE_NOT_LINKED');
  });

  /** "Log in with LINE" on the dashboard, end to end through the fake: the refresh cookie it sets. */
  const dashboardLineLogin = async (sub: string) => {
    const start = await h.app.inject({ method: 'GET', url: '/api/dashboard/auth/line/start' });
    const oauthCookie = /^(slipcheck_line_oauth=[^;]+)/.exec(String([start.headers['set-cookie']].flat()[0]))![1]!;
    fake.state.authorizeAs = { sub };
    const back = await fetch(String(start.headers.location), { redirect: 'manual' });
    const cb = await h.app.inject({
      method: 'GET',
      url: `/api/dashboard/auth/line/callback${new URL(back.headers.get('location')!).search}`,
      headers: { cookie: oauthCookie, 'user-agent': UA },
    });
    expect(cb.headers.location).toBe('/');
    return cookieFrom(cb)!;
  };

  it('unlinking LINE ends every session that LINE identity opened: the mini-app and the dashboard "Log in with LINE"', async () => {
    const { o, sub } = await linkedOwner();
    const viaLine = await dashboardLineLogin(sub);
    const mini = await miniSignIn(tokenFor(sub));
    expect(mini.statusCode).toBe(200);
    const unlink = await h.app.inject({ method: 'DELETE', url: '/api/dashboard/line-login', headers: o.auth });
    expect(unlink.statusCode).toBe(204);
    const r = await refreshWith(viaLine);
    expect(r.statusCode).toBe(401);
    expect((await refreshWith(cookieFrom(mini)!)).statusCode).toBe(401);
    // The password session of the same person is not LINE's to end.
    expect((await refreshWith(o.refresh)).statusCode).toBe(200);
  });

  it('removing a staff member ends the sessions LINE opened for them, on every surface', async () => {
    const owner = await signup(h, { shopName: 'ร้าน staff' });
    await h.c.shops.setPlan(owner.shopId, 'GROWTH', 'test');
    const staff = await joinStaff(owner);
    const sub = fake.lineUserId();
    expect((await link(tokenFor(sub), (await newCode(staff)).code)).statusCode).toBe(200);
    const viaLine = await dashboardLineLogin(sub);
    const mini = cookieFrom(await miniSignIn(tokenFor(sub)))!;
    const removed = await h.app.inject({ method: 'DELETE', url: `/api/dashboard/team/members/${staff.userId}`, headers: owner.auth });
    expect(removed.statusCode).toBe(200);
    expect((await refreshWith(viaLine)).statusCode).toBe(401);
    expect((await refreshWith(mini)).statusCode).toBe(401);
  });

  it('an ID token opens one session only: the same token again is refused, on either surface', async () => {
    const { sub } = await linkedOwner();
    const t = tokenFor(sub);
    expect((await miniSignIn(t)).statusCode).toBe(200);
    const second = await miniSignIn(t);
    expect(second.statusCode).toBe(401);
    expect(second.json().code).toBe('LINE_TOKEN_INVALID');
    expect(second.headers['set-cookie'] ?? '').not.toMatch(/slipcheck_refresh=rt_/);
    // A refused sign-in (not linked) does not spend the token: the same token can then carry the link.
    const fresh = fake.lineUserId();
    const t2 = tokenFor(fresh);
    expect((await miniSignIn(t2)).json().code).toBe('LINE_NOT_LINKED');
    const o2 = await signup(h);
    expect((await link(t2, (await newCode(o2)).code)).statusCode).toBe(200);
    const again = await link(t2, (await newCode(o2)).code);
    expect(again.statusCode).toBe(401);
    // The spent token is remembered until it expires, as a hash only.
    const rows = await h.c.db
      .selectFrom('line_id_tokens' as never)
      .selectAll()
      .execute();
    expect(JSON.stringify(rows)).not.toContain(t.split('.')[2]);
  });

  const resume = (idToken: string, cookie?: string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/miniapp/resume',
      remoteAddress: ip(),
      headers: { origin: ORIGIN, 'user-agent': `${UA} Line/14.0`, ...(cookie ? { cookie: `slipcheck_refresh=${cookie}` } : {}) },
      payload: { idToken },
    });
  const currentSessionId = async (accessToken: string) =>
    (await h.app.inject({ method: 'GET', url: '/api/dashboard/sessions', headers: { authorization: `Bearer ${accessToken}` } }))
      .json()
      .data.items.find((s: { current: boolean }) => s.current)?.id as string | undefined;

  it("a reload resumes the mini-app session with LIFF's cached ID token, for the same LINE user only; the token still opens no second session", async () => {
    const { o, sub } = await linkedOwner();
    const t = tokenFor(sub);
    const first = await miniSignIn(t);
    expect(first.statusCode).toBe(200);
    const firstSession = await currentSessionId(first.json().data.accessToken);
    // The reload: the same token, the refresh cookie the sign-in set.
    const again = await resume(t, cookieFrom(first)!);
    expect(again.statusCode, again.body).toBe(200);
    const data = again.json().data;
    expect(data.user.id).toBe(o.userId);
    expect(data.shop.id).toBe(o.shopId);
    expect(data.shops).toEqual([{ shopId: o.shopId, shopName: 'ร้านทดสอบ', role: 'owner' }]);
    expect(await currentSessionId(data.accessToken)).toBe(firstSession);
    // Rotated like a refresh: the next reload uses the new cookie, and a copied old one past the grace is theft.
    const c2 = cookieFrom(again)!;
    expect(c2).not.toBe(cookieFrom(first));
    expect((await resume(t, c2)).statusCode).toBe(200);
    // Resuming is no sign-in: the token still opens no new session.
    expect((await miniSignIn(t)).json().code).toBe('LINE_TOKEN_INVALID');
    // A token LIFF renewed meanwhile continues the session too, and is spent by it.
    const renewed = tokenFor(sub);
    const r3 = await resume(renewed, cookieFrom(await refreshWith(c2))!);
    expect(r3.statusCode).toBe(200);
    expect((await miniSignIn(renewed)).json().code).toBe('LINE_TOKEN_INVALID');
  });

  it("another person's session in the browser is never resumed: a password session, another LINE user's mini-app session, or none", async () => {
    const a = await linkedOwner();
    const b = await linkedOwner();
    const tA = tokenFor(a.sub);
    // B's dashboard (password) session in the cookie, A in LIFF: refused, and B's session is untouched.
    const foreign = await resume(tA, b.o.refresh);
    expect(foreign.statusCode).toBe(401);
    expect(foreign.json().code).toBe('REFRESH_INVALID');
    expect(foreign.headers['set-cookie'] ?? '').not.toMatch(/slipcheck_refresh=rt_/);
    expect(foreign.body).not.toContain(b.o.shopId);
    expect((await refreshWith(b.o.refresh)).statusCode).toBe(200);
    // B's LINE mini-app session in the cookie, A in LIFF: refused too, B's session untouched.
    const bMini = await miniSignIn(tokenFor(b.sub));
    const bCookie = cookieFrom(bMini)!;
    const other = await resume(tA, bCookie);
    expect(other.statusCode).toBe(401);
    expect(other.json().code).toBe('REFRESH_INVALID');
    expect(other.body).not.toContain(b.o.shopId);
    expect((await refreshWith(bCookie)).statusCode).toBe(200);
    // A's own password session is no mini-app session: not taken over by the LINE token either.
    expect((await resume(tA, a.o.refresh)).json().code).toBe('REFRESH_INVALID');
    expect((await refreshWith(a.o.refresh)).statusCode).toBe(200);
    // A's dashboard session from "Log in with LINE" (the same LINE user, but not the mini-app's own): not resumed.
    const viaLine = await h.c.sessions.start(
      { id: a.o.userId, shopId: a.o.shopId },
      { ip: null, userAgent: UA },
      h.c.db,
      'dashboard',
      a.sub,
    );
    expect((await resume(tA, viaLine.refreshToken)).json().code).toBe('REFRESH_INVALID');
    // The same person, re-linked to another LINE user C: C's token does not continue the session LINE user A opened.
    const aMini = await miniSignIn(tokenFor(a.sub));
    const c = fake.lineUserId();
    expect((await link(tokenFor(c), (await newCode(a.o)).code)).statusCode).toBe(200);
    expect((await resume(tokenFor(c), cookieFrom(aMini)!)).json().code).toBe('REFRESH_INVALID');
    expect((await h.app.inject({ method: 'DELETE', url: '/api/dashboard/line-login', headers: a.o.auth })).statusCode).toBe(204);
    expect((await link(tokenFor(a.sub), (await newCode(a.o)).code)).statusCode).toBe(200);
    // No cookie at all: nothing to resume, and the token was not spent, so the normal sign-in takes it.
    const none = await resume(tA);
    expect(none.statusCode).toBe(401);
    expect(none.json().code).toBe('REFRESH_INVALID');
    const signedIn = await miniSignIn(tA);
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().data.user.id).toBe(a.o.userId);
    // After unlinking, A's mini-app session is not resumed either.
    const aCookie = cookieFrom(signedIn)!;
    expect((await h.app.inject({ method: 'DELETE', url: '/api/dashboard/line-login', headers: a.o.auth })).statusCode).toBe(204);
    expect((await resume(tA, aCookie)).json().code).toBe('REFRESH_INVALID');
  });

  it('resuming needs a valid ID token of that LINE user: expired, forged and other-channel tokens are refused and leave the session as it was', async () => {
    const { sub } = await linkedOwner();
    const signedIn = await miniSignIn(tokenFor(sub));
    const cookie = cookieFrom(signedIn)!;
    for (const t of [tokenFor(sub, { exp: nowSec() - 1 }), `${tokenFor(sub).slice(0, -4)}AAAA`, tokenFor(sub, { aud: '1999999999' })]) {
      const res = await resume(t, cookie);
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('LINE_TOKEN_INVALID');
      expect(res.headers['set-cookie'] ?? '').not.toMatch(/slipcheck_refresh=rt_/);
    }
    // Not rotated by the refusals: the cookie is still the live one.
    expect((await resume(tokenFor(sub), cookie)).statusCode).toBe(200);
  });

  it('refuses iat in the future beyond a small skew and exp further ahead than LINE issues', async () => {
    const { sub } = await linkedOwner();
    const future = await miniSignIn(tokenFor(sub, { iat: nowSec() + 600, exp: nowSec() + 4200 } as never));
    expect(future.statusCode).toBe(401);
    expect(future.json().code).toBe('LINE_TOKEN_INVALID');
    const longLived = await miniSignIn(tokenFor(sub, { iat: nowSec(), exp: nowSec() + 24 * 3600 } as never));
    expect(longLived.statusCode).toBe(401);
    // A few seconds of clock skew is fine.
    expect((await miniSignIn(tokenFor(sub, { iat: nowSec() + 5, exp: nowSec() + 3605 } as never))).statusCode).toBe(200);
  });

  it("the mini-app sign-in carries the service nonce: none, a forged one or a spent one is refused; LIFF's own nonce in the token does not block it", async () => {
    const { sub } = await linkedOwner();
    const none = await h.app.inject({
      method: 'POST',
      url: '/api/miniapp/auth/line',
      remoteAddress: ip(),
      headers: { origin: ORIGIN },
      payload: { idToken: tokenFor(sub) },
    });
    expect(none.statusCode).toBe(400);
    const n = await newNonce();
    const noCookie = await h.app.inject({
      method: 'POST',
      url: '/api/miniapp/auth/line',
      remoteAddress: ip(),
      headers: { origin: ORIGIN },
      payload: { idToken: tokenFor(sub), nonce: n.nonce },
    });
    expect(noCookie.statusCode).toBe(401);
    expect((await miniSignIn(tokenFor(sub), undefined, ip(), { nonce: 'x'.repeat(22), cookie: n.cookie })).statusCode).toBe(401);
    // LIFF does not let the page choose the nonce in its ID token: a token carrying LIFF's own nonce
    // signs in when the service's nonce round trip (body and cookie) holds. Each token still works once.
    const n2 = await newNonce();
    const ok = await miniSignIn(tokenFor(sub, { nonce: 'nonce-liff-chose-at-its-login' }), undefined, ip(), n2);
    expect(ok.statusCode).toBe(200);
    expect(String([ok.headers['set-cookie']].flat())).toMatch(/slipcheck_line_nonce=;/);
    // The same nonce and cookie again (a copied request) are refused, even with a new token.
    expect((await miniSignIn(tokenFor(sub), undefined, ip(), n2)).statusCode).toBe(401);
  });
}
