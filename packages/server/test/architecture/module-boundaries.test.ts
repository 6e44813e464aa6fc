// The layout rules of docs/architecture.md, checked on the source so they cannot silently erode:
// modules never depend on the composition root, each table has one owning module, and a module
// reaches another module's data only through that module's service (never its repo or its tables),
// modules import each other without cycles, and no module or outbox file (a CLI command included)
// reaches the container through its imports: cli.ts and http/app.ts hand each one its narrowed deps.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildImportGraph, importChain, importSpecifiers, moduleCycles, moduleEdges, type ImportGraph } from './import-graph.js';

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
  payee_refusals: 'verification',
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
  export_tickets: 'reports',
};

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : p.endsWith('.ts') ? [p] : [];
  });
}
const CONTAINER = path.join(SRC, 'container.ts');
const rel = (f: string) => path.relative(SRC, f);
const graph = buildImportGraph(SRC);
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

  it('no import cycle between modules (type-only imports count)', () => {
    const edges = moduleEdges(graph, MODULES);
    expect(edges.size).toBeGreaterThan(15);
    expect(moduleCycles(edges)).toEqual([]);
  });

  it('no module or outbox file reaches container.ts through its imports (CLI commands get narrowed deps from cli.ts)', () => {
    const guarded = [...graph.keys()].filter(
      (f) => !path.relative(MODULES, f).startsWith('..') || !path.relative(path.join(SRC, 'outbox'), f).startsWith('..'),
    );
    const reaching = guarded.map((f) => importChain(graph, f, CONTAINER)).filter((chain) => chain !== null);
    expect(reaching.map((chain) => chain.map(rel).join(' -> '))).toEqual([]);
    // The CLI commands of modules are among the files checked.
    expect(guarded.map(rel)).toEqual(
      expect.arrayContaining([
        'modules/webhooks/webhooks-cli.ts',
        'modules/line/line-cli.ts',
        'modules/reports/reports-cli.ts',
        'outbox/outbox-cli.ts',
      ]),
    );
  });
});

describe('the import-graph checks see what they look for (not vacuous)', () => {
  const m = (f: string) => path.join(MODULES, f);

  it('reads static, type-only, multi-line, re-export and dynamic imports; packages are not edges', () => {
    const source = [
      "import fs from 'node:fs';",
      "import type { A } from '../a/a-types.js';",
      'import {\n  b,\n  c,\n} from "./local-double-quoted.js";',
      "import {\n  d,\n  type E,\n} from './d-service.js';",
      "export { f } from '../f/f.js';",
      "const g = await import('../g/g.js');",
    ].join('\n');
    expect(importSpecifiers(source)).toEqual(['../a/a-types.js', './local-double-quoted.js', './d-service.js', '../f/f.js', '../g/g.js']);
  });

  it('finds a cycle of three modules and names the file import behind each step', () => {
    const g: ImportGraph = new Map([
      [m('a/a-routes.ts'), [m('b/b-schemas.ts'), m('a/a-types.ts')]],
      [m('b/b-schemas.ts'), [m('c/c-service.ts')]],
      [m('c/c-service.ts'), [m('a/a-types.ts')]],
      [m('a/a-types.ts'), []],
      [m('d/d-service.ts'), [m('a/a-types.ts')]],
    ]);
    expect(moduleCycles(moduleEdges(g, MODULES))).toEqual([
      ['a -> b (a/a-routes.ts -> b/b-schemas.ts)', 'b -> c (b/b-schemas.ts -> c/c-service.ts)', 'c -> a (c/c-service.ts -> a/a-types.ts)'],
    ]);
    g.set(m('c/c-service.ts'), []); // break the cycle
    expect(moduleCycles(moduleEdges(g, MODULES))).toEqual([]);
  });

  it('finds the two cycles the dashboard module had before issue 25 (team and privacy through dashboard)', () => {
    const g: ImportGraph = new Map([
      [m('dashboard/dashboard-routes.ts'), [m('team/team-routes.ts'), m('privacy/privacy-routes.ts')]],
      [m('team/team-routes.ts'), [m('dashboard/dashboard-schemas.ts')]],
      [m('privacy/privacy-schemas.ts'), [m('dashboard/dashboard-schemas.ts')]],
      [m('privacy/privacy-routes.ts'), [m('privacy/privacy-schemas.ts')]],
      [m('dashboard/dashboard-schemas.ts'), []],
    ]);
    const cycles = moduleCycles(moduleEdges(g, MODULES));
    // One strongly connected group (dashboard, privacy, team), shown by its shortest cycle.
    expect(cycles).toEqual([
      [
        'dashboard -> team (dashboard/dashboard-routes.ts -> team/team-routes.ts)',
        'team -> dashboard (team/team-routes.ts -> dashboard/dashboard-schemas.ts)',
      ],
    ]);
    g.set(m('team/team-routes.ts'), []); // the team half fixed: the privacy cycle still shows
    expect(moduleCycles(moduleEdges(g, MODULES))[0]![1]).toBe(
      'privacy -> dashboard (privacy/privacy-schemas.ts -> dashboard/dashboard-schemas.ts)',
    );
  });

  it('sees a CLI command that reaches the container through the runner, two imports away', () => {
    const runner = path.join(SRC, 'cli/cli-runner.ts');
    const g: ImportGraph = new Map([
      [m('x/x-cli.ts'), [path.join(SRC, 'cli/cli-args.ts'), runner]],
      [path.join(SRC, 'cli/cli-args.ts'), []],
      [runner, [CONTAINER]],
    ]);
    expect(importChain(g, m('x/x-cli.ts'), CONTAINER)?.map(rel)).toEqual(['modules/x/x-cli.ts', 'cli/cli-runner.ts', 'container.ts']);
    // And on the real source: the runner builds the container, so cli.ts reaches it.
    expect(importChain(graph, path.join(SRC, 'cli/cli.ts'), CONTAINER)).not.toBeNull();
  });
});
