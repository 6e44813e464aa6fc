import type { Kysely } from 'kysely';

// Dashboard owner accounts, sessions (refresh-token families), password resets and the mail sink.
// Portable types only (text, integer) so one migration serves SQLite and PostgreSQL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id'))
    .addColumn('email', 'text', (c) => c.notNull().unique()) // lower-cased
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('owner'))
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('th'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('password_changed_at', 'text')
    .addColumn('disabled_at', 'text')
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('users_shop').on('users').column('shop_id').execute();

  // One row per login: the refresh-token family. Revoking it revokes every token of the chain.
  await db.schema
    .createTable('user_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('shop_id', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('ip', 'text')
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('revoke_reason', 'text')
    .execute();
  await db.schema.createIndex('user_sessions_user').on('user_sessions').columns(['user_id', 'fingerprint']).execute();

  await db.schema
    .createTable('refresh_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull().references('user_sessions.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('rotated_at', 'text')
    .execute();
  await db.schema.createIndex('refresh_tokens_session').on('refresh_tokens').column('session_id').execute();

  await db.schema
    .createTable('password_resets')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();

  // Development sink rows hold the body; with SMTP only the metadata and the send outcome are kept.
  await db.schema
    .createTable('mail_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('to_addr', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('body_text', 'text')
    .addColumn('transport', 'text', (c) => c.notNull()) // sink | smtp
    .addColumn('status', 'text', (c) => c.notNull()) // stored | sent | failed
    .addColumn('error', 'text')
    .addColumn('shop_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mail_messages_to').on('mail_messages').columns(['to_addr', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['mail_messages', 'password_resets', 'refresh_tokens', 'user_sessions', 'users']) await db.schema.dropTable(t).execute();
}
