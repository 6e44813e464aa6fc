import { sql, type Kysely } from 'kysely';

// Portable types only (text, integer, bigint) so one migration set serves SQLite and PostgreSQL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('plans')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('monthly_limit', 'integer', (c) => c.notNull())
    .addColumn('trial_days', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('api_access', 'integer', (c) => c.notNull())
    .addColumn('webhooks', 'integer', (c) => c.notNull())
    .addColumn('seats', 'integer', (c) => c.notNull())
    .addColumn('groups', 'integer', (c) => c.notNull())
    .addColumn('messaging_accounts', 'integer', (c) => c.notNull())
    .addColumn('allow_overage', 'integer', (c) => c.notNull())
    .addColumn('free_buffer', 'integer', (c) => c.notNull())
    .addColumn('monthly_cap', 'integer', (c) => c.notNull())
    .addColumn('hard_block_multiple', 'integer', (c) => c.notNull())
    .addColumn('price_thb', 'integer', (c) => c.notNull())
    .addColumn('overage_price_satang', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('shops')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('plan_code', 'text', (c) => c.notNull().references('plans.code'))
    .addColumn('chosen_plan_code', 'text')
    .addColumn('trial_ends_at', 'text')
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('th'))
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();

  await db.schema
    .createTable('payee_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id'))
    .addColumn('bank_code', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('account_number', 'text', (c) => c.notNull())
    .addColumn('proxy_type', 'text')
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('is_primary', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payee_accounts_shop').on('payee_accounts').column('shop_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('replaced_by', 'text')
    .execute();
  await db.schema.createIndex('api_keys_shop').on('api_keys').column('shop_id').execute();

  await db.schema
    .createTable('transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trans_ref', 'text')
    .addColumn('amount_satang', 'bigint')
    .addColumn('expected_amount_satang', 'bigint')
    .addColumn('bank_code', 'text')
    .addColumn('bank_name', 'text')
    .addColumn('sender_name', 'text')
    .addColumn('sender_account', 'text')
    .addColumn('receiver_name', 'text')
    .addColumn('receiver_account', 'text')
    .addColumn('trans_date', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('duplicate', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('stale', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('charged', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('latency_ms', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('client_ref', 'text')
    .addColumn('image_hash', 'text')
    .addColumn('api_key_id', 'text')
    .addColumn('success_ref', 'text')
    .addColumn('anonymized_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('transactions_shop_created').on('transactions').columns(['shop_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('transactions_shop_ref').on('transactions').columns(['shop_id', 'trans_ref']).execute();
  await db.schema.createIndex('transactions_shop_client_ref').on('transactions').columns(['shop_id', 'client_ref']).execute();
  // At most one SUCCESS per transRef and shop, enforced by the database (NULLs never collide).
  await db.schema.createIndex('transactions_one_success').on('transactions').columns(['shop_id', 'success_ref']).unique().execute();

  await db.schema
    .createTable('image_claims')
    .addColumn('shop_id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('image_hash', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'text')
    .addColumn('claimed_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('image_claims_pk', ['shop_id', 'scope', 'image_hash'])
    .execute();

  await db.schema
    .createTable('quota_usage')
    .addColumn('shop_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('test_used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('quota_usage_pk', ['shop_id', 'period'])
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('detail', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('ip', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_shop_created').on('audit_log').columns(['shop_id', 'created_at']).execute();

  await db.schema
    .createTable('outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('shop_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbox_due').on('outbox').columns(['status', 'run_at']).execute();
  void sql;
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['outbox', 'audit_log', 'quota_usage', 'image_claims', 'transactions', 'api_keys', 'payee_accounts', 'shops', 'plans']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
