import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, createQueryId, type Compilable, type CompiledQuery, type SqliteDatabase } from 'kysely';
import type { Database } from './db-schema.js';
import { ConfigError } from '../config.js';
import { maskSecrets } from '../lib/mask-secrets.js';

export type Db = Kysely<Database>;

/**
 * What differs between the two stores lives here and nowhere else: callers branch on these
 * capability flags, never on the adapter.
 */
export interface DbCapabilities {
  kind: 'sqlite' | 'postgres';
  /** `FOR UPDATE SKIP LOCKED` for concurrent outbox workers (PostgreSQL); SQLite has one writer. */
  skipLocked: boolean;
  /**
   * True when a write failed on a unique key (another writer committed the same key first). Each
   * driver says so in its own words, so callers ask here instead of sniffing codes.
   */
  isUniqueViolation(err: unknown): boolean;
}

const errorCodeOf = (err: unknown) => (err as { code?: unknown } | null | undefined)?.code;

/** PostgreSQL: SQLSTATE 23505 unique_violation. */
const isPgUniqueViolation = (err: unknown) => errorCodeOf(err) === '23505';

/** better-sqlite3: SQLITE_CONSTRAINT_UNIQUE, or a primary key, whose message also says "UNIQUE constraint failed". */
const isSqliteUniqueViolation = (err: unknown) =>
  errorCodeOf(err) === 'SQLITE_CONSTRAINT_UNIQUE' ||
  /UNIQUE constraint failed/.test(String((err as { message?: unknown } | null | undefined)?.message ?? ''));

export const POSTGRES_CAPS: DbCapabilities = { kind: 'postgres', skipLocked: true, isUniqueViolation: isPgUniqueViolation };
export const SQLITE_CAPS: DbCapabilities = { kind: 'sqlite', skipLocked: false, isUniqueViolation: isSqliteUniqueViolation };

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

/** SQLSTATEs of a lost or refused server connection: admin/crash shutdown, cannot connect now, too many connections. */
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300']);
const NET_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// pg's own messages for a connection that died or never came (they carry no code).
const PG_UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|is not queryable|Connection ended unexpectedly/i;

/**
 * True when an error means "the database cannot be reached right now" rather than "this query is
 * wrong": the HTTP layer answers these 503 with Retry-After (the client may simply retry) instead
 * of 500. SQLite's busy/locked (another writer held the file past busy_timeout) is the same kind.
 * Follows `cause` chains, since a wrapper may carry the driver error.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (PG_UNAVAILABLE.has(code) || code.startsWith('08') || NET_UNAVAILABLE.has(code)) return true;
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return true;
    if (typeof e.message === 'string' && PG_UNAVAILABLE_MESSAGE.test(e.message)) return true;
  }
  return false;
}

/** The database could not be opened or migrated at start (not a configuration mistake): retry later. */
export class DatabaseStartError extends Error {}

// PostgreSQL's answers that no retry will change: the database named does not exist, or the role or
// password is refused. These are the operator's DATABASE_URL, so they are configuration errors.
const PG_CONFIGURATION = new Set(['3D000', '28P01', '28000']);
// The SQLite file's folder cannot be written or is not a folder: DATA_DIR is wrong.
const SQLITE_CONFIGURATION = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'SQLITE_CANTOPEN', 'SQLITE_READONLY']);

/**
 * One sentence for a database that failed at start, naming the variable to look at (its password
 * masked), instead of the driver's stack trace. A wrong URL becomes a ConfigError (exit 78, like
 * any wrong setting); anything else (refused, timed out, unreachable host) a DatabaseStartError.
 */
export function databaseStartError(err: unknown, opts: { databaseUrl?: string; dataDir: string }): Error {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  const why = `${typeof e?.message === 'string' && e.message ? e.message : String(err)}${code ? ` (${code})` : ''}`;
  if (!opts.databaseUrl) {
    const where = `DATA_DIR=${JSON.stringify(opts.dataDir)}: the SQLite database cannot be opened: ${why}`;
    return SQLITE_CONFIGURATION.has(code) ? new ConfigError(where) : new DatabaseStartError(where);
  }
  const where = `DATABASE_URL=${JSON.stringify(opts.databaseUrl)}`;
  if (PG_CONFIGURATION.has(code)) return new ConfigError(`${where}: ${why}`);
  return new DatabaseStartError(maskSecrets(`${where}: the database cannot be reached: ${why}`));
}

/** The embedded database's file in DATA_DIR. */
export const sqliteFile = (dataDir: string) => path.join(dataDir, 'slipcheck.db');

export function openDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  poolSize?: number;
  /** Longest wait for a new PostgreSQL connection; past it the query fails (503) instead of hanging. */
  connectTimeoutMs?: number;
  /** Told about connections the server dropped (restart, failover, idle-kill); default: stderr. */
  onConnectionError?: (err: Error) => void;
}): DbHandle {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
      keepAlive: true,
    });
    // A connection the server ends (pg_terminate_backend, restart, failover, a proxy's idle-kill) emits
    // 'error' on its client, and on the pool while idle; unhandled, that event ends the process. The
    // broken client is dropped by the pool (it is no longer queryable) and the next query opens a
    // fresh one, so handling means only "say so": the query that was running fails on its own.
    const onError = opts.onConnectionError ?? ((err: Error) => process.stderr.write(`database connection lost: ${err.message}\n`));
    pool.on('error', onError);
    pool.on('connect', (client) => {
      client.on('error', onError);
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, caps: POSTGRES_CAPS, close: () => db.destroy() };
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const file = sqliteFile(opts.dataDir);
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingSqliteDatabase(sqlite) }) });
  return { db, caps: SQLITE_CAPS, close: () => db.destroy() };
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

/**
 * `preparedQuery` for a statement that takes one row object (an INSERT of a whole record): the SQL
 * is built once per database and set of columns, later calls only bind the row's values in order.
 * Kysely's builder costs more for a 25-column insert than SQLite takes to run it. Each value of the
 * row must come out as exactly one bound parameter (checked, as above), so `build` passes the values
 * through unchanged (it runs once, with placeholders); otherwise the statement is built every call.
 */
export function preparedRowQuery<R extends object, O>(build: (db: Db, row: R) => Compilable<O>) {
  const cache = new WeakMap<object, Map<string, { compiled: CompiledQuery<O>; at: number[] } | null>>();
  return async (db: Db, row: R): Promise<O[]> => {
    const adapter = db.getExecutor().adapter;
    let shapes = cache.get(adapter);
    if (!shapes) cache.set(adapter, (shapes = new Map()));
    const keys = Object.keys(row);
    const shape = keys.join(',');
    let entry = shapes.get(shape);
    if (entry === undefined) {
      const compiled = build(db, Object.fromEntries(keys.map((k, i) => [k, slot(i)])) as R).compile();
      const at = compiled.parameters.map((p) => (typeof p === 'string' ? keys.findIndex((_, i) => p === slot(i)) : -1));
      const ok = keys.every((_, i) => at.filter((a) => a === i).length === 1);
      entry = ok ? { compiled, at } : null;
      shapes.set(shape, entry);
    }
    const values = Object.values(row) as unknown[];
    // Kysely leaves an undefined value's column out: that row takes the normal path.
    if (!entry || values.includes(undefined)) return (await db.executeQuery(build(db, row))).rows;
    const { compiled, at } = entry;
    const parameters = compiled.parameters.map((p, i) => (at[i] >= 0 ? values[at[i]] : p));
    return (await db.executeQuery<O>({ ...compiled, parameters, queryId: createQueryId() })).rows;
  };
}
