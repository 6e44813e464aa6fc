import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import type { startSandbox } from '../helpers/sandbox.js';
import { UA, signup, type Owner } from '../dashboard/dash-helpers.js';
import { createBankHarness, NO_RATE_LIMITS } from '../helpers/bank-harness.js';

// Ajv's coerceTypes turned "Infinity" (and 1e309, 400 digits) into numbers that pass integer bounds:
// list routes answered 500, and verify's `amount` reached the checker. Every numeric query value must
// be a finite decimal in digits, refused with 400 before anything is decoded, asked or charged.
const BAD = ['Infinity', '-Infinity', '1e309', '9'.repeat(400), '0x10', ' 5', '5 ', '', '1e3', '+5', 'NaN', '5abc', '.5', '5.'];

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`numeric query values [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    let s: Awaited<ReturnType<typeof seedShop>>;
    let owner: Owner;
    let checks = 0;
    beforeAll(async () => {
      ({ h, bank } = await createBankHarness(kind, NO_RATE_LIMITS));
      const check = h.c.checker.check.bind(h.c.checker);
      h.c.checker.check = (q) => {
        checks++;
        return check(q);
      };
      s = await seedShop(h);
      owner = await signup(h);
    });
    afterAll(async () => {
      await h.close();
      await bank.close();
    });

    const used = async (shopId: string) =>
      (await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', shopId).executeTakeFirst())?.used ?? 0;
    const count = async () =>
      Number(
        (
          await h.c.db
            .selectFrom('transactions')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const expect400 = (r: { statusCode: number; json(): unknown }, what: string) => {
      expect(r.statusCode, what).toBe(400);
      expect(r.json(), what).toMatchObject({ success: false, statusCode: 400, code: 'VALIDATION_ERROR' });
    };

    it('list routes answer 400 VALIDATION_ERROR for every non-decimal limit', async () => {
      const dash = { ...owner.auth, 'user-agent': UA };
      for (const v of BAD) {
        const q = encodeURIComponent(v);
        expect400(await h.app.inject({ url: `/api/v1/transactions?limit=${q}`, headers: s.auth }), `v1 ${v}`);
        expect400(await h.app.inject({ url: `/api/dashboard/transactions?limit=${q}`, headers: dash }), `dash tx ${v}`);
        expect400(await h.app.inject({ url: `/api/dashboard/audit?limit=${q}`, headers: dash }), `audit ${v}`);
      }
      // Repeated values are not a number either.
      expect400(await h.app.inject({ url: '/api/v1/transactions?limit=5&limit=6', headers: s.auth }), 'repeated');
      // Plain digits still work.
      expect((await h.app.inject({ url: '/api/v1/transactions?limit=5', headers: s.auth })).statusCode).toBe(200);
      expect((await h.app.inject({ url: '/api/dashboard/audit?limit=7', headers: dash })).statusCode).toBe(200);
      expect((await h.app.inject({ url: '/api/dashboard/transactions?limit=07', headers: dash })).statusCode).toBe(200);
    });

    it('verify with a non-decimal amount answers 400 before the checker is asked, charging nothing', async () => {
      const t = await bank.register();
      const img = await bank.slip(t.transRef);
      const beforeUsed = await used(s.shop.id);
      const beforeRows = await count();
      const beforeChecks = checks;
      for (const v of BAD) {
        const r = await h.app.inject({
          method: 'POST',
          url: `/api/v1/verify?amount=${encodeURIComponent(v)}`,
          headers: { ...s.auth, 'content-type': 'application/octet-stream' },
          payload: img,
        });
        expect400(r, `amount ${v}`);
      }
      const dash = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/verify?expectedAmount=Infinity',
        headers: { ...owner.auth, 'user-agent': UA, 'content-type': 'application/octet-stream' },
        payload: img,
      });
      expect400(dash, 'dashboard expectedAmount');
      expect(checks).toBe(beforeChecks);
      expect(await used(s.shop.id)).toBe(beforeUsed);
      expect(await count()).toBe(beforeRows);
      // A decimal amount is still checked.
      const ok = await h.app.inject({
        method: 'POST',
        url: `/api/v1/verify?amount=1250.50`,
        headers: { ...s.auth, 'content-type': 'application/octet-stream' },
        payload: img,
      });
      expect(ok.statusCode).toBe(200);
      expect(checks).toBe(beforeChecks + 1);
    });
  });
}
