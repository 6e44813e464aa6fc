/**
 * "Replaced by a later check" on the dashboard's list and detail (docs/dashboard-api.md): a received
 * record that is not its transfer's last word (a mismatch corrected by a second check, one slip tried
 * for two orders) carries `supersededBy`, the later record that counts in the money figures, on both
 * stores. The rule is the totals' (the export's credited column agrees row for row), the public API's
 * record keeps its fields, and a page costs one indexed query for the marks, whatever its size.
 */
import { CompiledQuery, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type DbKind, pgMissing, skipNote } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import { createDashHarness, signup, type Owner } from './dash-helpers.js';
import { bkk, insertTx } from '../reports/reports-helpers.js';
import { createTransactionService } from '../../src/modules/transactions/transaction-service.js';

for (const kind of DB_KINDS) describe.skipIf(pgMissing(kind))(`superseded checks (${kind})${skipNote(kind)}`, () => suite(kind));

interface Item {
  id: string;
  status: string;
  transRef: string | null;
  environment: string;
  supersededBy: { id: string; createdAt: string; status: string } | null;
}

function suite(kind: DbKind) {
  let h: Harness;
  let owner: Owner;
  let other: Owner;
  const id: Record<string, string> = {};
  beforeAll(async () => {
    let clock;
    ({ h, clock } = await createDashHarness(kind));
    clock.set(bkk('2026-11-11T12:00:00'));
    owner = await signup(h);
    other = await signup(h);
    const put = async (name: string, seed: Parameters<typeof insertTx>[2][number], shopId = owner.shopId) => {
      [id[name]] = await insertTx(h, shopId, [seed]);
    };
    // A: paid short, then checked again for the right amount: the SUCCESS replaces the mismatch.
    await put('aMismatch', { createdAt: bkk('2026-11-11T09:00:00'), transRef: 'REF-A', status: 'AMOUNT_MISMATCH' });
    await put('aSuccess', { createdAt: bkk('2026-11-11T09:05:00'), transRef: 'REF-A' });
    // ... and then the same slip once more: a duplicate, which carries no money and replaces nothing.
    await put('aDuplicate', { createdAt: bkk('2026-11-11T09:10:00'), transRef: 'REF-A', status: 'DUPLICATE' });
    // B: one slip tried for two orders, both mismatched: the later one counts.
    await put('b1', { createdAt: bkk('2026-11-11T10:00:00'), transRef: 'REF-B', status: 'AMOUNT_MISMATCH' });
    await put('b2', { createdAt: bkk('2026-11-11T10:01:00'), transRef: 'REF-B', status: 'AMOUNT_MISMATCH' });
    // C: a plain SUCCESS; D: a mismatch nobody corrected.
    await put('c', { createdAt: bkk('2026-11-11T11:00:00'), transRef: 'REF-C' });
    await put('d', { createdAt: bkk('2026-11-11T11:01:00'), transRef: 'REF-D', status: 'AMOUNT_MISMATCH' });
    // E: a test-key mismatch and a live SUCCESS of the same reference: two environments, nothing replaced.
    await put('eTest', { createdAt: bkk('2026-11-11T11:02:00'), transRef: 'REF-E', status: 'AMOUNT_MISMATCH', environment: 'test' });
    await put('eLive', { createdAt: bkk('2026-11-11T11:03:00'), transRef: 'REF-E' });
    // F: a mismatch here, and a later SUCCESS of the same reference in another shop: not this shop's.
    await put('f', { createdAt: bkk('2026-11-11T11:04:00'), transRef: 'REF-F', status: 'AMOUNT_MISMATCH' });
    await put('fOther', { createdAt: bkk('2026-11-11T11:05:00'), transRef: 'REF-F' }, other.shopId);
  });
  afterAll(async () => {
    await h?.close();
  });

  const get = (url: string, who: Owner = owner) => h.app.inject({ method: 'GET', url, headers: who.auth });
  const list = async (q = '') => {
    const res = await get(`/api/dashboard/transactions${q}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.items as Item[];
  };

  it('the list marks each replaced check with the later record that counts, and only those', async () => {
    const items = await list();
    const by = Object.fromEntries(items.map((r) => [r.id, r.supersededBy]));
    expect(by[id.aMismatch]).toEqual({ id: id.aSuccess, createdAt: bkk('2026-11-11T09:05:00'), status: 'SUCCESS' });
    expect(by[id.b1]).toEqual({ id: id.b2, createdAt: bkk('2026-11-11T10:01:00'), status: 'AMOUNT_MISMATCH' });
    const replaced = items.filter((r) => r.supersededBy).map((r) => r.id);
    expect(replaced.sort()).toEqual([id.aMismatch, id.b1].sort());
    for (const k of ['aSuccess', 'aDuplicate', 'b2', 'c', 'd', 'eTest', 'eLive', 'f']) expect(by[id[k]!], k).toBeNull();
  });

  it('marks the rows the money figures leave out, row for row (the export credits the same rows)', async () => {
    const items = await list('?environment=live');
    const credits = await h.c.transactions.creditsOf(
      owner.shopId,
      items.map((r) => r.id),
    );
    for (const r of items) {
      if (r.status !== 'SUCCESS' && r.status !== 'AMOUNT_MISMATCH') continue;
      expect(r.supersededBy === null, `${r.transRef} ${r.status}`).toBe(credits.get(r.id)!.credited);
    }
  });

  it('a page that holds only the replaced row still names the later record (not only rows on the same page)', async () => {
    const items = await list('?status=AMOUNT_MISMATCH&limit=1&transRef=REF-A');
    expect(items.map((r) => [r.id, r.supersededBy?.id])).toEqual([[id.aMismatch, id.aSuccess]]);
  });

  it("the record's detail carries the mark too; another shop's record answers 404 as before", async () => {
    const res = await get(`/api/dashboard/transactions/${id.aMismatch}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      id: id.aMismatch,
      status: 'AMOUNT_MISMATCH',
      supersededBy: { id: id.aSuccess, status: 'SUCCESS' },
    });
    expect((await get(`/api/dashboard/transactions/${id.aSuccess}`)).json().data.supersededBy).toBeNull();
    expect((await get(`/api/dashboard/transactions/${id.fOther}`)).statusCode).toBe(404);
    // The other shop sees its own SUCCESS unreplaced and knows nothing of this shop's mismatch.
    const theirs = (await get('/api/dashboard/transactions', other)).json().data.items as Item[];
    expect(theirs.map((r) => [r.id, r.supersededBy])).toEqual([[id.fOther, null]]);
  });

  it("the overview's recent results carry the mark too", async () => {
    const res = await get('/api/dashboard/overview');
    expect(res.statusCode).toBe(200);
    const recent = res.json().data.recent as Item[];
    const by = Object.fromEntries(recent.map((r) => [r.id, r.supersededBy]));
    expect(by[id.aMismatch]).toMatchObject({ id: id.aSuccess, status: 'SUCCESS' });
    expect(by[id.b1]).toMatchObject({ id: id.b2 });
    expect(recent.filter((r) => r.supersededBy).length).toBe(2);
  });

  it("the public API's records keep their fields (no supersededBy)", async () => {
    await h.c.shops.setPlan(owner.shopId, 'GROWTH', 'test');
    const { key } = await h.c.apiKeys.create(owner.shopId, { environment: 'live', scopes: 'verify,read' }, 'test');
    const res = await h.app.inject({ method: 'GET', url: '/api/v1/transactions', headers: { authorization: `Bearer ${key}` } });
    expect(res.statusCode, res.body).toBe(200);
    const items = res.json().data.items as Array<Record<string, unknown>>;
    expect(items.length).toBeGreaterThan(5);
    for (const r of items) expect(r).not.toHaveProperty('supersededBy');
    const one = await h.app.inject({
      method: 'GET',
      url: `/api/v1/transactions/${id.aMismatch}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(one.statusCode).toBe(200);
    expect(one.json().data).not.toHaveProperty('supersededBy');
  });

  it('one query per page for the marks, through the (shop_id, trans_ref) index', async () => {
    // Sixty more transfers, each checked twice (mismatch, then SUCCESS): a page of 100 rows.
    const shop = await signup(h);
    const seeds = Array.from({ length: 60 }, (_, i) => [
      {
        createdAt: bkk(`2026-11-11T0${Math.floor(i / 10)}:${String((i % 10) * 2).padStart(2, '0')}:00`),
        transRef: `BULK-${i}`,
        status: 'AMOUNT_MISMATCH',
      },
      { createdAt: bkk(`2026-11-11T0${Math.floor(i / 10)}:${String((i % 10) * 2 + 1).padStart(2, '0')}:00`), transRef: `BULK-${i}` },
    ]).flat();
    await insertTx(h, shop.shopId, seeds);
    const queries: RootOperationNode[] = [];
    const counter: KyselyPlugin = {
      transformQuery: (args) => {
        queries.push(args.node);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const counted = createTransactionService({ db: h.c.db.withPlugin(counter), timeZone: 'Asia/Bangkok' });
    const page = await h.c.transactions.list(shop.shopId, { limit: 100 });
    expect(page.items).toHaveLength(100);
    const marks = await counted.supersededBy(shop.shopId, page.items);
    expect(queries).toHaveLength(1);
    expect(marks.size).toBe(page.items.filter((r) => r.status === 'AMOUNT_MISMATCH').length);
    expect([...marks.values()].every((m) => m.status === 'SUCCESS')).toBe(true);

    // The planner uses the (shop_id, trans_ref) index for a page of 10 rows in a shop with
    // many more rows than the page names (PostgreSQL with fresh statistics, told not to prefer a scan
    // of a table this small; with half the shop's rows named it rightly reads the shop's rows instead).
    queries.length = 0;
    await counted.supersededBy(shop.shopId, page.items.slice(0, 10));
    expect(queries).toHaveLength(1);
    const compiled = h.c.db.getExecutor().compileQuery(queries[0]!, { queryId: 'explain' });
    const plan = await h.c.db.transaction().execute(async (trx) => {
      if (kind === 'postgres') {
        await trx.executeQuery(CompiledQuery.raw('analyze transactions'));
        await trx.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
      }
      const prefix = kind === 'sqlite' ? 'explain query plan ' : 'explain ';
      const r = await trx.executeQuery(CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]));
      return JSON.stringify(r.rows);
    });
    expect(plan).toContain('transactions_shop_ref');
  });
}
