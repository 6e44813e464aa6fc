import type { Kysely } from 'kysely';

// The hourly credential retention (sessions.prune, accounts.prune-resets, line.prune-link-codes,
// line-login.prune-codes) deletes ended sessions, their refresh tokens, password-reset links and LINE
// link / login codes by their expiry (sessions also by revocation) in bounded batches: without an index
// on those columns each batch would scan the whole table (the only indexes led with user_id,
// session_id or the hash). line_id_tokens has had its expires_at index since 0014.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('user_sessions_expires').on('user_sessions').column('expires_at').execute();
  await db.schema.createIndex('user_sessions_revoked').on('user_sessions').column('revoked_at').execute();
  await db.schema.createIndex('refresh_tokens_expires').on('refresh_tokens').column('expires_at').execute();
  await db.schema.createIndex('password_resets_expires').on('password_resets').column('expires_at').execute();
  await db.schema.createIndex('line_link_codes_expires').on('line_link_codes').column('expires_at').execute();
  await db.schema.createIndex('line_login_codes_expires').on('line_login_codes').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('line_login_codes_expires').execute();
  await db.schema.dropIndex('line_link_codes_expires').execute();
  await db.schema.dropIndex('password_resets_expires').execute();
  await db.schema.dropIndex('refresh_tokens_expires').execute();
  await db.schema.dropIndex('user_sessions_revoked').execute();
  await db.schema.dropIndex('user_sessions_expires').execute();
}
