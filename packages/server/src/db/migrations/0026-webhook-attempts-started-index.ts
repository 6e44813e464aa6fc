import type { Kysely } from 'kysely';

// The hourly webhook retention (webhooks.prune-deliveries) also deletes attempts left without a
// delivery (an endpoint deleted while a send was in flight), older than the retention: an index on
// started_at lets each batch read only the attempts that old, not the whole table (its only index led
// with delivery_id).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('webhook_attempts_started').on('webhook_attempts').column('started_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_attempts_started').execute();
}
