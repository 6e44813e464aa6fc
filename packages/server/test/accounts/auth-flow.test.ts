import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { cookieFrom, createDashHarness, ORIGIN, signup, UA } from '../dashboard/dash-helpers.js';

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`dashboard auth [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let clock: Awaited<ReturnType<typeof createDashHarness>>['clock'];
    beforeAll(async () => {
      ({ h, clock } = await createDashHarness(kind));
    });
    afterAll(async () => h.close());

    const refresh = (cookie: string | null, origin: string | null = ORIGIN, ip = '10.9.9.9') =>
      h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/refresh',
        remoteAddress: ip,
        headers: { ...(cookie ? { cookie: `other=1; slipcheck_refresh=${cookie}` } : {}), ...(origin ? { origin } : {}), 'user-agent': UA },
      });

    it('sign-up starts on TRIAL whatever card was chosen, sets a secure cookie, and mails a welcome', async () => {
      const o = await signup(h, { planCode: 'GROWTH', shopName: 'ร้านกาแฟ ดอยช้าง' });
      const d = o.res.json().data;
      expect(d.shop).toMatchObject({ planCode: 'TRIAL', state: 'trial', chosenPlanCode: 'GROWTH', name: 'ร้านกาแฟ ดอยช้าง', language: 'th' });
      expect(d.user.email).toBe(o.email);
      expect(Date.parse(d.accessTokenExpiresAt) - clock.now().getTime()).toBe(15 * 60_000);
      const setCookie = String(o.res.headers['set-cookie']);
      expect(setCookie).toMatch(/HttpOnly/);
      expect(setCookie).toMatch(/Secure/);
      expect(setCookie).toMatch(/SameSite=Strict/);
      expect(setCookie).toMatch(/Path=\/api(;|$)/);
      expect(o.res.body).not.toContain('password');
      const mails = await h.c.mail.list({ to: o.email });
      expect(mails.map((m) => m.template)).toEqual(['welcome']);
      expect(mails[0].text).toMatch(/ทดลองใช้/);
      expect(mails[0].text!.indexOf('ทดลองใช้')).toBeLessThan(mails[0].text!.indexOf('trial'));
      // the refresh token is stored only as a hash
      const rows = await h.c.db.selectFrom('refresh_tokens').select('token_hash').execute();
      expect(rows.some((r) => r.token_hash === o.refresh)).toBe(false);
      const user = await h.c.db.selectFrom('users').select('password_hash').where('email', '=', o.email).executeTakeFirstOrThrow();
      expect(user.password_hash).toMatch(/^\$argon2id\$/);
    });

    it('rejects a taken e-mail, a weak password and an unknown plan', async () => {
      const o = await signup(h);
      const post = (payload: object) =>
        h.app.inject({ method: 'POST', url: '/api/dashboard/auth/signup', remoteAddress: '10.1.1.1', payload });
      const taken = await post({ email: o.email.toUpperCase(), password: 'another long password', shopName: 'x', planCode: 'STARTER' });
      expect(taken.statusCode).toBe(409);
      expect(taken.json().code).toBe('EMAIL_TAKEN');
      const weak = await post({ email: 'weak@example.com', password: 'short', shopName: 'x', planCode: 'STARTER' });
      expect(weak.json()).toMatchObject({ statusCode: 400, code: 'WEAK_PASSWORD' });
      const plan = await post({ email: 'plan@example.com', password: 'long enough pass', shopName: 'x', planCode: 'NOPE' });
      expect(plan.json()).toMatchObject({ statusCode: 400, code: 'UNKNOWN_PLAN' });
      const extra = await post({ email: 'x@example.com', password: 'long enough pass', shopName: 'x', planCode: 'STARTER', admin: true });
      expect(extra.json()).toMatchObject({ statusCode: 400, code: 'VALIDATION_ERROR' });
    });

    it('login works, a wrong password is 401 and audited; a new device gets an e-mail notice', async () => {
      const o = await signup(h);
      const login = (password: string, ua = UA, ip = '10.2.2.2') =>
        h.app.inject({
          method: 'POST',
          url: '/api/dashboard/auth/login',
          remoteAddress: ip,
          headers: { 'user-agent': ua },
          payload: { email: o.email, password },
        });
      const bad = await login('wrong password!');
      expect(bad.statusCode).toBe(401);
      expect(bad.json().code).toBe('INVALID_CREDENTIALS');
      const unknown = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/login',
        remoteAddress: '10.2.2.3',
        payload: { email: 'nobody@example.com', password: 'whatever123' },
      });
      expect(unknown.json().message).toBe(bad.json().message);
      const ok = await login(o.password, 'Phone/1.0', '10.2.2.2');
      expect(ok.statusCode).toBe(200);
      expect(cookieFrom(ok)).toBeTruthy();
      const again = await login(o.password, 'Phone/1.0', '10.2.2.2');
      expect(again.statusCode).toBe(200);
      const mails = (await h.c.mail.list({ to: o.email })).map((m) => m.template);
      expect(mails.filter((t) => t === 'new_device_login')).toHaveLength(1);
      const actions = (await h.c.audit.list(o.shopId)).map((a) => a.action);
      expect(actions).toEqual(expect.arrayContaining(['auth.login_failed', 'auth.login', 'user.signup']));
    });

    it('an access token expires after 15 minutes; refresh rotates the cookie and gives a new one', async () => {
      const o = await signup(h);
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: o.auth })).statusCode).toBe(200);
      clock.advance(15 * 60_000 + 1000);
      const expired = await h.app.inject({ url: '/api/dashboard/me', headers: o.auth });
      expect(expired.statusCode).toBe(401);
      expect(expired.json().code).toBe('UNAUTHORIZED');
      const r = await refresh(o.refresh);
      expect(r.statusCode).toBe(200);
      const next = cookieFrom(r)!;
      expect(next).toBeTruthy();
      expect(next).not.toBe(o.refresh);
      const me = await h.app.inject({ url: '/api/dashboard/me', headers: { authorization: `Bearer ${r.json().data.accessToken}` } });
      expect(me.json().data.user.email).toBe(o.email);
    });

    it('reuse of a rotated refresh token revokes the whole chain and is audited', async () => {
      const o = await signup(h);
      const r1 = await refresh(o.refresh);
      const second = cookieFrom(r1)!;
      // Inside the grace window (the answer of r1 never reached the browser: a reload mid-refresh, or a
      // second tab): the same cookie gets a successor of its own, the session goes on.
      const again = await refresh(o.refresh);
      expect(again.statusCode).toBe(200);
      const third = cookieFrom(again)!;
      expect(third).not.toBe(second);
      expect(
        (await h.app.inject({ url: '/api/dashboard/me', headers: { authorization: `Bearer ${again.json().data.accessToken}` } }))
          .statusCode,
      ).toBe(200);
      clock.advance(11_000);
      const reuse = await refresh(o.refresh);
      expect(reuse.statusCode).toBe(401);
      expect(reuse.json().code).toBe('REFRESH_REUSED');
      // the newest tokens of the chain are dead too, and so is the access token
      for (const t of [second, third]) {
        const after = await refresh(t);
        expect(after.statusCode).toBe(401);
        expect(after.json().code).toBe('REFRESH_INVALID');
      }
      expect(
        (await h.app.inject({ url: '/api/dashboard/me', headers: { authorization: `Bearer ${r1.json().data.accessToken}` } })).statusCode,
      ).toBe(401);
      const actions = (await h.c.audit.list(o.shopId)).map((a) => a.action);
      expect(actions).toContain('session.refresh_reuse');
    });

    it('cookie routes refuse a missing or foreign Origin; the request host is accepted', async () => {
      const o = await signup(h);
      const none = await refresh(o.refresh, null);
      expect(none.statusCode).toBe(403);
      expect(none.json().code).toBe('ORIGIN_REJECTED');
      const evil = await refresh(o.refresh, 'https://evil.example');
      expect(evil.json().code).toBe('ORIGIN_REJECTED');
      const out = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/logout',
        headers: { cookie: `slipcheck_refresh=${o.refresh}`, origin: 'https://evil.example' },
      });
      expect(out.statusCode).toBe(403);
      // nothing was rotated by the refused calls
      const sameHost = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/refresh',
        headers: { cookie: `slipcheck_refresh=${o.refresh}`, origin: 'http://app.local:8080', host: 'app.local:8080' },
      });
      expect(sameHost.statusCode).toBe(200);
      expect((await refresh(null)).json().code).toBe('REFRESH_INVALID');
    });

    it('logout ends the session and clears the cookie', async () => {
      const o = await signup(h);
      const out = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/logout',
        headers: { cookie: `slipcheck_refresh=${o.refresh}`, origin: ORIGIN },
      });
      expect(out.statusCode).toBe(200);
      expect(String(out.headers['set-cookie'])).toMatch(/slipcheck_refresh=;.*Max-Age=0/);
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: o.auth })).statusCode).toBe(401);
      expect((await refresh(o.refresh)).statusCode).toBe(401);
      expect((await h.c.audit.list(o.shopId)).map((a) => a.action)).toContain('auth.logout');
    });

    it('login is limited to 5 per minute per account and per address, with Retry-After, and recovers', async () => {
      const o = await signup(h);
      const login = (ip: string, email = o.email) =>
        h.app.inject({
          method: 'POST',
          url: '/api/dashboard/auth/login',
          remoteAddress: ip,
          payload: { email, password: 'wrong password' },
        });
      for (let i = 0; i < 5; i++) expect((await login(`10.3.0.${i}`)).statusCode).toBe(401);
      const limited = await login('10.3.0.99');
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.json().retryAfter).toBe(Number(limited.headers['retry-after']));
      // per address: one address spraying many accounts
      for (let i = 0; i < 5; i++) await login('10.4.0.1', `x${i}@example.com`);
      expect((await login('10.4.0.1', 'fresh@example.com')).statusCode).toBe(429);
      clock.advance(61_000);
      const ok = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/login',
        remoteAddress: '10.3.0.99',
        payload: { email: o.email, password: o.password },
      });
      expect(ok.statusCode).toBe(200);
    });

    it('password change keeps this session, ends the others, and needs the current password', async () => {
      const o = await signup(h);
      const other = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/login',
        remoteAddress: '10.5.0.1',
        payload: { email: o.email, password: o.password },
      });
      const otherAuth = { authorization: `Bearer ${other.json().data.accessToken}` };
      const wrong = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/password',
        headers: o.auth,
        payload: { currentPassword: 'nope nope nope', newPassword: 'a brand new password' },
      });
      expect(wrong.json()).toMatchObject({ statusCode: 400, code: 'WRONG_PASSWORD' });
      const ok = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/password',
        headers: o.auth,
        payload: { currentPassword: o.password, newPassword: 'a brand new password' },
      });
      expect(ok.statusCode).toBe(200);
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: o.auth })).statusCode).toBe(200);
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: otherAuth })).statusCode).toBe(401);
      const login = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/login',
        remoteAddress: '10.5.0.2',
        payload: { email: o.email, password: 'a brand new password' },
      });
      expect(login.statusCode).toBe(200);
      expect((await h.c.audit.list(o.shopId)).map((a) => a.action)).toContain('auth.password_change');
    });

    it('password reset: same answer for unknown e-mails, single-use link, expiry, all sessions ended', async () => {
      const o = await signup(h);
      const req = (email: string) =>
        h.app.inject({ method: 'POST', url: '/api/dashboard/auth/password-reset/request', remoteAddress: '10.6.0.1', payload: { email } });
      const unknown = await req('ghost@example.com');
      const known = await req(o.email);
      expect(unknown.statusCode).toBe(202);
      expect(known.statusCode).toBe(202);
      expect(unknown.json().data).toEqual(known.json().data);
      await h.c.worker.runOnce(); // the request only enqueues; the worker mails the link
      const mail = (await h.c.mail.list({ to: o.email })).find((m) => m.template === 'password_reset')!;
      const token = /reset-password\?token=(pr_[A-Za-z0-9_-]+)/.exec(mail.text!)![1];
      expect(mail.text).toContain(`${ORIGIN}/reset-password?token=`);
      const stored = await h.c.db.selectFrom('password_resets').select('token_hash').execute();
      expect(stored.some((r) => r.token_hash === token)).toBe(false);
      const confirm = (t: string, password = 'reset to this one') =>
        h.app.inject({
          method: 'POST',
          url: '/api/dashboard/auth/password-reset/confirm',
          remoteAddress: '10.6.0.2',
          payload: { token: t, password },
        });
      expect((await confirm(token)).statusCode).toBe(200);
      expect((await confirm(token)).json().code).toBe('RESET_TOKEN_INVALID');
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: o.auth })).statusCode).toBe(401);
      // expiry
      await req(o.email);
      await h.c.worker.runOnce();
      const mail2 = (await h.c.mail.list({ to: o.email })).find((m) => m.template === 'password_reset')!;
      const token2 = /token=(pr_[A-Za-z0-9_-]+)/.exec(mail2.text!)![1];
      expect(token2).not.toBe(token);
      clock.advance(61 * 60_000);
      expect((await confirm(token2)).json().code).toBe('RESET_TOKEN_INVALID');
      expect((await h.c.audit.list(o.shopId)).map((a) => a.action)).toContain('auth.password_reset');
    });
  });
}
