import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { outboxAlerts } from '../helpers/records.js';
import type { startSandbox } from '../helpers/sandbox.js';
import { createBankHarness } from '../helpers/bank-harness.js';

// The housekeeping service's own rules (retention, erasure, trial and audit alerts) are in
// test/services/housekeeping.test.ts; here, the owner alerts the verify pipeline raises.
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`owner alerts from the pipeline [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    let closeAll: () => Promise<void>;
    beforeAll(async () => {
      ({ h, bank, close: closeAll } = await createBankHarness(kind));
    });
    afterAll(() => closeAll());
    const verify = async (auth: Record<string, string>, body: Record<string, unknown> = {}) => {
      const t = await bank.register(body);
      return h.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        headers: { ...auth, 'content-type': 'application/octet-stream' },
        payload: await bank.slip(t.transRef),
      });
    };

    it('QUOTA_80 when the pool crosses 80 % and QUOTA_100 when it is used up, once each', async () => {
      const s = await seedShop(h); // STARTER: limit 500
      await h.c.quota.adjust(s.shop.id, { used: 398 }, 'test');
      await verify(s.auth);
      expect(await outboxAlerts(h, s.shop.id)).toHaveLength(0);
      await verify(s.auth); // 400 = 80 %
      await verify(s.auth);
      await h.c.quota.adjust(s.shop.id, { used: 499 }, 'test');
      await verify(s.auth); // 500
      await verify(s.auth); // 501, inside the free buffer
      expect((await outboxAlerts(h, s.shop.id)).map((a) => [a.type, a.detail.used])).toEqual([
        ['QUOTA_80', 400],
        ['QUOTA_100', 500],
      ]);
    });

    it('a stale slip alerts the owner unless the shop turned stale alerts off', async () => {
      const transDate = new Date(Date.now() - 48 * 3_600_000).toISOString();
      const on = await seedShop(h);
      const off = await seedShop(h);
      await h.c.shops.update(off.shop.id, { settings: { notifications: { staleSlipAlerts: false } } }, 'test');
      expect((await verify(on.auth, { transDate })).json().data).toMatchObject({ status: 'SUCCESS', stale: true });
      expect((await verify(off.auth, { transDate })).json().data).toMatchObject({ status: 'SUCCESS', stale: true });
      expect((await outboxAlerts(h, on.shop.id)).map((a) => a.type)).toEqual(['STALE_SLIP']);
      expect(await outboxAlerts(h, off.shop.id)).toHaveLength(0);
    });
  });
}
