import { sql, type Kysely } from 'kysely';

// A transfer reaches one account once, so it settles one order across the whole service, not one per
// shop: two shops receiving into the same account (branches of one business, each with its own
// subscription) both answered SUCCESS for one slip, and the customer collected twice. The one-success
// index loses `shop_id`: a second shop's SUCCESS of the same transfer and key environment becomes a
// DUPLICATE at commit, like a second one in the same shop (verification-service.ts `persist`).
export async function up(db: Kysely<unknown>): Promise<void> {
  // A database from before may hold such pairs already. Their records stay as they were answered; only
  // the later ones lose the uniqueness marker, so the first shop's SUCCESS is the transfer's SUCCESS.
  await sql`update transactions set success_ref = null
    where success_ref is not null and exists (
      select 1 from transactions as earlier
      where earlier.environment = transactions.environment and earlier.success_ref = transactions.success_ref
        and (earlier.created_at < transactions.created_at or (earlier.created_at = transactions.created_at and earlier.id < transactions.id)))`.execute(
    db,
  );
  await db.schema.dropIndex('transactions_one_success').execute();
  // Partial: only SUCCESS rows carry a marker, so only they are indexed, and no query without
  // `success_ref = ...` can pick this index for its environment alone (SQLite did, and the money view's
  // per-record lookup of a transfer's other records then scanned every record of the environment).
  await db.schema
    .createIndex('transactions_one_success')
    .on('transactions')
    .columns(['environment', 'success_ref'])
    .unique()
    .where(sql.ref('success_ref'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('transactions_one_success').execute();
  await db.schema
    .createIndex('transactions_one_success')
    .on('transactions')
    .columns(['shop_id', 'environment', 'success_ref'])
    .unique()
    .execute();
}
