import { sql, type Kysely } from 'kysely';

// Sessions remember the LINE user that opened them (null for password, sign-up and invite sessions), so
// unlinking ends every session that LINE identity opened, the dashboard's "Log in with LINE" included.
// Mini-app sessions from before this column are all LINE's: they get the person's linked LINE user.
// `line_id_tokens` holds a SHA-256 of each accepted LINE ID token until it expires: one token, one session.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('user_sessions').addColumn('line_user_id', 'text').execute();
  await sql`update user_sessions set line_user_id = (select l.line_user_id from line_logins l where l.user_id = user_sessions.user_id) where kind = 'miniapp'`.execute(
    db,
  );
  await db.schema
    .createTable('line_id_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('line_id_tokens_expires').on('line_id_tokens').columns(['expires_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('line_id_tokens').execute();
  await db.schema.alterTable('user_sessions').dropColumn('line_user_id').execute();
}
