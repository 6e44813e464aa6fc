import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, createQueryId, type Compilable, type CompiledQuery, type SqliteDatabase } from 'kysely';
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

// Enough for every distinct statement the service issues (about 150) with room for IN-list variants;
// past it the oldest entry is dropped, so odd one-off SQL cannot grow the map without bound.
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver calls `prepare(sql)` for every query, and compiling a statement costs more
 * than running one of our indexed lookups. Compiled statements are reused by SQL text. Safe because
 * the driver runs one query at a time on its single connection (its mutex), SQL text fully defines a
 * statement (values are always bound parameters), and SQLite recompiles a statement by itself after
 * a schema change.
 */
export function cachingSqliteDatabase(sqlite: SQLite.Database, max = STATEMENT_CACHE_SIZE): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = sqlite.prepare(sql);
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
        cache.set(sql, stmt);
      }
      return stmt;
    },
    close() {
      cache.clear();
      sqlite.close();
    },
  };
}

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
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingSqliteDatabase(sqlite) }) });
  return { db, caps: { kind: 'sqlite', skipLocked: false }, close: () => db.destroy() };
}

const slot = (i: number) => `\u0000arg${i}\u0000`;

/**
 * A hot query whose SQL is built once per database (adapter) instead of on every call: Kysely's
 * builder costs tens of microseconds for a wide select, more than the indexed lookup itself.
 * `build` is first called with placeholder strings for its arguments; each placeholder must come out
 * as exactly one bound parameter (checked), and later calls only swap the values in. When the check
 * fails (an argument shapes the SQL, or is used twice) every call builds the query normally.
 */
export function preparedQuery<A extends unknown[], O>(build: (db: Db, ...args: A) => Compilable<O>) {
  const cache = new WeakMap<object, { compiled: CompiledQuery<O>; argAt: number[] } | null>();
  return async (db: Db, ...args: A): Promise<O[]> => {
    const key = db.getExecutor().adapter;
    let entry = cache.get(key);
    if (entry === undefined) {
      const compiled = build(db, ...(args.map((_, i) => slot(i)) as A)).compile();
      const argAt = compiled.parameters.map((p) => (typeof p === 'string' ? args.findIndex((_, i) => p === slot(i)) : -1));
      const ok = args.every((_, i) => argAt.filter((a) => a === i).length === 1);
      entry = ok ? { compiled, argAt } : null;
      cache.set(key, entry);
    }
    if (!entry) return (await db.executeQuery(build(db, ...args))).rows;
    const { compiled, argAt } = entry;
    const parameters = compiled.parameters.map((p, i) => (argAt[i] >= 0 ? args[argAt[i]] : p));
    return (await db.executeQuery<O>({ ...compiled, parameters, queryId: createQueryId() })).rows;
  };
}
