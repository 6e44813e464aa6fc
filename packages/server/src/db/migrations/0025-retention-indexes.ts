import type { Kysely } from 'kysely';

// The hourly retention deletes audit entries (audit.prune) and settled same-image claims
// (image-claims.prune) by age in bounded batches: without an index on the age column each batch would
// scan the whole table (audit_log's only index leads with shop_id, image_claims' with its key and
// transaction_id).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('audit_log_created').on('audit_log').column('created_at').execute();
  await db.schema.createIndex('image_claims_claimed').on('image_claims').column('claimed_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('image_claims_claimed').execute();
  await db.schema.dropIndex('audit_log_created').execute();
}
