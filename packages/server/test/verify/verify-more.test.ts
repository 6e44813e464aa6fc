import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { hardLimitOf, overageOf, type Plan } from '../../src/modules/plans/plan-service.js';
import { DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import type { startSandbox } from '../helpers/sandbox.js';
import { createBankHarness } from '../helpers/bank-harness.js';

const post = (h: Harness, auth: Record<string, string>, img: Buffer) =>
  h.app.inject({ method: 'POST', url: '/api/v1/verify', headers: { ...auth, 'content-type': 'application/octet-stream' }, payload: img });

describe('plan overage arithmetic', () => {
  const plan = (p: Partial<Plan>): Plan => ({
    code: 'X',
    name: 'X',
    monthlyLimit: 100,
    trialDays: 0,
    apiAccess: true,
    webhooks: true,
    seats: 1,
    groups: 1,
    messagingAccounts: 1,
    allowOverage: false,
    freeBuffer: 0,
    monthlyCap: 0,
    hardBlockMultiple: 1,
    priceThb: 0,
    overagePriceSatang: 0,
    ...p,
  });
  it('without overage: limit plus free buffer', () => {
    expect(hardLimitOf(plan({ freeBuffer: 10 }))).toBe(110);
    expect(overageOf(plan({ freeBuffer: 10 }), 105)).toBe(0);
  });
  it('with overage: capped by the monthly cap and the hard block multiple', () => {
    expect(hardLimitOf(plan({ allowOverage: true, freeBuffer: 5, monthlyCap: 50, hardBlockMultiple: 3 }))).toBe(155);
    expect(hardLimitOf(plan({ allowOverage: true, freeBuffer: 5, monthlyCap: 1000, hardBlockMultiple: 3 }))).toBe(300);
    expect(overageOf(plan({ allowOverage: true, freeBuffer: 5 }), 130)).toBe(25);
  });
});

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`verify: wallets, overage, trial end, logs [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    let closeAll: () => Promise<void>;
    beforeAll(async () => {
      ({ h, bank, close: closeAll } = await createBankHarness(kind));
    });
    afterAll(() => closeAll());

    it('a TrueMoney wallet slip (its own QR layout) verifies like a bank slip', async () => {
      const s = await seedShop(h);
      const t = await bank.register({ sendingBank: 'TRUEMONEY' });
      const r = await post(h, s.auth, await bank.slip(t.transRef));
      expect(r.json().data).toMatchObject({ status: 'SUCCESS', transRef: t.transRef });
    });

    it('GROWTH allows overage past limit + buffer and shows it in /me; the hard block answers 402', async () => {
      const s = await seedShop(h, { plan: 'GROWTH' });
      await h.c.quota.adjust(s.shop.id, { used: 2100 }, 'test');
      const t = await bank.register();
      const ok = await post(h, s.auth, await bank.slip(t.transRef));
      expect(ok.statusCode).toBe(200);
      expect(ok.json().data.quota).toEqual({ used: 2101, limit: 2000, remaining: 0 });
      const me = (await h.app.inject({ url: '/api/v1/me', headers: s.auth })).json().data;
      expect(me.quota).toMatchObject({ used: 2101, overage: 51, allowOverage: true, percentUsed: 100 });
      await h.c.quota.adjust(s.shop.id, { used: 4050 }, 'test');
      const t2 = await bank.register();
      expect((await post(h, s.auth, await bank.slip(t2.transRef))).statusCode).toBe(402);
    });

    it('a trial that has ended cannot check slips (dashboard/LINE path): 402 with a clear message', async () => {
      const shop = await h.c.shops.create({ name: 'trial shop' }, 'test');
      await h.c.payees.add(shop.id, { bankCode: '004', accountNumber: '1234566609', holder: 'x' }, 'test');
      await h.c.db
        .updateTable('shops')
        .set({ trial_ends_at: new Date(Date.now() - 1000).toISOString() })
        .where('id', '=', shop.id)
        .execute();
      const t = await bank.register();
      await expect(
        h.c.verification.verifySlip({ shopId: shop.id, source: 'DASHBOARD', image: await bank.slip(t.transRef) }),
      ).rejects.toMatchObject({ statusCode: 402, code: 'QUOTA_EXCEEDED', message: expect.stringMatching(/trial/i) });
    });

    it('no log line carries the image bytes, even at trace level', async () => {
      const lines: string[] = [];
      const stream = new Writable({
        write(chunk, _e, cb) {
          lines.push(String(chunk));
          cb();
        },
      });
      const app = await buildApp(h.c, { logger: { level: 'trace', stream } });
      await app.ready();
      try {
        const s = await seedShop(h);
        const t = await bank.register();
        const img = await bank.slip(t.transRef, 'jpeg70', 'jpg');
        const r = await app.inject({
          method: 'POST',
          url: '/api/v1/verify',
          headers: { ...s.auth, 'content-type': 'application/octet-stream' },
          payload: img,
        });
        expect(r.json().data.status).toBe('SUCCESS');
        const log = lines.join('');
        expect(log.length).toBeGreaterThan(100);
        const probe = img.subarray(1000, 1024);
        for (const enc of ['base64', 'hex', 'latin1'] as const) expect(log).not.toContain(probe.toString(enc));
        expect(log).not.toContain(s.key);
      } finally {
        await app.close();
      }
    });
  });
}
