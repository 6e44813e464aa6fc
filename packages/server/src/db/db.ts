import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { Database } from './db-schema.js';

export type Db = Kysely<Database>;

/**
 * What differs between the two stores lives here and nowhere else: callers branch on these
 * capability flags, never on the adapter.
 */
export interface DbCapabilities {
  kind: 'sqlite' | 'postgres';
  /** `FOR UPDATE SKIP LOCKED` for concurrent outbox workers (PostgreSQL); SQLite has one writer. */
  skipLocked: boolean;
}

export interface DbHandle {
  db: Db;
  caps: DbCapabilities;
  close(): Promise<void>;
}

// int8 (COUNT, bigint columns) comes back as string by default; our values fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));

export function openDatabase(opts: { databaseUrl?: string; dataDir: string; poolSize?: number }): DbHandle {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, caps: { kind: 'postgres', skipLocked: true }, close: () => db.destroy() };
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const file = path.join(opts.dataDir, 'slipcheck.db');
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, caps: { kind: 'sqlite', skipLocked: false }, close: () => db.destroy() };
}
