import type { Kysely } from 'kysely';

// Staff seats: invites by e-mail (token stored as SHA-256 only, single use, 7 days).
// `users.role` exists since 0003 (default 'owner'); rows written before it had a meaning are owners,
// so anything that is not 'staff' is normalised to 'owner' here.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.withTables<{ users: { role: string } }>().updateTable('users').set({ role: 'owner' }).where('role', '!=', 'staff').execute();

  await db.schema
    .createTable('team_invites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id'))
    .addColumn('email', 'text', (c) => c.notNull()) // lower-cased
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('staff'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('accepted_user_id', 'text')
    .execute();
  await db.schema.createIndex('team_invites_shop').on('team_invites').columns(['shop_id', 'email']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('team_invites').execute();
}
