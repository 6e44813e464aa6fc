import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, createSecondNode, DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';

const K1 = 'k1-'.padEnd(40, 'a');
const K2 = 'k2-'.padEnd(40, 'b');

// Rotating SECRET_KEY: webhook and LINE secrets sealed under the old key keep working while it is
// listed in SECRET_KEY_PREVIOUS, and re-encryption moves them to the new key.
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`master secret rotation [${kind}]${skipNote(kind)}`, () => {
    const nodes: Harness[] = [];
    let first: Harness;
    const node = async (env: Record<string, string>) => {
      const h = await createSecondNode(first, kind, { LINE_API_BASE_URL: 'http://127.0.0.1:1', ...env });
      nodes.push(h);
      return h;
    };
    beforeAll(async () => {
      first = await createHarness(kind, { SECRET_KEY: K1, LINE_API_BASE_URL: 'http://127.0.0.1:1' });
    });
    afterAll(async () => {
      for (const h of nodes) await h.close();
      await first.close();
    });

    it('old secrets open under SECRET_KEY_PREVIOUS, re-encryption moves them, the new key alone then suffices', async () => {
      const s = await seedShop(first);
      const { endpoint, secret } = await first.c.webhooks.addEndpoint(s.shop.id, { url: 'http://127.0.0.1:9/hook' });
      const ch = await first.c.line.channels.link(
        s.shop.id,
        { channelId: '1650000001', channelSecret: 'c'.repeat(32), accessToken: 't'.repeat(40) },
        'test',
      );
      const sealedBefore = await first.c.db
        .selectFrom('webhook_endpoints')
        .select('secret_enc')
        .where('id', '=', endpoint.id)
        .executeTakeFirstOrThrow();

      const newOnly = await node({ SECRET_KEY: K2 });
      await expect(newOnly.c.webhooks.revealSecret(s.shop.id, endpoint.id)).rejects.toThrow();

      const rotating = await node({ SECRET_KEY: K2, SECRET_KEY_PREVIOUS: K1 });
      expect((await rotating.c.webhooks.revealSecret(s.shop.id, endpoint.id)).secret).toBe(secret);
      expect(await rotating.c.reencryptSecrets()).toEqual({ webhookEndpoints: 1, lineChannels: 1 });
      expect(await rotating.c.reencryptSecrets()).toEqual({ webhookEndpoints: 0, lineChannels: 0 });
      const sealedAfter = await first.c.db
        .selectFrom('webhook_endpoints')
        .select('secret_enc')
        .where('id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      expect(sealedAfter.secret_enc).not.toBe(sealedBefore.secret_enc);

      expect((await newOnly.c.webhooks.revealSecret(s.shop.id, endpoint.id)).secret).toBe(secret);
      const key = ch.webhookPath.split('/').pop()!;
      expect((await newOnly.c.line.channels.byWebhookKey(key))?.secret).toBe('c'.repeat(32));
    });

    it('refuses a rotation list without a new key or with short keys', async () => {
      await expect(createHarness(kind, { SECRET_KEY_PREVIOUS: K1 })).rejects.toThrow('SECRET_KEY_PREVIOUS');
      await expect(createHarness(kind, { SECRET_KEY: K2, SECRET_KEY_PREVIOUS: 'short' })).rejects.toThrow('SECRET_KEY_PREVIOUS');
    });
  });
}
