import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { UA, signup, type Owner } from '../dashboard/dash-helpers.js';

/**
 * Property tests over every public (/api/v1/*) and dashboard (/api/dashboard/*) route: random query
 * strings, headers and bodies. Whatever arrives, the answer is never a 5xx, and a refusal (4xx)
 * changes nothing in the tables that hold shops' data, keys, quota, results and integrations.
 * Routes are read from the source, so a new route is fuzzed without editing this file.
 */
type Route = { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; url: string };

function routesFromSource(): Route[] {
  const out = new Map<string, Route>();
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) {
        for (const m of fs.readFileSync(p, 'utf8').matchAll(/app\.(get|post|put|patch|delete)\(\s*'(\/api\/(?:v1|dashboard)[^']*)'/g)) {
          const r = { method: m[1]!.toUpperCase() as Route['method'], url: m[2]! };
          out.set(`${r.method} ${r.url}`, r);
        }
      }
    }
  };
  walk(path.resolve(import.meta.dirname, '../../src'));
  return [...out.values()];
}

const ROUTES = routesFromSource();
/** Half the cases on each family: the public API has far fewer routes than the dashboard. */
const pick = (routes: Route[]) =>
  fc.oneof(
    fc.constantFrom(...routes.filter((r) => r.url.startsWith('/api/v1/'))),
    fc.constantFrom(...routes.filter((r) => r.url.startsWith('/api/dashboard/'))),
  );
// Routes that end the session they are called with when they succeed: the test signs in again after them.
const SESSION_ENDING = /\/auth\/logout|\/sessions\/revoke-all|\/privacy\/erase|\/auth\/password$/;
// Tables a refusal must leave alone. Columns that record "last seen" on any authenticated call are left out.
const TABLES = [
  'plans',
  'shops',
  'payee_accounts',
  'api_keys',
  'transactions',
  'image_claims',
  'quota_usage',
  'outbox',
  'webhook_endpoints',
  'webhook_deliveries',
  'users',
  'team_invites',
  'line_channels',
  'line_groups',
  'line_link_codes',
  'line_owners',
] as const;
const VOLATILE = new Set(['last_used_at']);
// 1,500 cases per database (3,000 in CI on SQLite and PostgreSQL); each case also snapshots the tables.
const RUNS = { query: 600, headers: 300, body: 600 };

const QUERY_KEYS = [
  'limit',
  'cursor',
  'status',
  'source',
  'transRef',
  'clientRef',
  'environment',
  'from',
  'to',
  'amount',
  'expectedAmount',
  'overlapHours',
  'includeCurrent',
  'ticket',
  'lastEventId',
  'format',
  'month',
  'code',
  'state',
];
const NASTY = [
  'Infinity',
  '-Infinity',
  'NaN',
  '1e309',
  '9'.repeat(400),
  '0x10',
  ' 5',
  '',
  '-1',
  '0',
  '1.5',
  'null',
  'true',
  '[]',
  '{}',
  '%00',
  '\u0000',
  '\u202e',
  '../../etc/passwd',
  "' or 1=1 --",
  '2026-02-30T25:61:00Z',
  'SUCCESS,INVALID',
  'ก'.repeat(300),
  'a'.repeat(5000),
];
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(...NASTY),
  fc.integer().map(String),
  fc.double().map(String),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
const ids = fc.oneof(
  fc.uuid(),
  fc.constantFrom('1', '0', '-1', 'null', 'undefined', '%2e%2e', 'a'.repeat(300), 'tx_' + 'x'.repeat(20)),
  fc.string({ minLength: 1, maxLength: 30 }),
);

function fillParams(url: string, values: string[]): string {
  let i = 0;
  return url.replace(/:[A-Za-z]+/g, () => encodeURIComponent(values[i++ % values.length] || 'x'));
}

