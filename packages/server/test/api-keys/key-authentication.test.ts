// API key authentication reads the key, then its shop and plan through their services: a key of an
// erased shop (soft-deleted, even if nobody revoked the key) and a revoked key answer 401; a plan
// change made through this node shows on the next request (its cached copy is dropped at once; other
// nodes: auth-cache-two-nodes.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`API key authentication (${kind})${skipNote(kind)}`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await createHarness(kind);
    });
    afterAll(async () => {
      await h.close();
    });
    const quota = (key: string) => h.app.inject({ url: '/api/v1/quota', headers: { authorization: `Bearer ${key}` } });

    it('answers with the shop and its current plan, and 401 once the shop is erased', async () => {
      const { shop, key } = await seedShop(h, { plan: 'STARTER' });
      const before = await quota(key!);
      expect(before.statusCode).toBe(200);
      await h.c.shops.setPlan(shop.id, 'BUSINESS', 'test');
      const after = await quota(key!);
      expect(after.statusCode).toBe(200);
      expect(after.json().data.limit).not.toBe(before.json().data.limit);
      await h.c.shops.softDelete(shop.id, new Date().toISOString());
      const erased = await quota(key!);
      expect(erased.statusCode).toBe(401);
      expect(erased.json()).toMatchObject({ success: false, error: 'Unauthorized', statusCode: 401 });
    });

    it('401 for an unknown key, like a revoked one', async () => {
      const unknown = await quota('sk_live_' + 'x'.repeat(32));
      expect(unknown.statusCode).toBe(401);
    });
  });
}
