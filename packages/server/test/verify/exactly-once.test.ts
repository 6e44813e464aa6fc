import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import type { startSandbox } from '../helpers/sandbox.js';
import { createBankHarness, NO_RATE_LIMITS, postVerify } from '../helpers/bank-harness.js';

// The three exactly-once rules of DESIGN.md, with truly concurrent requests over real HTTP.
const N = 24;

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`exactly-once under concurrency [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    let base: string;
    const post = (auth: Record<string, string>, image: Buffer) => postVerify(base, auth, image);
    const usedOf = async (shopId: string) =>
      (await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', shopId).executeTakeFirst())?.used ?? 0;

    let closeAll: () => Promise<void>;
    beforeAll(async () => {
      ({ h, bank, base, close: closeAll } = await createBankHarness(kind, { ...NO_RATE_LIMITS, DECODE_THREADS: '2' }, { listen: true }));
    });
    afterAll(() => closeAll());

    it(`${N} concurrent uploads of one image: one check, one quota unit, one record, one id`, async () => {
      const s = await seedShop(h);
      const t = await bank.register();
      const img = await bank.slip(t.transRef);
      const calls = (await bank.stats()).checkerCalls;
      const answers = await Promise.all(Array.from({ length: N }, () => post(s.auth, img)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      const ids = new Set(answers.map((a) => a.body.data.id));
      expect(ids.size).toBe(1);
      expect(answers.filter((a) => a.body.data.cached === false)).toHaveLength(1);
      expect(answers.every((a) => a.body.data.status === 'SUCCESS')).toBe(true);
      expect((await bank.stats()).checkerCalls - calls).toBe(1);
      expect(await usedOf(s.shop.id)).toBe(1);
      const rows = await h.c.db.selectFrom('transactions').select('id').where('shop_id', '=', s.shop.id).execute();
      expect(rows).toHaveLength(1);
    });

    it(`${N} concurrent different images of one transRef: exactly one SUCCESS, the rest DUPLICATE`, async () => {
      const s = await seedShop(h);
      const t = await bank.register();
      const variants = ['clean', 'jpeg70', 'w540', 'lowcontrast', 'rot7', 'rotm7'];
      const images: Buffer[] = [];
      for (let i = 0; i < N; i++) {
        const img = await bank.slip(t.transRef, variants[i % variants.length], i % 2 ? 'jpg' : 'png');
        // Make every upload a different file (a trailing byte after the image end changes the hash, not the picture).
        images.push(Buffer.concat([img, Buffer.from([i])]));
      }
      const answers = await Promise.all(images.map((img) => post(s.auth, img)));
      const statuses = answers.map((a) => a.body.data?.status);
      expect(statuses.filter((x) => x === 'SUCCESS')).toHaveLength(1);
      expect(statuses.filter((x) => x === 'DUPLICATE')).toHaveLength(N - 1);
      expect(answers.filter((a) => a.body.data.duplicate)).toHaveLength(N - 1);
      const success = await h.c.db
        .selectFrom('transactions')
        .select('id')
        .where('shop_id', '=', s.shop.id)
        .where('status', '=', 'SUCCESS')
        .execute();
      expect(success).toHaveLength(1);
      // Money is honest under the race: the pool holds exactly the checks that were charged, whichever
      // duplicates were caught before the checker (free) or by the unique index after it (charged).
      const charged = await h.c.db
        .selectFrom('transactions')
        .select('id')
        .where('shop_id', '=', s.shop.id)
        .where('charged', '=', 1)
        .execute();
      expect(charged.length).toBeGreaterThanOrEqual(1);
      expect(await usedOf(s.shop.id)).toBe(charged.length);
    });

    it(`${N} concurrent uploads of one image with one unit left: one check, and the others answer its record, never 402`, async () => {
      // A retry sent while the first upload is still being checked is a replay of it: the unit the first
      // upload took is not "the quota used up" for its twins.
      const s = await seedShop(h);
      await h.c.quota.adjust(s.shop.id, { used: 509 }, 'test'); // STARTER hard limit 510
      const img = await bank.slip((await bank.register()).transRef);
      const answers = await Promise.all(Array.from({ length: N }, () => post(s.auth, img)));
      expect(answers.map((a) => a.status)).toEqual(Array.from({ length: N }, () => 200));
      expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
      expect(answers.filter((a) => a.body.data.cached === false)).toHaveLength(1);
      expect(await usedOf(s.shop.id)).toBe(510);
    });

    it(`${N} concurrent verifies with remaining = 5: exactly 5 pass, the rest get 402`, async () => {
      const s = await seedShop(h);
      await h.c.quota.adjust(s.shop.id, { used: 505 }, 'test'); // STARTER hard limit 510
      const images: Buffer[] = [];
      for (let i = 0; i < N; i++) images.push(await bank.slip((await bank.register()).transRef));
      const answers = await Promise.all(images.map((img) => post(s.auth, img)));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
      const refused = answers.filter((a) => a.status === 402);
      expect(refused).toHaveLength(N - 5);
      expect(refused.every((a) => a.body.code === 'QUOTA_EXCEEDED')).toBe(true);
      expect(await usedOf(s.shop.id)).toBe(510);
    });
  });
}
