import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, createSecondNode, DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';

// Two service nodes on one database: the exactly-once rules come from the database, not from
// anything held in one process.
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`two nodes, one database [${kind}]${skipNote(kind)}`, () => {
    let a: Harness;
    let b: Harness;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    const urls: string[] = [];
    beforeAll(async () => {
      bank = await startSandbox();
      const env = { CHECKER_URL: bank.url, RATE_LIMIT_PER_KEY: '100000', RATE_LIMIT_VERIFY_PER_SHOP: '100000', DECODE_THREADS: '1' };
      // Each node its own decoder pool (`decoderPool` set: not the test process's shared one), as two
      // processes have: the 20 concurrent verifies below need both nodes' decoder queues.
      a = await createHarness(kind, env, { decoderPool: {} });
      b = await createSecondNode(a, kind, env, { decoderPool: {} });
      for (const h of [a, b]) {
        await h.app.listen({ port: 0, host: '127.0.0.1' });
        urls.push(`http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`);
      }
    });
    afterAll(async () => {
      await b.close();
      await a.close();
      await bank.close();
    });

    const post = (i: number, auth: Record<string, string>, image: Buffer) =>
      fetch(`${urls[i % 2]}/api/v1/verify`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(image),
      }).then(async (r) => ({ status: r.status, body: await r.json() }));

    it('the same image sent to both nodes at once: one record, one unit, one checker call', async () => {
      const s = await seedShop(a);
      const t = await bank.register();
      const img = await bank.slip(t.transRef);
      const calls = (await bank.stats()).checkerCalls;
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i, s.auth, img)));
      expect(new Set(answers.map((x) => x.body.data.id)).size).toBe(1);
      expect((await bank.stats()).checkerCalls - calls).toBe(1);
      const used = await a.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', s.shop.id).executeTakeFirst();
      expect(used?.used).toBe(1);
    });

    it('different images of one transfer across both nodes: one SUCCESS', async () => {
      const s = await seedShop(a);
      const t = await bank.register();
      const imgs = await Promise.all(
        Array.from({ length: 20 }, async (_, i) =>
          Buffer.concat([await bank.slip(t.transRef, i % 2 ? 'w540' : 'clean'), Buffer.from([i])]),
        ),
      );
      const answers = await Promise.all(imgs.map((img, i) => post(i, s.auth, img)));
      expect(answers.filter((x) => x.body.data.status === 'SUCCESS')).toHaveLength(1);
      expect(answers.filter((x) => x.body.data.status === 'DUPLICATE')).toHaveLength(19);
    });

    it('remaining = 3 across both nodes: exactly 3 pass', async () => {
      const s = await seedShop(a);
      await a.c.quota.adjust(s.shop.id, { used: 507 }, 'test');
      const imgs = await Promise.all(Array.from({ length: 12 }, async () => bank.slip((await bank.register()).transRef)));
      const answers = await Promise.all(imgs.map((img, i) => post(i, s.auth, img)));
      expect(answers.filter((x) => x.status === 200)).toHaveLength(3);
      expect(answers.filter((x) => x.status === 402)).toHaveLength(9);
    });
  });
}
