import type { Kysely } from 'kysely';

// One-time download tickets for the dashboard's transactions export (modules/reports). The page asks
// for a ticket with its bearer token, then lets the browser fetch the file itself (a real download,
// streamed to disk with the browser's progress), which cannot send the bearer header. The ticket in
// that URL is short-lived and single use; only its SHA-256 is stored, so a copy of this table opens
// nothing. The row carries the person and session (checked again when the file is fetched) and the
// export's exact filters, format and language.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('export_tickets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('format', 'text', (c) => c.notNull()) // csv | xlsx
    .addColumn('lang', 'text') // th | en; null: the shop's language
    .addColumn('filters', 'text', (c) => c.notNull()) // JSON: the list's filters, amounts in satang
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  // Issuing a ticket clears the shop's expired ones (the table stays a handful of rows per shop).
  await db.schema.createIndex('export_tickets_shop_expiry').on('export_tickets').columns(['shop_id', 'expires_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('export_tickets').ifExists().execute();
}
