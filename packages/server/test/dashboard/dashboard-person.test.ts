/**
 * Issue #10 (dashboard): the person's language is kept on the server, separate from the shop's
 * language for LINE replies and mails; erasure sends a confirmation e-mail to the address the account had.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { createDashHarness, signup } from './dash-helpers.js';

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`dashboard person preferences and erasure mail [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    beforeAll(async () => {
      ({ h } = await createDashHarness(kind));
    });
    afterAll(async () => h.close());

    it('the EN switch is stored per user and does not change the shop language', async () => {
      const o = await signup(h);
      const r = await h.app.inject({ method: 'PATCH', url: '/api/dashboard/me/preferences', headers: o.auth, payload: { language: 'en' } });
      expect(r.statusCode).toBe(200);
      expect(r.json().data.user.language).toBe('en');
      const me = (await h.app.inject({ url: '/api/dashboard/me', headers: o.auth })).json().data;
      expect(me.user.language).toBe('en');
      expect(me.shop.language).toBe('th');
      const settings = (await h.app.inject({ url: '/api/dashboard/settings', headers: o.auth })).json().data;
      expect(settings.language).toBe('th');
      // Another person of another shop keeps their own choice.
      const other = await signup(h);
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: other.auth })).json().data.user.language).toBe('th');
    });

    it('refuses a language it does not know, and needs a session', async () => {
      const o = await signup(h);
      const bad = await h.app.inject({
        method: 'PATCH',
        url: '/api/dashboard/me/preferences',
        headers: o.auth,
        payload: { language: 'fr' },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().code).toBe('VALIDATION_ERROR');
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: o.auth })).json().data.user.language).toBe('th');
      expect((await h.app.inject({ method: 'PATCH', url: '/api/dashboard/me/preferences', payload: { language: 'en' } })).statusCode).toBe(
        401,
      );
    });

    it('erasure e-mails a confirmation (24 h, what is kept) to the address the account had', async () => {
      const o = await signup(h, { shopName: 'ร้านลบทิ้ง' });
      const ok = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/privacy/erase',
        headers: o.auth,
        payload: { password: o.password, confirm: 'DELETE' },
      });
      expect(ok.statusCode).toBe(200);
      const mails = (await h.c.mail.list({ to: o.email })).filter((m) => m.template === 'account_erased');
      expect(mails).toHaveLength(1);
      expect(mails[0].text).toContain('ร้านลบทิ้ง');
      expect(mails[0].text).toContain('บันทึกความปลอดภัย');
      expect(mails[0].text).toContain('deleted for good after');
      const wrong = await signup(h);
      await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/privacy/erase',
        headers: wrong.auth,
        payload: { password: 'not the password', confirm: 'DELETE' },
      });
      expect((await h.c.mail.list({ to: wrong.email })).filter((m) => m.template === 'account_erased')).toHaveLength(0);
    });
  });
}

describe('webhook URL refusals keep the server reason and, in development, name the switch for local targets', () => {
  for (const [env, hint] of [
    ['development', 'WEBHOOK_ALLOW_PRIVATE=true'],
    ['production-like test', undefined],
  ] as const) {
    it(env, async () => {
      const { h } = await createDashHarness('sqlite', {
        WEBHOOK_ALLOW_PRIVATE: 'false',
        ...(env === 'development' ? { NODE_ENV: 'development' } : {}),
      });
      try {
        const o = await signup(h, { planCode: 'GROWTH' });
        await h.c.shops.setPlan(o.shopId, 'GROWTH', 'test');
        const r = await h.app.inject({
          method: 'POST',
          url: '/api/dashboard/webhooks',
          headers: o.auth,
          payload: { url: 'https://127.0.0.1:9/hook' },
        });
        expect(r.statusCode).toBe(400);
        expect(r.json().code).toBe('INVALID_WEBHOOK_URL');
        expect(r.json().message).toBe('url must point to a public internet address');
        expect(r.json().allowLocalTargets).toBe(hint);
      } finally {
        await h.close();
      }
    });
  }
});
