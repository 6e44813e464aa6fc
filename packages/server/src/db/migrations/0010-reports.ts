import type { Kysely } from 'kysely';

// Daily summary (modules/reports): one row per shop and Bangkok day, written in the same transaction
// as the outbox job that sends it. The primary key is what makes "one summary a day, never twice"
// hold across any number of workers and processes: a second scheduler's insert conflicts and
// enqueues nothing.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('daily_summaries')
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id'))
    .addColumn('day', 'text', (c) => c.notNull()) // YYYY-MM-DD in the shop's business time zone
    .addColumn('status', 'text', (c) => c.notNull()) // queued | sent | skipped
    .addColumn('job_id', 'text')
    .addColumn('sent_line', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sent_email', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('daily_summaries_pk', ['shop_id', 'day'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('daily_summaries').execute();
}
