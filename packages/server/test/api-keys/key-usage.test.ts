// Per-key usage (the keys screen's "usage metrics" and `slipcheck key list`): calls of each key this
// quota period split by result status, from the records the key created; another key's or shop's
// calls never count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxBank } from '@slipcheck/sandbox-bank';
import { runCli } from '../../src/cli/cli.js';
import { usageByKey } from '../../src/modules/api-keys/api-key-usage.js';
import { createHarness, DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`per-key usage (${kind})${skipNote(kind)}`, () => {
    let h: Harness;
    let bank: Awaited<ReturnType<typeof createSandboxBank>>;
    beforeAll(async () => {
      bank = await createSandboxBank({ port: 0 });
      h = await createHarness(kind, { CHECKER_URL: bank.url, DECODE_THREADS: '1' });
    });
    afterAll(async () => {
      await h.close();
      await bank.close();
    });
    const slip = async (ext: 'png' | 'jpg', transRef?: string) => {
      if (!transRef) {
        const r = await fetch(`${bank.url}/transfers`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            sendingBank: '014',
            amount: 50,
            sender: { name: 'นาย สมชาย ใจดี', account: '4081234567' },
            receiver: { name: 'ร้านกาแฟ', account: '1234566609', bankCode: '004' },
          }),
        });
        transRef = ((await r.json()) as { transRef: string }).transRef;
      }
      return { transRef, image: Buffer.from(await (await fetch(`${bank.url}/transfers/${transRef}/slip.${ext}`)).arrayBuffer()) };
    };

    const verify = (key: string, body: Buffer) =>
      h.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
        payload: body,
      });

    it("counts each key's calls by status; other keys and shops stay apart", async () => {
      const { shop, key, keyId } = await seedShop(h);
      const other = await h.c.apiKeys.create(shop.id, { environment: 'live', scopes: 'verify,read', name: 'POS 2' }, 'test');
      const elsewhere = await seedShop(h);
      const first = await slip('png');
      expect((await verify(key, first.image)).json().data.status).toBe('SUCCESS');
      expect((await verify(key, (await slip('jpg', first.transRef)).image)).json().data.status).toBe('DUPLICATE');
      expect((await verify(other.key, (await slip('png')).image)).json().data.status).toBe('SUCCESS');
      await verify(elsewhere.key, (await slip('png')).image);

      const usage = await usageByKey(h.c.transactions, shop.id, new Date(Date.now() - 86_400_000).toISOString());
      const mine = usage.get(keyId)!;
      expect(mine.total).toBe(2);
      expect(mine.byStatus).toEqual({ SUCCESS: 1, DUPLICATE: 1 });
      expect(usage.get(other.view.id)).toEqual({ total: 1, byStatus: { SUCCESS: 1 } });
      expect(usage.has(elsewhere.keyId)).toBe(false);
      // Before the period: nothing.
      expect((await usageByKey(h.c.transactions, shop.id, new Date(Date.now() + 60_000).toISOString())).size).toBe(0);

      if (kind === 'sqlite') {
        // `slipcheck key list` shows it next to lastUsedAt (same data directory as the service).
        await h.c.apiKeys.flushLastUsed();
        let stdout = '';
        const code = await runCli(
          ['key', 'list', '--shop', shop.id],
          {
            stdout: (s) => {
              stdout += s;
            },
            stderr: () => undefined,
          },
          { ...process.env, DATA_DIR: h.dataDir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'silent' },
        );
        expect(code).toBe(0);
        const listed = JSON.parse(stdout) as Array<{
          id: string;
          usage: { total: number; byStatus: Record<string, number> };
          lastUsedAt: string | null;
        }>;
        expect(listed.find((k) => k.id === keyId)!.usage).toEqual(mine);
        expect(listed.find((k) => k.id === other.view.id)!.usage.total).toBe(1);
        expect(listed.find((k) => k.id === keyId)!.lastUsedAt).not.toBeNull();
      }
    }, 60_000);
  });
}
