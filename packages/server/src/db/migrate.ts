import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './db.js';
import * as m0001 from './migrations/0001-foundation.js';

/**
 * The one migration set for both stores, listed statically (no directory scanning, so it works
 * the same under tsx, a bundle or tests). Modules add their migration here, in order.
 */
const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
