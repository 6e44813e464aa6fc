import type { Kysely } from 'kysely';

// LINE answers that survive retries (issue 10).
// 1. line_events remembers what a job already did: the record its image produced and whether THIS
//    event created it (a re-run of the job then answers what the first run would have answered, not
//    "already sent"), and how far the answer got (`answer_state`: replied | pushed | uncertain), so a
//    reply that LINE accepted before our timeout is not sent a second time.
// 2. line_push_usage counts pushes per official account and month: pushes draw on the OA's monthly
//    allowance, the dashboard's LINE page shows the count.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('line_events').addColumn('transaction_id', 'text').execute();
  await db.schema.alterTable('line_events').addColumn('created_record', 'integer').execute();
  await db.schema.alterTable('line_events').addColumn('answer_state', 'text').execute();
  await db.schema
    .createTable('line_push_usage')
    .addColumn('line_channel_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('pushes', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('line_push_usage_pk', ['line_channel_id', 'period'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('line_push_usage').ifExists().execute();
  for (const c of ['answer_state', 'created_record', 'transaction_id']) await db.schema.alterTable('line_events').dropColumn(c).execute();
}
