import type { Kysely } from 'kysely';

// Exactly-once under crashes (issue 9).
// 1. An in-flight image claim carries its owner (a random token), a short lease the owner renews while
//    it works, and the quota unit it reserved (pool + period). The unit is taken in the same
//    transaction that marks the claim, and given back or turned into a record in the same transaction
//    that clears the mark, so a node killed in between leaves a marked claim whose lease runs out:
//    a retry of the slip inherits it, or the worker's sweep returns the unit.
// 2. A transfer's first SUCCESS is tracked per key environment: the one-success index gains
//    `environment`, so a test check never turns a later live check into DUPLICATE.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('image_claims').addColumn('owner', 'text').execute();
  await db.schema.alterTable('image_claims').addColumn('lease_until', 'text').execute();
  await db.schema.alterTable('image_claims').addColumn('reserved_pool', 'text').execute(); // 'live' | 'test' | null
  await db.schema.alterTable('image_claims').addColumn('reserved_period', 'text').execute();
  await db.schema.createIndex('image_claims_in_flight').on('image_claims').columns(['transaction_id', 'lease_until']).execute();

  await db.schema.dropIndex('transactions_one_success').execute();
  await db.schema
    .createIndex('transactions_one_success')
    .on('transactions')
    .columns(['shop_id', 'environment', 'success_ref'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('transactions_one_success').execute();
  await db.schema.createIndex('transactions_one_success').on('transactions').columns(['shop_id', 'success_ref']).unique().execute();
  await db.schema.dropIndex('image_claims_in_flight').execute();
  for (const c of ['reserved_period', 'reserved_pool', 'lease_until', 'owner'])
    await db.schema.alterTable('image_claims').dropColumn(c).execute();
}
