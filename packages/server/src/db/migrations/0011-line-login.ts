import type { Kysely } from 'kysely';

// Sign-in with LINE (mini-app and dashboard): a person (users row, one per shop) links one LINE user;
// one LINE user may be linked to persons of several shops (the mini-app's shop switcher).
// Link codes are shown once in the dashboard and stored as SHA-256 only. Sessions get a `kind` so the
// security screen can tell a mini-app session from a dashboard one and unlinking revokes the former.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('line_logins')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull())
    .addColumn('line_user_id', 'text', (c) => c.notNull())
    .addColumn('linked_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('line_logins_line_user').on('line_logins').columns(['line_user_id']).execute();

  await db.schema
    .createTable('line_login_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('shop_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();

  await db.schema
    .alterTable('user_sessions')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('dashboard'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('user_sessions').dropColumn('kind').execute();
  await db.schema.dropTable('line_login_codes').execute();
  await db.schema.dropTable('line_logins').execute();
}
