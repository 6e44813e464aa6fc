import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './db.js';
import * as m0001 from './migrations/0001-foundation.js';
import * as m0002 from './migrations/0002-webhooks.js';
import * as m0003 from './migrations/0003-accounts.js';
import * as m0004 from './migrations/0004-line.js';
import * as m0005 from './migrations/0005-team.js';
import * as m0006 from './migrations/0006-crash-safe-charging.js';
import * as m0007 from './migrations/0007-line-delivery.js';
import * as m0010 from './migrations/0010-reports.js';
import * as m0011 from './migrations/0011-line-login.js';
import * as m0014 from './migrations/0014-line-sessions.js';
import * as m0016 from './migrations/0016-record-payee.js';
import * as m0017 from './migrations/0017-printed-amount.js';
import * as m0019 from './migrations/0019-outbox-dedupe-key.js';
import * as m0020 from './migrations/0020-one-success-per-transfer.js';
import * as m0021 from './migrations/0021-payee-refusals.js';
import * as m0022 from './migrations/0022-export-tickets.js';
import * as m0023 from './migrations/0023-line-group-joined.js';
import * as m0024 from './migrations/0024-mail-created-index.js';
import * as m0025 from './migrations/0025-retention-indexes.js';
import * as m0026 from './migrations/0026-webhook-attempts-started-index.js';
import * as m0027 from './migrations/0027-credential-retention-indexes.js';

/**
 * The one migration set for both stores, listed statically (no directory scanning, so it works
 * the same under tsx, a bundle or tests). Modules add their migration here, in order.
 */
const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-webhooks': m0002,
  '0003-accounts': m0003,
  '0004-line': m0004,
  '0005-team': m0005,
  '0006-crash-safe-charging': m0006,
  '0007-line-delivery': m0007,
  '0010-reports': m0010,
  '0011-line-login': m0011,
  '0014-line-sessions': m0014,
  '0016-record-payee': m0016,
  '0017-printed-amount': m0017,
  '0019-outbox-dedupe-key': m0019,
  '0020-one-success-per-transfer': m0020,
  '0021-payee-refusals': m0021,
  '0022-export-tickets': m0022,
  '0023-line-group-joined': m0023,
  '0024-mail-created-index': m0024,
  '0025-retention-indexes': m0025,
  '0026-webhook-attempts-started-index': m0026,
  '0027-credential-retention-indexes': m0027,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** `schema` pins Kysely's bookkeeping tables (PostgreSQL), so databases holding several schemas never mix them up. */
export async function migrateToLatest(db: Db, schema?: string): Promise<string[]> {
  // Every process start (service, worker, each CLI call) comes here. An up-to-date database answers
  // with one read of the bookkeeping table; Kysely's Migrator would first list every table of every
  // schema, which takes seconds on a PostgreSQL database holding many schemas.
  if (await isUpToDate(db, schema)) return [];
  // Migrations are independent of each other's order (each touches its own tables or columns), and a
  // database that ran a later-numbered one first (a development copy between releases) must still take
  // the rest instead of refusing to start.
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

async function isUpToDate(db: Db, schema?: string): Promise<boolean> {
  try {
    const table = sql.table(schema ? `${schema}.kysely_migration` : 'kysely_migration');
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(db);
    const done = new Set(rows.map((r) => r.name));
    return Object.keys(migrations).every((name) => done.has(name));
  } catch {
    return false; // no bookkeeping table yet: a new database, the Migrator creates it
  }
}
