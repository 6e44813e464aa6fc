import type { Kysely } from 'kysely';

// Edited slips (issue 20): the amount the slip picture prints, as read by the service (integer satang,
// null when it was not read or not read with confidence), and whether it differs from the bank's
// amount (`edited`: FRAUD EDITED_SLIP in reject mode, a flagged SUCCESS in alert mode).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('printed_amount_satang', 'bigint').execute();
  await db.schema
    .alterTable('transactions')
    .addColumn('edited', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('edited').execute();
  await db.schema.alterTable('transactions').dropColumn('printed_amount_satang').execute();
}
