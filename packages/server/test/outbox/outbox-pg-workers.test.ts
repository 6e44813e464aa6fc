import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, seedShop, skipReason } from '../helpers/harness.js';
import { createOutboxWorker } from '../../src/outbox/outbox-worker.js';
import { RESULT_CREATED_JOB } from '../../src/modules/verification/verification-jobs.js';
import { startReceiver, until, type Receiver } from '../webhooks/helpers/receiver.js';
import { outboxRow, transactionRow } from '../helpers/records.js';

const PG = !!process.env.TEST_DATABASE_URL;

describe.skipIf(!PG)(`two workers on PostgreSQL (FOR UPDATE SKIP LOCKED)${skipReason('TEST_DATABASE_URL')}`, () => {
  let h: Harness;
  let rx: Receiver;
  beforeAll(async () => {
    h = await createHarness('postgres');
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await h.close();
  });

  it('deliver 1,000 events with no attempt sent twice', async () => {
    const N = 1000;
    const { shop } = await seedShop(h);
    await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/pg') });
    // 1,000 results, inserted in bulk with their result.created jobs before any worker runs.
    const now = new Date();
    const txRows = [],
      jobs = [];
    for (let i = 0; i < N; i++) {
      const row = transactionRow(shop.id, now, 'SUCCESS', { trans_ref: `PG${i}`, amount_satang: 100 + i, success_ref: `PG${i}` });
      const id = row.id;
      txRows.push(row);
      jobs.push(outboxRow(RESULT_CREATED_JOB, JSON.stringify({ transactionId: id, shopId: shop.id, source: 'API' }), now, shop.id));
    }
    for (let i = 0; i < N; i += 200) {
      await h.c.db
        .insertInto('transactions')
        .values(txRows.slice(i, i + 200))
        .execute();
      await h.c.db
        .insertInto('outbox')
        .values(jobs.slice(i, i + 200))
        .execute();
    }
    const mk = (id: string) =>
      createOutboxWorker({
        db: h.c.db,
        caps: h.c.caps,
        clock: h.c.clock,
        handlers: h.c.outboxHandlers,
        workerId: id,
        pollMs: 50,
        concurrency: 16,
        batch: 16,
      });
    const workers = [mk('w1'), mk('w2')];
    const t0 = Date.now();
    workers.forEach((w) => w.start());
    try {
      await rx.waitFor(N, 60_000);
      await until(
        async () => {
          const r = await h.c.db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('shop_id', '=', shop.id)
            .where('status', '=', 'delivered')
            .executeTakeFirstOrThrow();
          return Number(r.n) === N || null;
        },
        30_000,
        'all delivered',
      );
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    const ms = Date.now() - t0;

    const perAttempt = new Map<string, number>();
    for (const r of rx.received) {
      const key = `${r.headers['x-service-delivery-id']}#${r.headers['x-service-attempt']}`;
      perAttempt.set(key, (perAttempt.get(key) ?? 0) + 1);
    }
    expect(rx.received).toHaveLength(N);
    expect(perAttempt.size).toBe(N);
    expect([...perAttempt.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(rx.received.map((r) => JSON.parse(r.body).data.transactionId)).size).toBe(N);
    const attempts = await h.c.db.selectFrom('webhook_attempts').select(['delivery_id', 'round']).where('shop_id', '=', shop.id).execute();
    expect(attempts).toHaveLength(N);
    // Both workers did part of the work.
    const byWorker = await h.c.db.selectFrom('webhook_attempts').select(['worker_id']).where('shop_id', '=', shop.id).execute();
    const counts = byWorker.reduce<Record<string, number>>((m, r) => ({ ...m, [r.worker_id!]: (m[r.worker_id!] ?? 0) + 1 }), {});
    expect(Object.keys(counts).sort()).toEqual(['w1', 'w2']);
    console.log(`[outbox-pg-workers] ${N} events via 2 workers in ${ms} ms; per worker ${JSON.stringify(counts)}`);
  }, 120_000);
});
