import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import type { startSandbox } from '../helpers/sandbox.js';
import { createBankHarness, NO_RATE_LIMITS, postVerify } from '../helpers/bank-harness.js';

// Issue 9: a transfer's first SUCCESS is tracked per key environment, so testing an integration on a
// real customer's slip never blocks crediting that payment; and each key reads its own environment's
// records in GET /api/v1/transactions unless it asks for the other with environment=.
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`first SUCCESS per environment [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    let base: string;
    const post = (auth: Record<string, string>, image: Buffer) => postVerify(base, auth, image);
    const list = (auth: Record<string, string>, query = '') =>
      fetch(`${base}/api/v1/transactions${query}`, { headers: auth }).then(async (r) => ({ status: r.status, body: await r.json() }));

    async function shopWithBothKeys() {
      const s = await seedShop(h);
      const test = await h.c.apiKeys.create(s.shop.id, { environment: 'test', scopes: 'verify,read' }, 'test');
      return { ...s, live: s.auth, test: { authorization: `Bearer ${test.key}` } };
    }

    let closeAll: () => Promise<void>;
    beforeAll(async () => {
      ({ h, bank, base, close: closeAll } = await createBankHarness(kind, { ...NO_RATE_LIMITS, DECODE_THREADS: '1' }, { listen: true }));
    });
    afterAll(() => closeAll());

    it('test first: a live check after a test check is SUCCESS, a second live check is DUPLICATE, a second test check is DUPLICATE', async () => {
      const s = await shopWithBothKeys();
      const t = await bank.register();
      const img = await bank.slip(t.transRef);
      const other = await bank.slip(t.transRef, 'w540');
      expect((await post(s.test, img)).body.data.status).toBe('SUCCESS');
      const live = await post(s.live, img);
      expect(live.status).toBe(200);
      expect(live.body.data).toMatchObject({ status: 'SUCCESS', duplicate: false, cached: false, environment: 'live' });
      expect((await post(s.live, other)).body.data).toMatchObject({ status: 'DUPLICATE', duplicate: true, environment: 'live' });
      expect((await post(s.test, other)).body.data).toMatchObject({ status: 'DUPLICATE', duplicate: true, environment: 'test' });
      const used = await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', s.shop.id).executeTakeFirst();
      expect(used?.used).toBe(1); // only the live SUCCESS draws on the shop's pool
    });

    it('live first: a test check of the same transfer is its own first SUCCESS', async () => {
      const s = await shopWithBothKeys();
      const t = await bank.register();
      expect((await post(s.live, await bank.slip(t.transRef))).body.data.status).toBe('SUCCESS');
      expect((await post(s.test, await bank.slip(t.transRef, 'jpeg70', 'jpg'))).body.data).toMatchObject({
        status: 'SUCCESS',
        environment: 'test',
      });
    });

    it('concurrent live and test checks of one transfer: one SUCCESS in each environment', async () => {
      const s = await shopWithBothKeys();
      const t = await bank.register();
      const imgs = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => Buffer.concat([await bank.slip(t.transRef), Buffer.from([i])])),
      );
      const answers = await Promise.all(imgs.map((img, i) => post(i % 2 ? s.test : s.live, img)));
      for (const env of ['live', 'test']) {
        const mine = answers.filter((a) => a.body.data.environment === env).map((a) => a.body.data.status);
        expect(mine.filter((x) => x === 'SUCCESS')).toHaveLength(1);
        expect(mine.filter((x) => x === 'DUPLICATE')).toHaveLength(5);
      }
    });

    it('GET /transactions: each key reads its own environment; environment= reads the other one explicitly', async () => {
      const s = await shopWithBothKeys();
      const a = await bank.register();
      const b = await bank.register();
      const liveId = (await post(s.live, await bank.slip(a.transRef))).body.data.id;
      const testId = (await post(s.test, await bank.slip(b.transRef))).body.data.id;
      const ids = (r: { body: { data: { items: Array<{ id: string }> } } }) => r.body.data.items.map((x) => x.id);

      expect(ids(await list(s.test))).toEqual([testId]);
      expect(ids(await list(s.live))).toEqual([liveId]);
      // Filters combine with the default: a test key looking up a live transRef sees nothing...
      expect(ids(await list(s.test, `?transRef=${a.transRef}`))).toEqual([]);
      // ...unless it names the environment.
      expect(ids(await list(s.test, '?environment=live'))).toEqual([liveId]);
      expect(ids(await list(s.live, '?environment=test'))).toEqual([testId]);
      expect(ids(await list(s.live, `?environment=test&transRef=${b.transRef}`))).toEqual([testId]);
      expect((await list(s.live, '?environment=both')).status).toBe(400);
    });
  });
}
