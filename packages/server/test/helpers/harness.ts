import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Kysely, PostgresDialect, sql, type DatabaseIntrospector, type DatabaseMetadata, type TableMetadata } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { createContainer, type Container, type ContainerOverrides } from '../../src/container.js';
import { openDatabase } from '../../src/db/db.js';
import type { Database } from '../../src/db/db-schema.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { buildApp } from '../../src/http/app.js';
import { sharedDecoderPool } from './shared-decoders.js';

/**
 * Test harness: every integration test runs on a real SQLite file, and also on PostgreSQL when
 * TEST_DATABASE_URL is set (each harness gets its own schema, dropped by the next run's global setup).
 */
export type DbKind = 'sqlite' | 'postgres';

// Both kinds always: without TEST_DATABASE_URL the PostgreSQL suites are declared with
// `describe.skipIf(pgMissing(kind))` and named with the reason (`skipNote`), so the run lists them as skipped.
export const DB_KINDS: DbKind[] = ['sqlite', 'postgres'];

/** True when this variant cannot run here: PostgreSQL without TEST_DATABASE_URL. */
export const pgMissing = (kind: DbKind): boolean => kind === 'postgres' && !process.env.TEST_DATABASE_URL;

/** The end of a suite's name that says why it is skipped ('' when it runs). */
export const skipNote = (kind: DbKind): string => (pgMissing(kind) ? ' (skipped: TEST_DATABASE_URL not set)' : '');

/** The same for suites that need a service: `skipReason('TEST_REDIS_URL')` when it is not set, else ''. */
export const skipReason = (envName: 'TEST_DATABASE_URL' | 'TEST_REDIS_URL'): string =>
  process.env[envName] ? '' : ` (skipped: ${envName} not set)`;
if (!process.env.TEST_DATABASE_URL && !process.env.__SLIPCHECK_PG_SKIP_SAID) {
  process.env.__SLIPCHECK_PG_SKIP_SAID = '1';
  console.warn('[slipcheck tests] TEST_DATABASE_URL not set: PostgreSQL variants SKIPPED, SQLite only');
}

/**
 * `t_<8 hex of unix seconds><4 random hex>`: the creation time is in the name so the global setup can
 * drop only stale schemas and never one that a concurrent run (another terminal, CI) is using.
 */
export function testSchemaName(): string {
  const secs = Math.floor(Date.now() / 1000)
    .toString(16)
    .padStart(8, '0');
  return `t_${secs}${randomBytes(2).toString('hex')}`;
}

/**
 * Migrates a new test schema with the service's own migrateToLatest, through a Kysely whose schema
 * introspection sees that schema only. Kysely's Migrator lists every table and column of every schema
 * to find its bookkeeping tables, twice per new database: on the shared test database (hundreds of
 * `t_` schemas from the last two hours of runs) that took 3-6 s per harness. The container then finds
 * the schema up to date (one read), as a restarted service does.
 */
