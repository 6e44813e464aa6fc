import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';

/** db/ capabilities answer for the driver behind them: callers never sniff driver error codes. */
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`db capabilities (${kind})${skipNote(kind)}`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await createHarness(kind);
    });
    afterAll(async () => {
      await h.close();
    });

    const failureOf = async (write: () => Promise<unknown>): Promise<unknown> => {
      try {
        await write();
      } catch (err) {
        return err;
      }
      throw new Error('the write did not fail');
    };

    it('names its own store', () => {
      expect(h.c.caps.kind).toBe(kind);
    });

    it('isUniqueViolation: true for a second row on a unique key, inside a transaction too', async () => {
      const at = new Date().toISOString();
      const row = { shop_id: `shop_caps_${kind}`, period: '2025-01', used: 1, test_used: 0, updated_at: at };
      await h.c.db.insertInto('quota_usage').values(row).execute();
      const plain = await failureOf(() => h.c.db.insertInto('quota_usage').values(row).execute());
      expect(h.c.caps.isUniqueViolation(plain)).toBe(true);
      const inTrx = await failureOf(() => h.c.db.transaction().execute((trx) => trx.insertInto('quota_usage').values(row).execute()));
      expect(h.c.caps.isUniqueViolation(inTrx)).toBe(true);
    });

    it('isUniqueViolation: false for other failures and non-errors', async () => {
      const notNull = await failureOf(() =>
        h.c.db
          .insertInto('quota_usage')
          .values({ shop_id: 'shop_caps_null', period: '2025-01', used: null as unknown as number, test_used: 0, updated_at: 'x' })
          .execute(),
      );
      expect(h.c.caps.isUniqueViolation(notNull)).toBe(false);
      expect(h.c.caps.isUniqueViolation(new Error('boom'))).toBe(false);
      expect(h.c.caps.isUniqueViolation(undefined)).toBe(false);
      expect(h.c.caps.isUniqueViolation(null)).toBe(false);
    });
  });
}
