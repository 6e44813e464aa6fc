import type { Kysely } from 'kysely';

// Scheduled tasks run once per time slot across all worker nodes (issue 25): every node inserts the
// slot's job under the same deterministic key (`housekeeping:2026-11-25T23`), and this unique index
// makes all but the first insert a no-op. Ordinary jobs leave it null (nulls never collide).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('outbox').addColumn('dedupe_key', 'text').execute();
  await db.schema.createIndex('outbox_dedupe_key').on('outbox').column('dedupe_key').unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('outbox_dedupe_key').execute();
  await db.schema.alterTable('outbox').dropColumn('dedupe_key').execute();
}