function queryString(q: [string, string | string[]][]): string {
  const p = new URLSearchParams();
  for (const [k, v] of q) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
  const s = p.toString();
  return s ? `?${s}` : '';
}

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`route fuzzing [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    let s: Awaited<ReturnType<typeof seedShop>>;
    let owner: Owner;
    const serverErrors: string[] = [];
    const changedOnRefusal: string[] = [];
    let last = '';
    // Answers per route family and status class: the fuzz must get past authentication, not only bounce off it.
    const seen = new Map<string, number>();

    beforeAll(async () => {
      bank = await startSandbox();
      h = await createHarness(kind, {
        CHECKER_URL: bank.url,
        DECODE_THREADS: '1',
        RATE_LIMIT_PER_KEY: '1000000',
        RATE_LIMIT_VERIFY_PER_SHOP: '1000000',
      });
      s = await seedShop(h);
      owner = await signup(h);
      last = await snapshot();
    }, 60_000);
    afterAll(async () => {
      await h?.close();
      await bank?.close();
    });

    async function snapshot(): Promise<string> {
      const parts = await Promise.all(
        TABLES.map(async (t) => {
          const rows = (await h.c.db
            .selectFrom(t as 'shops')
            .selectAll()
            .execute()) as Record<string, unknown>[];
          const clean = rows.map((r) =>
            Object.fromEntries(
              Object.entries(r)
                .filter(([k]) => !VOLATILE.has(k))
                .map(([k, v]) => [k, v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? String(v) : v]),
            ),
          );
          return `${t}:${JSON.stringify(clean.map((r) => JSON.stringify(r)).sort())}`;
        }),
      );
      return parts.join('\n');
    }

    const authFor = (url: string): Record<string, string> =>
      url.startsWith('/api/v1/') ? { ...s.auth } : { ...owner.auth, 'user-agent': UA, origin: 'http://dash.test' };

    /** One request: record a 5xx; on a refusal, the tables must be as before; a success may change them. */
    async function send(route: Route, url: string, headers: Record<string, string>, payload?: string | Buffer): Promise<void> {
      const r = await h.app.inject({ method: route.method, url, headers, ...(payload !== undefined ? { payload } : {}) });
      const family = `${route.url.startsWith('/api/v1/') ? 'v1' : 'dashboard'} ${Math.floor(r.statusCode / 100)}xx${r.statusCode === 401 ? ' 401' : ''}`;
      seen.set(family, (seen.get(family) ?? 0) + 1);
      if (r.statusCode >= 500) serverErrors.push(`${route.method} ${url.slice(0, 200)} -> ${r.statusCode} ${r.body.slice(0, 200)}`);
      const now = await snapshot();
      if (r.statusCode >= 400 && now !== last) changedOnRefusal.push(`${route.method} ${url.slice(0, 200)} -> ${r.statusCode}`);
      last = now;
      if (SESSION_ENDING.test(route.url) && r.statusCode < 400) {
        const me = await h.app.inject({ url: '/api/dashboard/me', headers: authFor('/api/dashboard/me') });
        if (me.statusCode === 401) {
          owner = await signup(h);
          last = await snapshot();
        }
      }
    }

    const check = () => {
      expect(serverErrors.slice(0, 10), `${serverErrors.length} answers were 5xx`).toEqual([]);
      expect(changedOnRefusal.slice(0, 10), `${changedOnRefusal.length} refusals changed stored state`).toEqual([]);
    };

    it('lists the routes it fuzzes', () => {
      expect(ROUTES.filter((r) => r.url.startsWith('/api/v1/')).length).toBeGreaterThanOrEqual(5);
      expect(ROUTES.filter((r) => r.url.startsWith('/api/dashboard/')).length).toBeGreaterThanOrEqual(40);
    });

    it('query strings: never a 5xx, refusals change nothing', async () => {
      await fc.assert(
        fc.asyncProperty(
          pick(ROUTES),
          fc.array(ids, { minLength: 1, maxLength: 2 }),
          fc.array(
            fc.tuple(
              fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ maxLength: 12 })),
              fc.oneof(text, fc.array(text, { maxLength: 3 })),
            ),
            { maxLength: 5 },
          ),
          async (route, params, query) => {
            const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}';
            const headers = { ...authFor(route.url), ...(body ? { 'content-type': 'application/json' } : {}) };
            await send(route, fillParams(route.url, params) + queryString(query), headers, body);
          },
        ),
        { numRuns: RUNS.query },
      );
      check();
      // Most authenticated cases reached the routes: successes and validation refusals on both families.
      for (const f of ['v1 2xx', 'v1 4xx', 'dashboard 2xx', 'dashboard 4xx']) expect(seen.get(f) ?? 0, f).toBeGreaterThan(20);
    }, 120_000);

    it('headers: never a 5xx, refusals change nothing', async () => {
      const headerValue = fc.oneof(
        fc.string({ maxLength: 60 }).map((x) => x.replace(/[^\t\x20-\x7e]/g, '')),
        fc.constantFrom(
          'Bearer ',
          'Bearer sk_live_',
          'Bearer sk_test_x',
          'Basic Zm9vOmJhcg==',
          'application/json',
          'application/octet-stream',
          'image/png',
          'multipart/form-data; boundary=x',
          'text/plain; charset=utf-16',
          '*/*',
          'a'.repeat(2000),
        ),
      );
      const headerName = fc.constantFrom(
        'authorization',
        'content-type',
        'x-request-id',
        'accept',
        'accept-language',
        'cookie',
        'origin',
        'user-agent',
        'x-forwarded-for',
        'if-none-match',
        'last-event-id',
        'x-line-signature',
      );
      await fc.assert(
        fc.asyncProperty(
          pick(ROUTES),
          ids,
          fc.dictionary(headerName, headerValue, { maxKeys: 4 }),
          fc.boolean(),
          async (route, id, extra, keepAuth) => {
            const headers = { ...(keepAuth ? authFor(route.url) : {}), ...extra };
            const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}';
            if (body && !headers['content-type']) headers['content-type'] = 'application/json';
            await send(route, fillParams(route.url, [id]), headers, body);
          },
        ),
        { numRuns: RUNS.headers },
      );
      check();
    }, 120_000);

    it('bodies: never a 5xx, refusals change nothing', async () => {
      const writes = ROUTES.filter((r) => r.method !== 'GET');
      const json = fc
        .oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.dictionary(
            fc.oneof(
              fc.constantFrom(
                'email',
                'password',
                'name',
                'shopName',
                'planCode',
                'url',
                'events',
                'bankCode',
                'accountNumber',
                'holder',
                'kind',
                'scopes',
                'environment',
                'channelSecret',
                'channelAccessToken',
                'role',
                'token',
                'code',
                'enabled',
                'timeZone',
                'language',
                'confirm',
              ),
              fc.string({ maxLength: 10 }),
            ),
            fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 }), fc.constant(1e308)),
            { maxKeys: 6 },
          ),
        )
        .map((v) => JSON.stringify(v));
      const raw = fc.oneof(
        json,
        fc.constantFrom(
          '{',
          '{"a":',
          '[1,2',
          'null',
          '"x"',
          '{"__proto__":{"admin":true}}',
          '{"constructor":{"prototype":{"x":1}}}',
          '{"a":1e309}',
          '\u0000',
        ),
        fc.string({ maxLength: 200 }),
      );
      const image = fc.oneof(
        fc.uint8Array({ maxLength: 3000 }).map((b) => Buffer.from(b)),
        fc
          .uint8Array({ maxLength: 3000 })
          .map((b) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(b)])),
        fc.uint8Array({ maxLength: 3000 }).map((b) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(b)])),
      );
      await fc.assert(
        fc.asyncProperty(
          pick(writes),
          fc.array(ids, { minLength: 1, maxLength: 2 }),
          raw,
          image,
          fc.constantFrom('application/json', 'application/octet-stream', 'image/jpeg', 'text/plain', 'application/x-www-form-urlencoded'),
          async (route, params, body, img, type) => {
            const isImage = /\/verify$/.test(route.url) && type !== 'application/json';
            const headers = { ...authFor(route.url), 'content-type': type };
            await send(route, fillParams(route.url, params), headers, isImage ? img : body);
          },
        ),
        { numRuns: RUNS.body },
      );
      check();
    }, 180_000);
  });
}
