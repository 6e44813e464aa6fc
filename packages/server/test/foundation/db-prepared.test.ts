import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachingSqliteDatabase, preparedQuery, type Db } from '../../src/db/db.js';
import { createHarness, DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';

describe('cachingSqliteDatabase', () => {
  it('reuses a compiled statement per SQL text and evicts the oldest past its bound', () => {
    const raw = new Database(':memory:');
    let compiles = 0;
    const prepare = raw.prepare.bind(raw);
    (raw as unknown as { prepare: typeof prepare }).prepare = (sql: string) => {
      compiles++;
      return prepare(sql);
    };
    const db = cachingSqliteDatabase(raw, 2);
    db.prepare('create table t (x integer)').run([]);
    const a = db.prepare('select x from t where x = ?');
    expect(db.prepare('select x from t where x = ?')).toBe(a);
    expect(compiles).toBe(2);
    db.prepare('insert into t (x) values (?)').run([1]); // third text: evicts the oldest (create)
    expect(db.prepare('select x from t where x = ?').all([1])).toEqual([{ x: 1 }]);
    expect(compiles).toBe(3);
    db.close();
  });
});

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`preparedQuery (${kind})${skipNote(kind)}`, () => {
    let h: Harness;
    let db: Db;
    beforeAll(async () => {
      h = await createHarness(kind);
      db = h.c.db;
      const at = new Date().toISOString();
      await db
        .insertInto('quota_usage')
        .values([
          { shop_id: 'shop_a', period: '2025-01', used: 3, test_used: 0, updated_at: at },
          { shop_id: 'shop_b', period: '2025-01', used: 7, test_used: 0, updated_at: at },
        ])
        .execute();
    });
    afterAll(async () => {
      await h.close();
    });

    it('binds each call its own values (built once)', async () => {
      let builds = 0;
      const q = preparedQuery((d: Db, shopId: string, period: string) => {
        builds++;
        return d.selectFrom('quota_usage').select('used').where('shop_id', '=', shopId).where('period', '=', period);
      });
      expect(await q(db, 'shop_a', '2025-01')).toEqual([{ used: 3 }]);
      expect(await q(db, 'shop_b', '2025-01')).toEqual([{ used: 7 }]);
      expect(await q(db, 'shop_b', '2024-12')).toEqual([]);
      expect(builds).toBe(1);
    });

    it('keeps constant parameters and works for a conditional update with RETURNING', async () => {
      const take = preparedQuery((d: Db, shopId: string, limit: number) =>
        d
          .updateTable('quota_usage')
          .set((eb) => ({ used: eb('used', '+', 1) }))
          .where('shop_id', '=', shopId)
          .where('used', '<', limit)
          .returning('used'),
      );
      expect(await take(db, 'shop_a', 5)).toEqual([{ used: 4 }]);
      expect(await take(db, 'shop_a', 5)).toEqual([{ used: 5 }]);
      expect(await take(db, 'shop_a', 5)).toEqual([]);
    });

    it('falls back to building every call when an argument shapes the SQL', async () => {
      let builds = 0;
      const q = preparedQuery((d: Db, shopId: string, twice: string) => {
        builds++;
        return d
          .selectFrom('quota_usage')
          .select('used')
          .where('shop_id', '=', shopId)
          .where('shop_id', '=', twice)
          .where('shop_id', '=', twice);
      });
      expect(await q(db, 'shop_b', 'shop_b')).toEqual([{ used: 7 }]);
      expect(await q(db, 'shop_b', 'shop_a')).toEqual([]);
      expect(builds).toBe(3); // the probe build, then one per call
    });
  });
}
