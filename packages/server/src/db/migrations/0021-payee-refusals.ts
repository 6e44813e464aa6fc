import type { Kysely } from 'kysely';

// A shop without an active payee account has every slip refused before checking (NO_PAYEE_CONFIGURED).
// The customer is told the shop checks by hand, but nobody told the owner, so the shop's slips went
// unchecked in silence. One row per shop counts the refusals of the current local day; a scheduled
// task tells the owner once a day how many slips could not be checked and since when (verification's
// payee-refusals.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('payee_refusals')
    .addColumn('shop_id', 'text', (c) => c.primaryKey())
    .addColumn('day', 'text', (c) => c.notNull()) // local day (TIME_ZONE) the count is of, YYYY-MM-DD
    .addColumn('refused', 'integer', (c) => c.notNull())
    .addColumn('first_at', 'text', (c) => c.notNull())
    .addColumn('last_at', 'text', (c) => c.notNull())
    .addColumn('alerted_day', 'text') // the day the owner was last told of (null: never)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('payee_refusals').ifExists().execute();
}
