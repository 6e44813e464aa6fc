import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachingSqliteDatabase, preparedQuery, preparedRowQuery, type Db } from '../../src/db/db.js';
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

    it('preparedRowQuery: one build per set of columns, each row its own values, nulls and ON CONFLICT included', async () => {
      let builds = 0;
      const insert = preparedRowQuery(
        (d: Db, row: { shop_id: string; period: string; used: number; test_used: number; updated_at: string }) => {
          builds++;
          return d
            .insertInto('quota_usage')
            .values(row)
            .onConflict((oc) => oc.columns(['shop_id', 'period']).doNothing())
            .returning(['shop_id', 'used']);
        },
      );
      const at = new Date().toISOString();
      expect(await insert(db, { shop_id: 'shop_c', period: '2025-02', used: 1, test_used: 0, updated_at: at })).toEqual([
        { shop_id: 'shop_c', used: 1 },
      ]);
      expect(await insert(db, { shop_id: 'shop_d', period: '2025-02', used: 2, test_used: 5, updated_at: at })).toEqual([
        { shop_id: 'shop_d', used: 2 },
      ]);
      expect(await insert(db, { shop_id: 'shop_d', period: '2025-02', used: 9, test_used: 0, updated_at: at })).toEqual([]); // conflict
      expect(builds).toBe(1);
      const rows = await db
        .selectFrom('quota_usage')
        .select(['shop_id', 'used', 'test_used'])
        .where('period', '=', '2025-02')
        .orderBy('shop_id')
        .execute();
      expect(rows).toEqual([
        { shop_id: 'shop_c', used: 1, test_used: 0 },
        { shop_id: 'shop_d', used: 2, test_used: 5 },
      ]);
      // Another set of columns is its own statement; an undefined value takes the normal path (Kysely drops the column).
      const update = preparedRowQuery((d: Db, row: { id: string; used?: number; test_used?: number }) => {
        builds++;
        const { id, ...set } = row;
        return d.updateTable('quota_usage').set(set).where('shop_id', '=', id).returning('used');
      });
      expect(await update(db, { id: 'shop_c', used: 4 })).toEqual([{ used: 4 }]);
      expect(await update(db, { id: 'shop_c', used: 6, test_used: undefined })).toEqual([{ used: 6 }]);
      expect(await update(db, { id: 'shop_d', test_used: 7 })).toEqual([{ used: 2 }]);
    });
  });
}