async function migrateOwnSchema(url: string, schema: string): Promise<void> {
  class OwnSchemaIntrospector implements DatabaseIntrospector {
    constructor(private readonly db: Kysely<unknown>) {}
    async getSchemas() {
      const { rows } = await sql<{ name: string }>`select nspname as name from pg_namespace where nspname = ${schema}`.execute(this.db);
      return rows;
    }
    async getTables(): Promise<TableMetadata[]> {
      const { rows } = await sql<{ name: string; isView: boolean }>`
        select c.relname as name, c.relkind = 'v' as "isView" from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${schema} and c.relkind in ('r', 'v', 'p')`.execute(this.db);
      return rows.map((r) => ({ ...r, schema, columns: [] }));
    }
    async getMetadata(): Promise<DatabaseMetadata> {
      return { tables: await this.getTables() };
    }
  }
  class OwnSchemaDialect extends PostgresDialect {
    createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
      return new OwnSchemaIntrospector(db);
    }
  }
  const db = new Kysely<Database>({ dialect: new OwnSchemaDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
  try {
    await migrateToLatest(db, schema);
  } finally {
    await db.destroy();
  }
}

/**
 * The service tier's harness (test/services/): the container, with every service and a real database,
 * and no HTTP app. `createHarness` adds the Fastify app on top of the same setup.
 */
export interface ServiceHarness {
  kind: DbKind;
  config: Config;
  c: Container;
  dataDir: string;
  close(): Promise<void>;
}

export interface Harness extends ServiceHarness {
  app: FastifyInstance;
}

export async function createServiceHarness(
  kind: DbKind,
  env: Record<string, string> = {},
  overrides: ContainerOverrides = {},
): Promise<ServiceHarness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-test-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WORKER_MODE: 'off',
    SANDBOX_AUTOSTART: 'false',
    // Reading printed amounts costs an OCR model per decoder thread and ~0.1 s of CPU per slip; the
    // suites about edited slips (test/verify/edited-slip.test.ts, LINE, dashboard) turn it on.
    SLIP_EDIT_MODE: 'off',
    ...env,
  });
  let dbHandle = overrides.dbHandle;
  let migrationSchema = overrides.migrationSchema;
  if (kind === 'postgres' && !dbHandle) {
    const base = process.env.TEST_DATABASE_URL!;
    const schema = testSchemaName();
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const u = new URL(base);
    u.searchParams.set('options', `-c search_path=${schema}`);
    config.DATABASE_URL = u.toString();
    config.databaseKind = 'postgres';
    await migrateOwnSchema(config.DATABASE_URL, schema);
    dbHandle = openDatabase({ databaseUrl: config.DATABASE_URL, dataDir, poolSize: 20 });
    migrationSchema = schema;
    // The schema stays until the next run's global setup drops it (see pg-global-setup.ts).
  }
  // Tests that tune the decoder pool get their own; the others share one per process.
  const sharing = overrides.decoderPool ? {} : { sharedDecoderPool };
  const c = await createContainer(config, { ...sharing, ...overrides, dbHandle, migrationSchema });
  return {
    kind,
    config,
    c,
    dataDir,
    async close() {
      await c.close();
      if (dbHandle && !overrides.dbHandle) await dbHandle.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function createHarness(kind: DbKind, env: Record<string, string> = {}, overrides: ContainerOverrides = {}): Promise<Harness> {
  const s = await createServiceHarness(kind, env, overrides);
  const app = await buildApp(s.c, { logger: false });
  await app.ready();
  return {
    ...s,
    app,
    async close() {
      await app.close();
      await s.close();
    },
  };
}

/**
 * Another node on `first`'s database (its data folder, its PostgreSQL schema), as a second process would
 * be: a container and a connection pool of its own. Closing it closes that pool; `first` stays open.
 */
export async function createSecondNode(
  first: Harness,
  kind: DbKind,
  env: Record<string, string> = {},
  overrides: ContainerOverrides = {},
): Promise<Harness> {
  const schema = kind === 'postgres' ? new URL(first.config.DATABASE_URL).searchParams.get('options')!.split('=')[1] : undefined;
  const handle = openDatabase({ databaseUrl: first.config.DATABASE_URL || undefined, dataDir: first.dataDir });
  const h = await createHarness(kind, { ...env, DATA_DIR: first.dataDir }, { ...overrides, dbHandle: handle, migrationSchema: schema });
  return {
    ...h,
    async close() {
      await h.close();
      await handle.close();
    },
  };
}

/**
 * Resolves once `ms` have passed since `since` by performance.now(). A bare setTimeout can fire up to a
 * millisecond early by that clock (libuv times it from the loop's cached millisecond time): a check of a
 * one-second cache then ran at 999.8 ms and saw a copy loaded 999.9 ms before, which failed about one run
 * in two.
 */
export async function msAfter(since: number, ms: number) {
  while (performance.now() < since + ms) await new Promise((r) => setTimeout(r, Math.max(1, since + ms - performance.now())));
}

/** A shop on a paid plan with a payee account and a live key with every scope: the common starting point. */
export async function seedShop(
  h: ServiceHarness,
  opts: { plan?: string; scopes?: string; env?: 'live' | 'test'; payee?: boolean; name?: string } = {},
) {
  const shop = await h.c.shops.create({ name: opts.name ?? 'ร้านกาแฟ Test', planCode: opts.plan ?? 'STARTER' }, 'test');
  let payee;
  if (opts.payee !== false) {
    payee = await h.c.payees.add(shop.id, { bankCode: '004', accountNumber: '1234566609', holder: 'บจก. ร้านกาแฟ ทดสอบ' }, 'test');
  }
  let key: string | undefined;
  let keyId: string | undefined;
  if (opts.plan !== 'TRIAL') {
    const created = await h.c.apiKeys.create(shop.id, { environment: opts.env ?? 'live', scopes: opts.scopes ?? 'verify,read' }, 'test');
    key = created.key;
    keyId = created.view.id;
  }
  return { shop, payee, key: key!, keyId: keyId!, auth: { authorization: `Bearer ${key}` } };
}
