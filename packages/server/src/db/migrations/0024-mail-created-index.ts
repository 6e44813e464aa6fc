import type { Kysely } from 'kysely';

// The hourly mail retention (mail.prune) deletes sent messages by age: without an index on created_at
// each of its batches would scan the whole table (the only index led with to_addr).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('mail_messages_created').on('mail_messages').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('mail_messages_created').execute();
}
