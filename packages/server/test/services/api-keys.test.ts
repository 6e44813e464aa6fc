import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceHarness, DB_KINDS, pgMissing, seedShop, skipNote, type ServiceHarness } from '../helpers/harness.js';

// The API key service on a real database, without HTTP: what is stored and what authenticates. The
// answers a request gets (401, 403 by scope and plan, 429) are test/foundation/auth-and-limits.test.ts.
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`API key service [${kind}]${skipNote(kind)}`, () => {
    let h: ServiceHarness;
    beforeAll(async () => {
      h = await createServiceHarness(kind);
    });
    afterAll(async () => h.close());

    // Moved from test/foundation/auth-and-limits.test.ts (it needed no request).
    it('keys are stored only as hashes', async () => {
      const s = await seedShop(h);
      const rows = await h.c.db.selectFrom('api_keys').selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain(s.key);
      expect(JSON.stringify(await h.c.db.selectFrom('audit_log').selectAll().execute())).not.toContain(s.key);
    });

    it('a key authenticates to its shop and plan until it is revoked or rotated; malformed and unknown keys do not', async () => {
      const s = await seedShop(h);
      expect(await h.c.apiKeys.authenticate(s.key)).toMatchObject({
        key: { id: s.keyId, environment: 'live', scopes: ['verify', 'read'] },
        shop: { id: s.shop.id },
        plan: { code: 'STARTER' },
      });
      expect(await h.c.apiKeys.authenticate('sk_live_short')).toBeNull();
      expect(await h.c.apiKeys.authenticate(`${s.key.slice(0, -4)}AAAA`)).toBeNull();
      const rotated = await h.c.apiKeys.rotate(s.keyId, 'test');
      expect(await h.c.apiKeys.authenticate(s.key)).toBeNull();
      expect(await h.c.apiKeys.authenticate(rotated.key)).toMatchObject({ shop: { id: s.shop.id } });
      await h.c.apiKeys.revoke(rotated.view.id, 'test');
      expect(await h.c.apiKeys.authenticate(rotated.key)).toBeNull();
    });

    it('a trial shop cannot create keys', async () => {
      const s = await seedShop(h, { plan: 'TRIAL' });
      await expect(h.c.apiKeys.create(s.shop.id, { environment: 'test' }, 'test')).rejects.toMatchObject({
        code: 'PLAN_API_ACCESS_REQUIRED',
        statusCode: 403,
      });
      expect(await h.c.apiKeys.list(s.shop.id)).toEqual([]);
    });
  });
}
