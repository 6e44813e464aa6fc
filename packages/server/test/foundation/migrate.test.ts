// Every process start (service, worker, each CLI call) runs migrateToLatest. An up-to-date database
// must answer with one read of the bookkeeping table: Kysely's Migrator first lists every table of
// every schema, which took seconds per CLI call on a PostgreSQL database holding many schemas.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/db.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createHarness, DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';

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

    it('reads the bookkeeping table once and changes nothing', async () => {
      const { db, counter } = counting(h.c.db);
      expect(await migrateToLatest(db)).toEqual([]);
      expect(counter.statements).toBe(1);
    });
  });
}
