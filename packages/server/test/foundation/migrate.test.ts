// Every process start (service, worker, each CLI call) runs migrateToLatest. An up-to-date database
// must answer with one read of the bookkeeping table: Kysely's Migrator first lists every table of
// every schema, which took seconds per CLI call on a PostgreSQL database holding many schemas.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely, KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/db.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createHarness, DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import * as oneSuccess from '../../src/db/migrations/0020-one-success-per-transfer.js';
import { seedShop } from '../helpers/harness.js';
import { seedTx } from '../helpers/records.js';

/** A view of `db` that counts the statements it runs. */
function counting<T extends { withPlugin(p: KyselyPlugin): T }>(db: T) {
  const counter = { statements: 0 };
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      counter.statements++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { db: db.withPlugin(plugin), counter };
}

describe('migrateToLatest on a new SQLite file', () => {
  it('creates everything, then costs one statement once up to date', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-migrate-'));
    const handle = openDatabase({ dataDir });
    try {
      const first = await migrateToLatest(handle.db);
      expect(first).toContain('0001-foundation');
      expect(first.length).toBeGreaterThan(5);
      const { db, counter } = counting(handle.db);
      expect(await migrateToLatest(db)).toEqual([]);
      expect(counter.statements).toBe(1);
    } finally {
      await handle.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`migrateToLatest on an up-to-date database [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await createHarness(kind);
    });
    afterAll(() => h.close());

    it("0020 keeps the first of two shops' SUCCESS of one transfer and then refuses a second", async () => {
      // Before 0020 each shop could hold its own SUCCESS of one transfer; go back to that shape.
      await oneSuccess.down(h.c.db as unknown as Kysely<unknown>);
      const [a, b] = [await seedShop(h), await seedShop(h)];
      const ref = `R0020${Date.now()}`;
      const t0 = new Date('2026-11-20T03:00:00Z');
      const first = await seedTx(h, a.shop.id, t0, 'SUCCESS', { trans_ref: ref, success_ref: ref });
      const later = await seedTx(h, b.shop.id, new Date(t0.getTime() + 60_000), 'SUCCESS', { trans_ref: ref, success_ref: ref });
      const test = await seedTx(h, b.shop.id, t0, 'SUCCESS', { trans_ref: ref, success_ref: ref, environment: 'test' });
      await oneSuccess.up(h.c.db as unknown as Kysely<unknown>);
      const rows = await h.c.db.selectFrom('transactions').select(['id', 'status', 'success_ref']).where('trans_ref', '=', ref).execute();
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(byId.get(first)).toMatchObject({ status: 'SUCCESS', success_ref: ref });
      // The later shop's record keeps the answer it was given; only the uniqueness marker goes.
      expect(byId.get(later)).toMatchObject({ status: 'SUCCESS', success_ref: null });
      expect(byId.get(test)).toMatchObject({ success_ref: ref });
      await expect(seedTx(h, b.shop.id, new Date(), 'SUCCESS', { trans_ref: ref, success_ref: ref })).rejects.toSatisfy((e) =>
        h.c.caps.isUniqueViolation(e),
      );
    });

    it('reads the bookkeeping table once and changes nothing', async () => {
      const { db, counter } = counting(h.c.db);
      expect(await migrateToLatest(db)).toEqual([]);
      expect(counter.statements).toBe(1);
    });
  });
}
