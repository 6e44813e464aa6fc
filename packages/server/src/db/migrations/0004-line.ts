import type { Kysely } from 'kysely';

/**
 * LINE channel: linked official accounts (secrets sealed by secret-box), linked group chats, one-time
 * link codes (stored hashed), the shop owners' LINE users, webhook-event dedupe and once-per-period
 * notice marks. Portable types only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('line_channels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id'))
    .addColumn('channel_id', 'text', (c) => c.notNull().unique()) // LINE's channel id: one shop at a time
    .addColumn('webhook_key', 'text', (c) => c.notNull().unique())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('token_sealed', 'text', (c) => c.notNull())
    .addColumn('bot_user_id', 'text')
    .addColumn('bot_name', 'text')
    .addColumn('status', 'text', (c) => c.notNull()) // active | unlinked
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('line_channels_shop').on('line_channels').column('shop_id').execute();

  await db.schema
    .createTable('line_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id'))
    .addColumn('line_channel_id', 'text', (c) => c.notNull().references('line_channels.id'))
    .addColumn('group_id', 'text', (c) => c.notNull()) // LINE groupId (or roomId)
    .addColumn('linked_by', 'text') // LINE userId of the person who typed the code
    .addColumn('silent_non_slip', 'integer') // null = configuration default
    .addColumn('status', 'text', (c) => c.notNull()) // active | unlinked
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('line_groups_channel_group').on('line_groups').columns(['line_channel_id', 'group_id']).unique().execute();
  await db.schema.createIndex('line_groups_shop').on('line_groups').column('shop_id').execute();

  await db.schema
    .createTable('line_link_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id'))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('used_for', 'text') // group:<id> | owner:<userId>
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('line_owners')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id'))
    .addColumn('line_channel_id', 'text', (c) => c.notNull().references('line_channels.id'))
    .addColumn('line_user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('line_owners_unique').on('line_owners').columns(['line_channel_id', 'line_user_id']).unique().execute();
  await db.schema.createIndex('line_owners_shop').on('line_owners').column('shop_id').execute();

  await db.schema
    .createTable('line_events')
    .addColumn('webhook_event_id', 'text', (c) => c.primaryKey())
    .addColumn('line_channel_id', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('line_events_received').on('line_events').column('received_at').execute();

  await db.schema
    .createTable('line_notices')
    .addColumn('shop_id', 'text', (c) => c.notNull())
    .addColumn('notice', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('line_notices_pk', ['shop_id', 'notice', 'period'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['line_notices', 'line_events', 'line_owners', 'line_link_codes', 'line_groups', 'line_channels']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
