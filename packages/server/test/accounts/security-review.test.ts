import { hkdfSync } from 'node:crypto';
import { Writable } from 'node:stream';
import { SignJWT, UnsecuredJWT } from 'jose';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { createMailService } from '../../src/modules/mail/mail-service.js';
import { mailTemplates } from '../../src/modules/mail/mail-templates.js';
import { createHarness, DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { cookieFrom, createDashHarness, ORIGIN, signup, UA } from '../dashboard/dash-helpers.js';

/** The parts of an error envelope that must not differ between "missing" and "someone else's". */
const shape = (r: { statusCode: number; json: () => { code?: string; message?: string; statusCode?: number } }) => {
  const j = r.json();
  return { status: r.statusCode, code: j.code, message: j.message, bodyStatus: j.statusCode };
};

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`security review [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let clock: Awaited<ReturnType<typeof createDashHarness>>['clock'];
    beforeAll(async () => {
      ({ h, clock } = await createDashHarness(kind));
    });
    afterAll(async () => h.close());

    const jwtKey = () => new Uint8Array(hkdfSync('sha256', h.c.secret, 'slipcheck', 'dashboard-jwt-hs256-v1', 32));
    const me = (token: string) => h.app.inject({ url: '/api/dashboard/me', headers: { authorization: `Bearer ${token}` } });

    it('access tokens: alg none, another HMAC alg, wrong issuer or audience, a ticket or a foreign key are all 401', async () => {
      const o = await signup(h);
      const claims = { shop: o.shopId, sid: JSON.parse(Buffer.from(o.token.split('.')[1], 'base64url').toString()).sid, typ: 'access' };
      const nowSec = Math.floor(clock.now().getTime() / 1000);
      const build = (alg: string, iss = 'slipcheck', aud = 'slipcheck-dashboard', typ = 'access') =>
        new SignJWT({ ...claims, typ })
          .setProtectedHeader({ alg })
          .setSubject(o.userId)
          .setIssuer(iss)
          .setAudience(aud)
          .setIssuedAt(nowSec)
          .setExpirationTime(nowSec + 600);
      // the control: a token built here with the same key and claims is accepted, so the refusals below are about the one changed field
      expect((await me(await build('HS256').sign(jwtKey()))).statusCode).toBe(200);
      const none = new UnsecuredJWT({ ...claims })
        .setSubject(o.userId)
        .setIssuer('slipcheck')
        .setAudience('slipcheck-dashboard')
        .setIssuedAt(nowSec)
        .setExpirationTime(nowSec + 600)
        .encode();
      const forged = [
        none,
        await build('HS512').sign(new Uint8Array(Buffer.concat([Buffer.from(jwtKey()), Buffer.from(jwtKey())]))),
        await build('HS256', 'someone-else').sign(jwtKey()),
        await build('HS256', 'slipcheck', 'other-audience').sign(jwtKey()),
        await build('HS256', 'slipcheck', 'slipcheck-dashboard', 'ticket').sign(jwtKey()),
        await build('HS256').sign(new Uint8Array(32).fill(7)),
        // header swapped to none on a real token, signature stripped
        `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${o.token.split('.')[1]}.`,
      ];
      for (const t of forged) {
        const r = await me(t);
        expect(r.statusCode).toBe(401);
        expect(r.json().code).toBe('UNAUTHORIZED');
      }
      // expiry with the injected clock, to the second
      const short = await build('HS256')
        .setExpirationTime(nowSec + 5)
        .sign(jwtKey());
      expect((await me(short)).statusCode).toBe(200);
      clock.advance(5000);
      expect((await me(short)).statusCode).toBe(401);
    });

    it('refresh tokens carry >= 128 random bits and a new-device login cookie has every flag', async () => {
      const o = await signup(h);
      expect(o.refresh).toMatch(/^rt_[A-Za-z0-9_-]{43}$/); // 32 bytes = 256 bits
      const login = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/login',
        remoteAddress: '10.20.0.1',
        headers: { 'user-agent': 'Other/2.0' },
        payload: { email: o.email, password: o.password },
      });
      const line = String(login.headers['set-cookie']);
      for (const flag of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/api', `Max-Age=${7 * 86400}`]) expect(line).toContain(flag);
    });

    it('CSRF: null, look-alike, other-port and other-scheme Origins are refused on refresh and logout, and nothing rotates', async () => {
      const o = await signup(h);
      const post = (url: string, origin: string) =>
        h.app.inject({ method: 'POST', url, headers: { cookie: `slipcheck_refresh=${o.refresh}`, origin } });
      for (const origin of [
        'null',
        `${ORIGIN}.evil.example`,
        'http://evil-dash.test',
        'http://dash.test:8080',
        'https://dash.test',
        'http://dash.test@evil.example',
        '',
      ]) {
        for (const url of ['/api/dashboard/auth/refresh', '/api/dashboard/auth/logout']) {
          const r = await post(url, origin);
          expect(r.statusCode, `${url} ${origin}`).toBe(403);
          expect(r.json().code).toBe('ORIGIN_REJECTED');
        }
      }
      // the session survived every refused call: the original cookie still rotates once
      const ok = await post('/api/dashboard/auth/refresh', ORIGIN);
      expect(ok.statusCode).toBe(200);
      expect(cookieFrom(ok)).not.toBe(o.refresh);
    });

    it('hostile strings: NUL and control characters answer 400 in the envelope on every store and change nothing', async () => {
      const o = await signup(h, { shopName: 'ร้านเดิม' });
      const usersBefore = (await h.c.db.selectFrom('users').select('id').execute()).length;
      const shopsBefore = (await h.c.db.selectFrom('shops').select('id').execute()).length;
      const cases: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: object; auth?: boolean }[] = [
        {
          method: 'POST',
          url: '/api/dashboard/auth/signup',
          payload: { email: 'nul@example.com', password: 'long enough pass', shopName: 'a\u0000b', planCode: 'STARTER' },
        },
        {
          method: 'POST',
          url: '/api/dashboard/auth/signup',
          payload: { email: 'n\u0000ul@example.com', password: 'long enough pass', shopName: 'ab', planCode: 'STARTER' },
        },
        {
          method: 'POST',
          url: '/api/dashboard/auth/signup',
          payload: { email: 'crlf@example.com', password: 'long enough pass', shopName: 'x\r\nBcc: evil@example.com', planCode: 'STARTER' },
        },
        {
          method: 'POST',
          url: '/api/dashboard/auth/signup',
          payload: { email: 'rlo@example.com', password: 'long enough pass', shopName: 'ร้าน\u202Egnp.exe', planCode: 'STARTER' },
        },
        {
          method: 'POST',
          url: '/api/dashboard/auth/signup',
          payload: { email: 'victim,attacker@example.com', password: 'long enough pass', shopName: 'ab', planCode: 'STARTER' },
        },
        { method: 'POST', url: '/api/dashboard/auth/login', payload: { email: `${o.email}\u0000`, password: o.password } },
        { method: 'POST', url: '/api/dashboard/auth/password-reset/request', payload: { email: 'x\u0000@example.com' } },
        {
          method: 'POST',
          url: '/api/dashboard/auth/password-reset/confirm',
          payload: { token: 'pr_\u0000', password: 'long enough pass' },
        },
        { method: 'PATCH', url: '/api/dashboard/settings', payload: { shopName: 'x\u0000y' }, auth: true },
        { method: 'PATCH', url: '/api/dashboard/settings', payload: { shopName: 'x\r\nBcc: evil@example.com' }, auth: true },
        { method: 'PATCH', url: '/api/dashboard/settings', payload: { shopName: 'x'.repeat(10_000) }, auth: true },
        {
          method: 'POST',
          url: '/api/dashboard/payees',
          payload: { bankCode: '004', accountNumber: '1234567890', holder: 'A\u0000B' },
          auth: true,
        },
        {
          method: 'POST',
          url: '/api/dashboard/payees',
          payload: { bankCode: '004', accountNumber: '12345\u00007890', holder: 'AB' },
          auth: true,
        },
        { method: 'GET', url: '/api/dashboard/transactions?transRef=a%00b', auth: true },
        { method: 'GET', url: '/api/dashboard/transactions/tx_%00abc', auth: true },
        { method: 'DELETE', url: '/api/dashboard/sessions/ses_%00abc', auth: true },
        {
          method: 'POST',
          url: '/api/dashboard/auth/password',
          payload: { currentPassword: o.password, newPassword: 'new\u0000password!' },
          auth: true,
        },
      ];
      let i = 0;
      for (const c of cases) {
        const r = await h.app.inject({
          method: c.method,
          url: c.url,
          remoteAddress: `10.21.0.${++i}`,
          headers: { 'user-agent': UA, ...(c.auth ? o.auth : {}) },
          ...(c.payload ? { payload: c.payload } : {}),
        });
        expect(r.statusCode, `${c.method} ${c.url} ${JSON.stringify(c.payload)}`).toBe(400);
        expect(r.json()).toMatchObject({ success: false, statusCode: 400, code: 'VALIDATION_ERROR', path: c.url.split('?')[0] });
      }
      expect((await h.c.db.selectFrom('users').select('id').execute()).length).toBe(usersBefore);
      expect((await h.c.db.selectFrom('shops').select('id').execute()).length).toBe(shopsBefore);
      expect((await h.c.shops.get(o.shopId)).name).toBe('ร้านเดิม');
      expect(await h.c.payees.list(o.shopId)).toHaveLength(0);
      // the old password still works: nothing was changed
      expect(
        (
          await h.app.inject({
            method: 'POST',
            url: '/api/dashboard/auth/login',
            remoteAddress: '10.21.1.1',
            payload: { email: o.email, password: o.password },
          })
        ).statusCode,
      ).toBe(200);
      // real names with emoji, Thai and a right-to-left mark are fine
      const fine = await h.app.inject({
        method: 'PATCH',
        url: '/api/dashboard/settings',
        headers: o.auth,
        payload: { shopName: 'ร้าน ☕️ قهوة \u200F ok' },
      });
      expect(fine.statusCode).toBe(200);
      expect(fine.json().data.shopName).toBe('ร้าน ☕️ قهوة \u200F ok');
      // a body over the limit is a 413 in the envelope
      const huge = await h.app.inject({
        method: 'PATCH',
        url: '/api/dashboard/settings',
        headers: { ...o.auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ shopName: 'x'.repeat(2_000_000) }),
      });
      expect(huge.json()).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
    });

    it('mail: a CR/LF in a shop name never reaches a header; a multi-recipient address is never sent', async () => {
      const o = await signup(h);
      // set through the service, as the operator CLI could, bypassing the route's pattern
      await h.c.shops.update(o.shopId, { name: 'Evil\r\nBcc: attacker@example.com' }, 'test');
      const mail = createMailService({ db: h.c.db, clock: h.c.clock, from: 'x <no-reply@example.com>' });
      const shop = await h.c.shops.get(o.shopId);
      await mail.send(o.email, mailTemplates.ownerAlert({ type: 'QUOTA_80', shopName: shop.name, dashboardUrl: ORIGIN }), o.shopId);
      const sent = (await mail.list({ to: o.email })).find((m) => m.template === 'owner_alert_quota_80')!;
      expect(sent.subject).not.toMatch(/[\r\n]/);
      expect(sent.subject).toContain('Evil Bcc: attacker@example.com');
      const id = await mail.send(
        'victim@example.com,attacker@example.com',
        mailTemplates.passwordReset({ link: `${ORIGIN}/reset-password?token=pr_x`, minutes: 60 }),
      );
      const row = await h.c.db.selectFrom('mail_messages').selectAll().where('id', '=', id!).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'failed', error: 'invalid recipient', body_text: null });
    });

    it('a stolen access token cannot brute-force the password through password change or erase', async () => {
      const o = await signup(h);
      const change = (currentPassword: string) =>
        h.app.inject({
          method: 'POST',
          url: '/api/dashboard/auth/password',
          headers: o.auth,
          payload: { currentPassword, newPassword: 'a brand new password' },
        });
      const erase = (password: string) =>
        h.app.inject({ method: 'POST', url: '/api/dashboard/privacy/erase', headers: o.auth, payload: { password, confirm: 'DELETE' } });
      for (let i = 0; i < 3; i++) expect((await change(`guess number ${i}`)).json().code).toBe('WRONG_PASSWORD');
      for (let i = 0; i < 2; i++) expect((await erase(`guess number ${i}`)).json().code).toBe('WRONG_PASSWORD');
      // the budget is shared and spent: even the right password waits
      const limited = await change(o.password);
      expect(limited.statusCode).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await erase(o.password)).statusCode).toBe(429);
      const actions = (await h.c.audit.list(o.shopId)).map((a) => a.action);
      expect(actions.filter((a) => a === 'auth.password_change_failed')).toHaveLength(3);
      expect(actions.filter((a) => a === 'privacy.erase_failed')).toHaveLength(2);
      clock.advance(61_000);
      expect((await change(o.password)).statusCode).toBe(200);
    });

    it('a password change voids reset links mailed before it', async () => {
      const o = await signup(h);
      await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/password-reset/request',
        remoteAddress: '10.22.0.1',
        payload: { email: o.email },
      });
      await h.c.worker.runOnce(); // the request only enqueues; the worker mails the link
      const mail = (await h.c.mail.list({ to: o.email })).find((m) => m.template === 'password_reset')!;
      const token = /token=(pr_[A-Za-z0-9_-]+)/.exec(mail.text!)![1];
      expect(
        (
          await h.app.inject({
            method: 'POST',
            url: '/api/dashboard/auth/password',
            headers: o.auth,
            payload: { currentPassword: o.password, newPassword: 'owner chose this one' },
          })
        ).statusCode,
      ).toBe(200);
      const confirm = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/password-reset/confirm',
        remoteAddress: '10.22.0.2',
        payload: { token, password: 'attacker chose this' },
      });
      expect(confirm.json().code).toBe('RESET_TOKEN_INVALID');
      expect(
        (
          await h.app.inject({
            method: 'POST',
            url: '/api/dashboard/auth/login',
            remoteAddress: '10.22.0.3',
            payload: { email: o.email, password: 'owner chose this one' },
          })
        ).statusCode,
      ).toBe(200);
    });

    it("another shop's ids answer exactly like missing ones on every id route", async () => {
      const a = await signup(h);
      const b = await signup(h);
      await h.c.shops.setPlan(b.shopId, 'STARTER', 'test');
      const payee = (
        await h.app.inject({
          method: 'POST',
          url: '/api/dashboard/payees',
          headers: b.auth,
          payload: { bankCode: '004', accountNumber: '1234567890', holder: 'B' },
        })
      ).json().data.id;
      const key = (
        await h.app.inject({ method: 'POST', url: '/api/dashboard/api-keys', headers: b.auth, payload: { environment: 'live' } })
      ).json().data.apiKey.id;
      const hook = (
        await h.app.inject({
          method: 'POST',
          url: '/api/dashboard/webhooks',
          headers: b.auth,
          payload: { url: 'https://hooks.example.com/x' },
        })
      ).json().data.endpoint.id;
      const bSession = JSON.parse(Buffer.from(b.token.split('.')[1], 'base64url').toString()).sid as string;
      const routes: ['GET' | 'POST' | 'PATCH' | 'DELETE', string, string, object?][] = [
        ['PATCH', `/api/dashboard/payees/${payee}`, payee, { holder: 'mine now' }],
        ['DELETE', `/api/dashboard/payees/${payee}`, payee],
        ['POST', `/api/dashboard/api-keys/${key}/rotate`, key],
        ['POST', `/api/dashboard/api-keys/${key}/revoke`, key],
        ['DELETE', `/api/dashboard/sessions/${bSession}`, bSession],
        ['PATCH', `/api/dashboard/webhooks/${hook}`, hook, { description: 'x' }],
        ['DELETE', `/api/dashboard/webhooks/${hook}`, hook],
        ['POST', `/api/dashboard/webhooks/${hook}/reveal-secret`, hook],
        ['POST', `/api/dashboard/webhooks/${hook}/rotate-secret`, hook],
        ['POST', `/api/dashboard/webhooks/${hook}/test`, hook],
        ['GET', `/api/dashboard/webhooks/${hook}/deliveries`, hook],
      ];
      await h.c.shops.setPlan(a.shopId, 'STARTER', 'test'); // so a plan check cannot answer before the lookup
      for (const [method, url, id, payload] of routes) {
        const missingUrl = url.replace(
          id,
          id.replace(/[A-Za-z0-9]+$/, (m) => '0'.repeat(m.length)),
        );
        const theirs = await h.app.inject({ method, url, headers: a.auth, ...(payload ? { payload } : {}) });
        const missing = await h.app.inject({ method, url: missingUrl, headers: a.auth, ...(payload ? { payload } : {}) });
        expect(missingUrl, 'the id was replaced').not.toBe(url);
        expect(shape(theirs), `${method} ${url}`).toEqual(shape(missing));
        expect(theirs.statusCode).toBe(404);
      }
      // and nothing of b's changed
      expect((await h.c.payees.list(b.shopId))[0]).toMatchObject({ id: payee, holder: 'B' });
      expect((await h.c.apiKeys.list(b.shopId))[0]).toMatchObject({ id: key, revokedAt: null });
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: b.auth })).statusCode).toBe(200);
      expect((await h.c.webhooks.list(b.shopId))[0].id).toBe(hook);
    });

    it('export carries no secrets: no webhook secret or fragment of it, no key, token or password hashes', async () => {
      const o = await signup(h);
      await h.c.shops.setPlan(o.shopId, 'STARTER', 'test');
      const add = (
        await h.app.inject({
          method: 'POST',
          url: '/api/dashboard/webhooks',
          headers: o.auth,
          payload: { url: 'https://hooks.example.com/y' },
        })
      ).json().data;
      const key = (
        await h.app.inject({ method: 'POST', url: '/api/dashboard/api-keys', headers: o.auth, payload: { environment: 'test' } })
      ).json().data.key;
      const r = await h.app.inject({ url: '/api/dashboard/privacy/export', headers: o.auth });
      expect(r.statusCode).toBe(200);
      expect(r.json().data.webhookEndpoints[0].id).toBe(add.endpoint.id);
      for (const s of [add.secret, add.secret.slice(-4), 'whsec_', key, key.slice(-8), '$argon2', 'hash', 'secret_enc', o.refresh])
        expect(r.body).not.toContain(s);
    });

    it('no password, refresh token, reset token or stream ticket is written to audit details, mail rows (besides the one link) or the log', async () => {
      const lines: string[] = [];
      const stream = new Writable({
        write(chunk, _e, cb) {
          lines.push(String(chunk));
          cb();
        },
      });
      const lh = await createHarness(kind, { PUBLIC_URL: ORIGIN }, { logger: pino({ level: 'debug' }, stream) });
      try {
        const app = await buildApp(lh.c); // the production logger path (loggerInstance), not the test default
        const o = await signup({ ...lh, app }, { password: 'first secret passphrase' });
        const wrong = await app.inject({
          method: 'POST',
          url: '/api/dashboard/auth/login',
          remoteAddress: '10.23.0.1',
          payload: { email: o.email, password: 'wrong secret passphrase' },
        });
        expect(wrong.statusCode).toBe(401);
        const login = await app.inject({
          method: 'POST',
          url: '/api/dashboard/auth/login',
          remoteAddress: '10.23.0.2',
          headers: { 'user-agent': 'New/1.0' },
          payload: { email: o.email, password: 'first secret passphrase' },
        });
        const refresh = cookieFrom(login)!;
        const rotated = await app.inject({
          method: 'POST',
          url: '/api/dashboard/auth/refresh',
          headers: { cookie: `slipcheck_refresh=${refresh}`, origin: ORIGIN },
        });
        await app.inject({
          method: 'POST',
          url: '/api/dashboard/auth/password',
          headers: o.auth,
          payload: { currentPassword: 'first secret passphrase', newPassword: 'second secret passphrase' },
        });
        await app.inject({
          method: 'POST',
          url: '/api/dashboard/auth/password-reset/request',
          remoteAddress: '10.23.0.3',
          payload: { email: o.email },
        });
        await lh.c.worker.runOnce();
        const resetMail = (await lh.c.mail.list({ to: o.email })).find((m) => m.template === 'password_reset')!;
        const resetToken = /token=(pr_[A-Za-z0-9_-]+)/.exec(resetMail.text!)![1];
        await app.inject({
          method: 'POST',
          url: '/api/dashboard/auth/password-reset/confirm',
          remoteAddress: '10.23.0.4',
          payload: { token: resetToken, password: 'third secret passphrase' },
        });
        const l2 = await app.inject({
          method: 'POST',
          url: '/api/dashboard/auth/login',
          remoteAddress: '10.23.0.5',
          payload: { email: o.email, password: 'third secret passphrase' },
        });
        const auth = { authorization: `Bearer ${l2.json().data.accessToken}` };
        const ticket = (await app.inject({ method: 'POST', url: '/api/dashboard/events/ticket', headers: auth })).json().data
          .ticket as string;
        await app.inject({ method: 'POST', url: '/api/dashboard/auth/logout', headers: auth });
        expect((await app.inject({ url: `/api/dashboard/events?ticket=${ticket}` })).statusCode).toBe(401); // session ended: answers at once
        await app.close();

        const secrets = [
          'first secret passphrase',
          'wrong secret passphrase',
          'second secret passphrase',
          'third secret passphrase',
          o.refresh,
          refresh,
          cookieFrom(rotated)!,
          resetToken,
          ticket,
          o.token,
        ];
        const audit = JSON.stringify(await lh.c.db.selectFrom('audit_log').selectAll().execute());
        const mails = (await lh.c.mail.list({ limit: 100 }))
          .filter((m) => m.template !== 'password_reset')
          .map((m) => `${m.subject}\n${m.text}`)
          .join('\n');
        const log = lines.join('');
        expect(log).toContain('incoming request'); // the logger really captured the requests
        for (const s of secrets) {
          expect(audit.includes(s), 'audit').toBe(false);
          expect(mails.includes(s), 'mail').toBe(false);
          expect(log.includes(s), `log leaks ${s.slice(0, 12)}`).toBe(false);
        }
        // the reset mail holds its own link and nothing else secret
        for (const s of secrets.filter((x) => x !== resetToken)) expect(resetMail.text!.includes(s)).toBe(false);
        const actions = (await lh.c.audit.list(o.shopId)).map((a) => a.action);
        expect(actions).toEqual(
          expect.arrayContaining([
            'auth.login',
            'auth.login_failed',
            'auth.password_change',
            'auth.password_reset',
            'auth.logout',
            'session.revoke',
          ]),
        );
      } finally {
        await lh.close();
      }
    });
  });
}
