// The layout rules of docs/architecture.md, checked on the source so they cannot silently erode:
// modules never depend on the composition root, each table has one owning module, and a module
// reaches another module's data only through that module's service (never its repo or its tables).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');
const MODULES = path.join(SRC, 'modules');

/** Which module owns which table. `outbox` is infrastructure under src/outbox, not a module. */
const OWNER: Record<string, string> = {
  plans: 'plans',
  shops: 'shops',
  payee_accounts: 'payees',
  api_keys: 'api-keys',
  transactions: 'transactions',
  image_claims: 'verification',
  quota_usage: 'quota',
  audit_log: 'audit',
  outbox: 'outbox',
  webhook_endpoints: 'webhooks',
  webhook_deliveries: 'webhooks',
  webhook_attempts: 'webhooks',
  users: 'accounts',
  user_sessions: 'accounts',
  refresh_tokens: 'accounts',
  password_resets: 'accounts',
  mail_messages: 'mail',
  team_invites: 'team',
  line_channels: 'line',
  line_groups: 'line',
  line_link_codes: 'line',
  line_owners: 'line',
  line_events: 'line',
  line_notices: 'line',
  line_push_usage: 'line',
  line_logins: 'line-login',
  line_login_codes: 'line-login',
  line_id_tokens: 'line-login',
  daily_summaries: 'reports',
};

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : p.endsWith('.ts') ? [p] : [];
  });
}
const moduleOf = (file: string) => path.relative(MODULES, file).split(path.sep)[0]!;
const moduleFiles = filesUnder(MODULES);

/** Tables a source text queries: Kysely's table arguments ('transactions as t' counts as transactions) and purge lists. */
export function tablesNamed(source: string): string[] {
  const calls =
    /\b(?:selectFrom|updateTable|insertInto|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|replaceInto|mergeInto)\(\s*['"]([a-z_]+)/g;
  const purges = /deleteShopRows\([^[]*\[([^\]]*)\]/g; // a module's purge step lists its tables
  return [
    ...[...source.matchAll(calls)].map((m) => m[1]!),
    ...[...source.matchAll(purges)].flatMap((m) => [...m[1]!.matchAll(/'([a-z_]+)'/g)].map((t) => t[1]!)),
  ];
}

describe('module boundaries (docs/architecture.md, Layout)', () => {
  it('every table of the schema has an owning module', () => {
    const schema = fs.readFileSync(path.join(SRC, 'db/db-schema.ts'), 'utf8');
    const database = /export interface Database \{([^}]*)\}/.exec(schema)?.[1] ?? '';
    const tables = [...database.matchAll(/^\s*([a-z_]+):/gm)].map((m) => m[1]!);
    expect(tables.length).toBeGreaterThan(20);
    expect(tables.filter((t) => !OWNER[t])).toEqual([]);
  });

  it('no module imports the composition root', () => {
    const offenders = moduleFiles.filter((f) => /from '(\.\.\/)+container\.js'/.test(fs.readFileSync(f, 'utf8')));
    expect(offenders.map((f) => path.relative(SRC, f))).toEqual([]);
  });

  it("no module names another module's table", () => {
    const offenders: string[] = [];
    for (const file of moduleFiles) {
      for (const table of tablesNamed(fs.readFileSync(file, 'utf8'))) {
        const owner = OWNER[table];
        if (owner !== moduleOf(file) && owner !== 'outbox') offenders.push(`${path.relative(SRC, file)} -> ${table} (${owner})`);
      }
    }
    expect([...new Set(offenders)]).toEqual([]);
  });

  it("no module imports another module's repo", () => {
    const offenders: string[] = [];
    for (const file of moduleFiles) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/from '\.\.\/([a-z-]+)\/[a-z-]*-repo\.js'/g))
        if (m[1] !== moduleOf(file)) offenders.push(`${path.relative(SRC, file)} -> ${m[1]}`);
    }
    expect(offenders).toEqual([]);
  });

  it('the checks see what they look for (not vacuous)', () => {
    expect(tablesNamed(`db.selectFrom('transactions as t').innerJoin('shops', 'shops.id', 't.shop_id')`)).toEqual([
      'transactions',
      'shops',
    ]);
    expect(tablesNamed(`deleteShopRows(trx, shopId, ['line_owners', 'users'])`)).toEqual(['line_owners', 'users']);
    expect(moduleFiles.length).toBeGreaterThan(50);
  });
});
