import type { Db } from '../../db/db.js';
import type { PlansTable } from '../../db/db-schema.js';

/** The SQL of the plan catalogue (table `plans`); no other file names the table. */
export function createPlanRepo(db: Db) {
  return {
    /** Insert or replace by code (the catalogue file is the source; the start-up sync writes it). */
    async upsert(row: PlansTable): Promise<void> {
      const { code: _code, ...rest } = row;
      await db
        .insertInto('plans')
        .values(row)
        .onConflict((oc) => oc.column('code').doUpdateSet(rest))
        .execute();
    },
    async list(): Promise<PlansTable[]> {
      return db.selectFrom('plans').selectAll().orderBy('monthly_limit').execute();
    },
    async get(code: string): Promise<PlansTable | undefined> {
      return db.selectFrom('plans').selectAll().where('code', '=', code).executeTakeFirst();
    },
  };
}
