import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { newId } from '../../src/lib/ids.js';
import { createServiceHarness, DB_KINDS, type ServiceHarness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { outboxAlerts, seedTx } from '../helpers/records.js';
import { listParked } from '../../src/outbox/outbox-repo.js';
import type { OutboxTable } from '../../src/db/db-schema.js';
import { PRUNE_BATCH } from '../../src/db/batched-delete.js';
import { expectBatched, insertMany, runCounting, runHourlyTasks } from '../helpers/retention.js';
import { newDeliveryRow } from '../../src/modules/webhooks/webhook-repo.js';

const NOW = '2026-11-21T06:00:00.000Z';
const daysAgo = (d: number) => new Date(Date.parse(NOW) - d * 86_400_000).toISOString();

/** A delivery of a slip.verified naming the sender, made at `at` (`status`), and its one attempt. */
function deliveryRows(shopId: string, endpointId: string, at: string, status = 'delivered') {
  const row = newDeliveryRow({
    id: newId('whd'),
    shop_id: shopId,
    endpoint_id: endpointId,
    event_id: `evt_${newId('e')}`,
    event_kind: 'slip.verified',
    transaction_id: newId('txn'),
    payload: JSON.stringify({
      event: 'slip.verified',
      data: { sender: 'นาย สมชาย ใจดี', receiver: 'บจก. ร้านกาแฟ', clientRef: 'order-9' },
    }),
    isTest: false,
    nextAttemptAt: null,
    at,
  });
  return { delivery: { ...row, status, attempts: 1 }, attempt: attemptRow(row.id, shopId, endpointId, row.event_id, at, status) };
}

/** An attempt row as the sender leaves it, started and finished at `at`. */
const attemptRow = (deliveryId: string, shopId: string, endpointId: string, eventId: string, at: string, status = 'delivered') => ({
  id: newId('wha'),
  delivery_id: deliveryId,
  shop_id: shopId,
  endpoint_id: endpointId,
  event_id: eventId,
  round: 0,
  manual: 0,
  status: status === 'delivered' ? 'delivered' : 'failed',
  response_code: 200,
  duration_ms: 5,
  error: null,
  next_attempt_at: null,
  worker_id: null,
  started_at: at,
  finished_at: at,
});

/** An outbox row as the worker leaves it: parked (`failed`), retrying (`pending`) or `done` at `at`. */
const outboxRow = (kind: string, status: string, at: string, payload: object): OutboxTable => ({
  id: newId('job'),
  kind,
  shop_id: null,
  payload: JSON.stringify(payload),
  status,
  attempts: 10,
  run_at: at,
  locked_by: null,
  locked_until: null,
  last_error: status === 'done' ? null : 'boom',
  created_at: at,
  updated_at: at,
  dedupe_key: null,
});

/** A live SUCCESS with personal fields, checked at `createdAt`. */
const addTx = (h: ServiceHarness, shopId: string, createdAt: string) =>
  seedTx(h, shopId, new Date(createdAt), 'SUCCESS', {
    amount_satang: 100,
    sender_name: 'นาย สมชาย ใจดี',
    client_ref: 'order-9',
    image_hash: 'ab',
    latency_ms: 1,
  });

// Moved from test/foundation/housekeeping.test.ts: retention, erasure and alerts are the housekeeping
// service's rules on a real database; no request is involved (the pipeline's alerts stay there).
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`housekeeping: retention, erasure, alerts [${kind}]${skipNote(kind)}`, () => {
    let h: ServiceHarness;
    const clock = fixedClock(NOW);
    beforeAll(async () => {
      h = await createServiceHarness(kind, {}, { clock });
    });
    afterAll(async () => h.close());

    it('purges an erased shop 24 h after the request, not before, and keeps an anonymous tombstone', async () => {
      const old = await seedShop(h);
      const recent = await seedShop(h);
      await addTx(h, old.shop.id, NOW);
      await addTx(h, recent.shop.id, NOW);
      await h.c.db
        .updateTable('shops')
        .set({ deleted_at: new Date(Date.parse(NOW) - 25 * 3_600_000).toISOString() })
        .where('id', '=', old.shop.id)
        .execute();
      await h.c.db
        .updateTable('shops')
        .set({ deleted_at: new Date(Date.parse(NOW) - 3_600_000).toISOString() })
        .where('id', '=', recent.shop.id)
        .execute();
      expect(await h.c.housekeeping.purgeErased()).toBe(1);
      const count = async (table: 'transactions' | 'api_keys' | 'payee_accounts', shopId: string) =>
        (await h.c.db.selectFrom(table).select('id').where('shop_id', '=', shopId).execute()).length;
      expect(await count('transactions', old.shop.id)).toBe(0);
      expect(await count('api_keys', old.shop.id)).toBe(0);
      expect(await count('payee_accounts', old.shop.id)).toBe(0);
      expect(await count('transactions', recent.shop.id)).toBe(1);
      const tomb = await h.c.db.selectFrom('shops').select(['name']).where('id', '=', old.shop.id).executeTakeFirstOrThrow();
      expect(tomb.name).toBe('(erased)');
      expect((await h.c.audit.list(old.shop.id)).map((a) => a.action)).toContain('privacy.purge');
      expect(await h.c.housekeeping.purgeErased()).toBe(0);
    });

    it('anonymises results past the retention period only for shops that turned auto-delete on', async () => {
      const on = await seedShop(h);
      const off = await seedShop(h);
      await h.c.shops.update(on.shop.id, { settings: { privacy: { autoDelete: true, retentionMonths: 12 } } }, 'test');
      const ancient = await addTx(h, on.shop.id, '2025-10-01T00:00:00.000Z');
      const fresh = await addTx(h, on.shop.id, '2026-10-01T00:00:00.000Z');
      const kept = await addTx(h, off.shop.id, '2025-01-01T00:00:00.000Z');
      expect(await h.c.housekeeping.anonymizeExpired()).toBe(1);
      const row = async (id: string) => h.c.db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(await row(ancient)).toMatchObject({
        sender_name: null,
        sender_account: null,
        receiver_name: null,
        client_ref: null,
        image_hash: null,
        amount_satang: 100,
      });
      expect((await row(ancient)).anonymized_at).toBeTruthy();
      expect((await row(fresh)).sender_name).toBe('นาย สมชาย ใจดี');
      expect((await row(kept)).sender_name).toBe('นาย สมชาย ใจดี');
    });

    it('queues one TRIAL_ENDING alert a day before a trial ends', async () => {
      const shop = await h.c.shops.create({ name: 'trial' }, 'test');
      expect(await outboxAlerts(h, shop.id)).toHaveLength(0);
      await h.c.housekeeping.trialEndingAlerts();
      expect(await outboxAlerts(h, shop.id)).toHaveLength(0); // 7 days left
      clock.advance(6.5 * 86_400_000);
      await h.c.housekeeping.trialEndingAlerts();
      await h.c.housekeeping.trialEndingAlerts();
      expect((await outboxAlerts(h, shop.id)).map((a) => a.type)).toEqual(['TRIAL_ENDING']);
      clock.set(NOW);
    });

    it('prunes audit entries older than 90 days', async () => {
      const s = await seedShop(h);
      await h.c.db
        .insertInto('audit_log')
        .values({
          id: newId('aud'),
          shop_id: s.shop.id,
          actor: 'x',
          action: 'old.thing',
          target: null,
          detail: '{}',
          ip: null,
          created_at: '2026-01-01T00:00:00.000Z',
        })
        .execute();
      const r = await h.c.housekeeping.runAll();
      expect(r.auditPruned).toBeGreaterThanOrEqual(1);
      expect((await h.c.audit.list(s.shop.id)).map((a) => a.action)).not.toContain('old.thing');
    });

    it('prunes audit entries older than 90 days in bounded batches, renewing the lease between them', async () => {
      const s = await seedShop(h);
      const entry = (action: string, at: string) => ({
        id: newId('aud'),
        shop_id: s.shop.id,
        actor: 'x',
        action,
        target: null,
        detail: '{}',
        ip: null,
        created_at: at,
      });
      const justOld = entry('batch.just-old', daysAgo(91));
      const kept = entry('batch.kept', daysAgo(89));
      await h.c.db.insertInto('audit_log').values([justOld, kept]).execute();
      await insertMany(
        PRUNE_BATCH + 150,
        () => entry('batch.backlog', daysAgo(200)),
        (rows) => h.c.db.insertInto('audit_log').values(rows).execute(),
      );
      const oldLeft = async () =>
        (await h.c.db.selectFrom('audit_log').select('id').where('created_at', '<', daysAgo(90)).execute()).length;
      const before = await oldLeft();

      expectBatched(await runCounting(h, 'audit.prune', oldLeft), before);
      expect(await oldLeft()).toBe(0);
      const left = (await h.c.db.selectFrom('audit_log').select('id').where('id', 'in', [justOld.id, kept.id]).execute()).map((r) => r.id);
      expect(left).toEqual([kept.id]);
    });

    it('prunes same-image claims past IMAGE_CACHE_HOURS in bounded batches; claims in flight and recent ones stay', async () => {
      const s = await seedShop(h);
      const windowMs = h.config.IMAGE_CACHE_HOURS * 3_600_000;
      const at = (msAgo: number) => new Date(Date.parse(NOW) - msAgo).toISOString();
      const claim = (hash: string, claimedAt: string, transactionId: string | null) => ({
        shop_id: s.shop.id,
        scope: 'live',
        image_hash: hash,
        transaction_id: transactionId,
        claimed_at: claimedAt,
        owner: transactionId ? null : 'tok',
        lease_until: transactionId ? null : at(-60_000),
        reserved_pool: null,
        reserved_period: null,
      });
      const old = claim(`old-${kind}`, at(windowMs + 60_000), newId('txn'));
      const recent = claim(`recent-${kind}`, at(windowMs - 60_000), newId('txn'));
      // The first check of this image is still running (no transaction yet): never this task's.
      const inFlight = claim(`flight-${kind}`, at(windowMs + 60_000), null);
      await h.c.db.insertInto('image_claims').values([old, recent, inFlight]).execute();
      await insertMany(
        PRUNE_BATCH + 150,
        (i) => claim(`backlog-${kind}-${i}`, at(2 * windowMs), newId('txn')),
        (rows) => h.c.db.insertInto('image_claims').values(rows).execute(),
      );
      const cutoff = at(windowMs);
      const oldLeft = async () =>
        (
          await h.c.db
            .selectFrom('image_claims')
            .select('image_hash')
            .where('claimed_at', '<', cutoff)
            .where('transaction_id', 'is not', null)
            .execute()
        ).length;
      const before = await oldLeft();

      expectBatched(await runCounting(h, 'image-claims.prune', oldLeft), before);
      expect(await oldLeft()).toBe(0);
      const hashes = (await h.c.db.selectFrom('image_claims').select('image_hash').where('shop_id', '=', s.shop.id).execute())
        .map((r) => r.image_hash)
        .sort();
      expect(hashes).toEqual([recent.image_hash, inFlight.image_hash].sort());
    });

    it('prunes LINE webhook event ids older than 7 days in bounded batches, renewing the lease between them', async () => {
      const event = (id: string, at: string) => ({ webhook_event_id: id, line_channel_id: `ch-${kind}`, received_at: at });
      const old = event(newId('lev'), daysAgo(8));
      const recent = event(newId('lev'), daysAgo(6));
      await h.c.db.insertInto('line_events').values([old, recent]).execute();
      await insertMany(
        PRUNE_BATCH + 150,
        () => event(newId('lev'), daysAgo(30)),
        (rows) => h.c.db.insertInto('line_events').values(rows).execute(),
      );
      const oldLeft = async () =>
        (await h.c.db.selectFrom('line_events').select('webhook_event_id').where('received_at', '<', daysAgo(7)).execute()).length;
      const before = await oldLeft();

      expectBatched(await runCounting(h, 'line.prune-events', oldLeft), before);
      expect(await oldLeft()).toBe(0);
      const ids = (
        await h.c.db
          .selectFrom('line_events')
          .select('webhook_event_id')
          .where('webhook_event_id', 'in', [old.webhook_event_id, recent.webhook_event_id])
          .execute()
      ).map((r) => r.webhook_event_id);
      expect(ids).toEqual([recent.webhook_event_id]);
    });

    it('prunes sent e-mails (addresses, bodies with reset links) older than 30 days in the hourly tasks, in batches', async () => {
      const to = `retention-${kind}@example.com`;
      const content = { subject: 'รีเซ็ตรหัสผ่าน / Reset', template: 'password_reset', text: 'https://x/reset?token=secret' };
      clock.set(daysAgo(31));
      const old = await h.c.mail.send(to, content);
      clock.set(daysAgo(29));
      const recent = await h.c.mail.send(to, content);
      clock.set(NOW);
      const fresh = await h.c.mail.send(to, content);
      // A backlog (a first run after the upgrade): more old rows than one delete takes.
      const backlog = Array.from({ length: 1_200 }, (_, i) => ({
        id: newId('mail'),
        to_addr: `old-${i}@example.com`,
        subject: 's',
        template: 't',
        body_text: 'b',
        transport: 'sink',
        status: 'stored',
        error: null,
        shop_id: null,
        created_at: daysAgo(40),
      }));
      for (let i = 0; i < backlog.length; i += 200)
        await h.c.db
          .insertInto('mail_messages')
          .values(backlog.slice(i, i + 200))
          .execute();

      let renewals = 0;
      await runHourlyTasks(h, async () => {
        renewals++;
      });
      const ids = (await h.c.db.selectFrom('mail_messages').select('id').where('to_addr', '=', to).execute()).map((r) => r.id).sort();
      expect(ids).toEqual([recent, fresh].sort());
      expect(ids).not.toContain(old);
      const left = await h.c.db.selectFrom('mail_messages').select('id').where('created_at', '<', daysAgo(30)).execute();
      expect(left).toHaveLength(0);
      // Bounded batches: the prune renewed its lease between them, never one delete of the whole backlog.
      expect(renewals).toBeGreaterThanOrEqual(2);
    });

    it('prunes parked (failed) outbox jobs 30 days after they were parked; pending and recently parked ones stay', async () => {
      const lineEvent = { channelId: 'c', event: { type: 'message', source: { userId: 'U123' }, message: { text: 'ชื่อ สมชาย' } } };
      const reset = { email: `reset-${kind}@example.com`, ip: '203.0.113.9' };
      const oldLine = outboxRow('line.event', 'failed', daysAgo(31), lineEvent);
      const oldReset = outboxRow('accounts.password_reset', 'failed', daysAgo(45), reset);
      const recent = outboxRow('line.event', 'failed', daysAgo(29), lineEvent);
      // Still retrying (created long ago, last tried now): never pruned, whatever its age.
      const retrying = { ...outboxRow('line.event', 'pending', daysAgo(40), lineEvent), run_at: daysAgo(-1) };
      // Created 40 days ago but parked yesterday: the operator has had one day, not 40.
      const lateParked = { ...outboxRow('line.event', 'failed', daysAgo(1), lineEvent), created_at: daysAgo(40) };
      await h.c.db.insertInto('outbox').values([oldLine, oldReset, recent, retrying, lateParked]).execute();
      // A backlog parked long ago (the first run after the upgrade): more than one delete takes.
      const backlog = Array.from({ length: 700 }, () => outboxRow('line.event', 'failed', daysAgo(90), lineEvent));
      for (let i = 0; i < backlog.length; i += 100)
        await h.c.db
          .insertInto('outbox')
          .values(backlog.slice(i, i + 100))
          .execute();

      await runHourlyTasks(h);
      const left = (
        await h.c.db
          .selectFrom('outbox')
          .select('id')
          .where('id', 'in', [oldLine.id, oldReset.id, recent.id, retrying.id, lateParked.id])
          .execute()
      )
        .map((r) => r.id)
        .sort();
      expect(left).toEqual([recent.id, retrying.id, lateParked.id].sort());
      const oldParked = await h.c.db
        .selectFrom('outbox')
        .select('id')
        .where('status', '=', 'failed')
        .where('updated_at', '<', daysAgo(30))
        .execute();
      expect(oldParked).toHaveLength(0);
      // What the operator still sees with `slipcheck outbox failed`.
      const parked = (await listParked(h.c.db, { limit: 500 })).map((p) => p.id);
      expect(parked).toEqual(expect.arrayContaining([recent.id, lateParked.id]));
      expect(parked).not.toContain(oldLine.id);
      expect(parked).not.toContain(oldReset.id);
    });

    it('prunes done outbox jobs older than 7 days in bounded batches, renewing the lease between them', async () => {
      const donePayload = { deliveryId: 'whd_x' };
      const oldDone = outboxRow('webhook.deliver', 'done', daysAgo(8), donePayload);
      const recentDone = outboxRow('webhook.deliver', 'done', daysAgo(6), donePayload);
      // Pending and parked rows are never this task's, whatever their age.
      const oldPending = { ...outboxRow('webhook.deliver', 'pending', daysAgo(20), donePayload), run_at: daysAgo(-1) };
      const oldFailed = outboxRow('webhook.deliver', 'failed', daysAgo(20), donePayload);
      await h.c.db.insertInto('outbox').values([oldDone, recentDone, oldPending, oldFailed]).execute();
      // A backlog (a busy week, or the first run after an outage): more done rows than one delete takes.
      const backlog = Array.from({ length: 2 * PRUNE_BATCH + 200 }, () => outboxRow('webhook.deliver', 'done', daysAgo(10), donePayload));
      for (let i = 0; i < backlog.length; i += 100)
        await h.c.db
          .insertInto('outbox')
          .values(backlog.slice(i, i + 100))
          .execute();
      const oldDoneLeft = async () =>
        (await h.c.db.selectFrom('outbox').select('id').where('status', '=', 'done').where('updated_at', '<', daysAgo(7)).execute()).length;
      const before = await oldDoneLeft();
      expect(before).toBeGreaterThan(2 * PRUNE_BATCH);

      // What is left at each lease renewal: renewed before every batch, and no batch larger than PRUNE_BATCH.
      const leftAtRenewal: number[] = [];
      const task = h.c.scheduler.tasks.find((t) => t.name === 'outbox.prune-done')!;
      const pruned = await task.run(async () => {
        leftAtRenewal.push(await oldDoneLeft());
      });
      expect(pruned).toBe(before);
      expect(await oldDoneLeft()).toBe(0);
      expect(leftAtRenewal.length).toBe(Math.floor(before / PRUNE_BATCH) + 1);
      expect(leftAtRenewal[0]).toBe(before);
      for (let i = 1; i < leftAtRenewal.length; i++) expect(leftAtRenewal[i]).toBe(Math.max(0, before - i * PRUNE_BATCH));
      const kept = (
        await h.c.db.selectFrom('outbox').select('id').where('id', 'in', [oldDone.id, recentDone.id, oldPending.id, oldFailed.id]).execute()
      )
        .map((r) => r.id)
        .sort();
      expect(kept).toEqual([recentDone.id, oldPending.id, oldFailed.id].sort());
    });
  });
}

// WEBHOOK_RETENTION_DAYS (30 by default) for every shop: finished deliveries and their attempts, in
// bounded batches; attempts left without a delivery (the endpoint deleted while a send was in flight) too.
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`housekeeping: webhook delivery retention [${kind}]${skipNote(kind)}`, () => {
    let h: ServiceHarness;
    const clock = fixedClock(NOW);
    beforeAll(async () => {
      h = await createServiceHarness(kind, { WEBHOOK_RETENTION_DAYS: '30' }, { clock });
    });
    afterAll(async () => h.close());

    it('prunes finished deliveries and their attempts after WEBHOOK_RETENTION_DAYS in bounded batches, and orphaned attempts', async () => {
      const s = await seedShop(h);
      const endpoint = (await h.c.webhooks.addEndpoint(s.shop.id, { url: 'https://127.0.0.1/hook' }, 'test')).endpoint.id;
      const add = async (at: string, status = 'delivered') => {
        const { delivery, attempt } = deliveryRows(s.shop.id, endpoint, at, status);
        await h.c.db.insertInto('webhook_deliveries').values(delivery).execute();
        await h.c.db.insertInto('webhook_attempts').values(attempt).execute();
        return delivery.id;
      };
      const old = await add(daysAgo(31), 'failed');
      const recent = await add(daysAgo(29));
      // Still being sent (a manual redelivery of an old event): left to finish, pruned by a later run.
      const sending = await add(daysAgo(40), 'retrying');
      const backlog = Array.from({ length: PRUNE_BATCH + 150 }, () => deliveryRows(s.shop.id, endpoint, daysAgo(60)));
      for (let i = 0; i < backlog.length; i += 50) {
        const part = backlog.slice(i, i + 50);
        await h.c.db
          .insertInto('webhook_deliveries')
          .values(part.map((r) => r.delivery))
          .execute();
        await h.c.db
          .insertInto('webhook_attempts')
          .values(part.map((r) => r.attempt))
          .execute();
      }

      // An endpoint deleted while a send was in flight: the send records its attempt after the delete
      // took the delivery, so the attempt row has no delivery (and no endpoint) left.
      const doomed = (await h.c.webhooks.addEndpoint(s.shop.id, { url: 'https://127.0.0.1/other' }, 'test')).endpoint.id;
      const inFlight = deliveryRows(s.shop.id, doomed, daysAgo(35));
      await h.c.db.insertInto('webhook_deliveries').values(inFlight.delivery).execute();
      await h.c.webhooks.delete(s.shop.id, doomed, 'test');
      await h.c.db.insertInto('webhook_attempts').values(inFlight.attempt).execute();
      // The same lately: an orphan goes after the retention period, as its delivery would have.
      const lateFlight = deliveryRows(s.shop.id, doomed, daysAgo(1));
      await h.c.db.insertInto('webhook_attempts').values(lateFlight.attempt).execute();

      const oldLeft = async () =>
        (
          await h.c.db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('created_at', '<', daysAgo(30))
            .where('status', 'not in', ['pending', 'retrying'])
            .execute()
        ).length;
      const before = await oldLeft();
      expect(before).toBeGreaterThan(PRUNE_BATCH);
      const leftAtRenewal = await runCounting(h, 'webhooks.prune-deliveries', oldLeft);

      expect(await oldLeft()).toBe(0);
      const deliveries = (await h.c.db.selectFrom('webhook_deliveries').select('id').where('shop_id', '=', s.shop.id).execute())
        .map((r) => r.id)
        .sort();
      expect(deliveries).toEqual([recent, sending].sort());
      expect(deliveries).not.toContain(old);
      const attempts = (await h.c.db.selectFrom('webhook_attempts').select('delivery_id').where('shop_id', '=', s.shop.id).execute())
        .map((r) => r.delivery_id)
        .sort();
      expect(attempts).toEqual([recent, sending, lateFlight.delivery.id].sort());
      // Renewed before every batch, and no batch larger than PRUNE_BATCH.
      expect(leftAtRenewal.slice(0, 3)).toEqual([before, before - PRUNE_BATCH, 0]);
    });
  });
}

// Webhook payloads are copies of the result (sender, receiver, clientRef): they must not outlive the
// shop's PDPA auto-delete because the operator keeps deliveries longer (WEBHOOK_RETENTION_DAYS, up to 3650).
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`housekeeping: webhook deliveries follow the PDPA auto-delete [${kind}]${skipNote(kind)}`, () => {
    let h: ServiceHarness;
    const clock = fixedClock(NOW);
    beforeAll(async () => {
      h = await createServiceHarness(kind, { WEBHOOK_RETENTION_DAYS: '3650' }, { clock });
    });
    afterAll(async () => h.close());

    /** A finished (or `status`) delivery of a slip.verified naming the sender, made at `at`, with one attempt. */
    async function addDelivery(shopId: string, endpointId: string, at: string, status = 'delivered') {
      const { delivery, attempt } = deliveryRows(shopId, endpointId, at, status);
      await h.c.db.insertInto('webhook_deliveries').values(delivery).execute();
      await h.c.db.insertInto('webhook_attempts').values(attempt).execute();
      return delivery.id;
    }
    const endpointOf = async (shopId: string) =>
      (await h.c.webhooks.addEndpoint(shopId, { url: 'https://127.0.0.1/hook' }, 'test')).endpoint.id;
    const deliveriesLeft = async (shopId: string) =>
      (await h.c.db.selectFrom('webhook_deliveries').select('id').where('shop_id', '=', shopId).execute()).map((r) => r.id).sort();
    const attemptsLeft = async (shopId: string) =>
      (await h.c.db.selectFrom('webhook_attempts').select('delivery_id').where('shop_id', '=', shopId).execute()).map((r) => r.delivery_id);

    it('deletes deliveries (payload and attempts) older than the cutoff of a shop with auto-delete, by the hourly anonymisation', async () => {
      const on = await seedShop(h);
      const off = await seedShop(h);
      await h.c.shops.update(on.shop.id, { settings: { privacy: { autoDelete: true, retentionMonths: 12 } } }, 'test');
      const onEndpoint = await endpointOf(on.shop.id);
      const offEndpoint = await endpointOf(off.shop.id);
      const ancientTx = await addTx(h, on.shop.id, '2025-10-01T00:00:00.000Z');
      await addDelivery(on.shop.id, onEndpoint, '2025-10-01T00:00:05.000Z');
      await addDelivery(on.shop.id, onEndpoint, '2025-09-01T00:00:00.000Z', 'failed');
      // Just inside the retention: kept, like its result.
      const fresh = await addDelivery(on.shop.id, onEndpoint, '2025-11-21T07:00:00.000Z');
      // Still being sent (a manual redelivery of an old event): left to finish, deleted by a later run.
      const sending = await addDelivery(on.shop.id, onEndpoint, '2025-08-01T00:00:00.000Z', 'retrying');
      // A backlog of a year and more of deliveries (first run after turning auto-delete on): several batches.
      for (let i = 0; i < PRUNE_BATCH + 50; i++) await addDelivery(on.shop.id, onEndpoint, '2025-06-01T00:00:00.000Z');
      // The shop without auto-delete keeps its deliveries for WEBHOOK_RETENTION_DAYS.
      const kept = await addDelivery(off.shop.id, offEndpoint, '2025-01-01T00:00:00.000Z');

      await runHourlyTasks(h);

      expect(await deliveriesLeft(on.shop.id)).toEqual([fresh, sending].sort());
      expect((await attemptsLeft(on.shop.id)).sort()).toEqual([fresh, sending].sort());
      expect(await deliveriesLeft(off.shop.id)).toEqual([kept]);
      expect(await attemptsLeft(off.shop.id)).toEqual([kept]);
      // The same run anonymised the result those deliveries carried.
      const tx = await h.c.db
        .selectFrom('transactions')
        .select(['sender_name', 'anonymized_at'])
        .where('id', '=', ancientTx)
        .executeTakeFirstOrThrow();
      expect(tx).toMatchObject({ sender_name: null });
      expect(tx.anonymized_at).toBeTruthy();

      // Once it has finished, the old delivery in flight goes at the next run.
      await h.c.db.updateTable('webhook_deliveries').set({ status: 'delivered' }).where('id', '=', sending).execute();
      await runHourlyTasks(h);
      expect(await deliveriesLeft(on.shop.id)).toEqual([fresh]);
      expect(await attemptsLeft(on.shop.id)).toEqual([fresh]);
    });

    it('follows the shop retention (months) and the service default, as the results do', async () => {
      const shortShop = await seedShop(h);
      const defaultShop = await seedShop(h);
      await h.c.shops.update(shortShop.shop.id, { settings: { privacy: { autoDelete: true, retentionMonths: 1 } } }, 'test');
      await h.c.shops.update(defaultShop.shop.id, { settings: { privacy: { autoDelete: true } } }, 'test');
      const shortEndpoint = await endpointOf(shortShop.shop.id);
      const defaultEndpoint = await endpointOf(defaultShop.shop.id);
      await addDelivery(shortShop.shop.id, shortEndpoint, '2026-09-15T00:00:00.000Z');
      const twoWeeks = await addDelivery(shortShop.shop.id, shortEndpoint, '2026-11-07T00:00:00.000Z');
      const defaultMonths = h.config.PDPA_RETENTION_MONTHS;
      const cutoff = new Date(NOW);
      cutoff.setUTCMonth(cutoff.getUTCMonth() - defaultMonths);
      await addDelivery(defaultShop.shop.id, defaultEndpoint, new Date(cutoff.getTime() - 86_400_000).toISOString());
      const insideDefault = await addDelivery(defaultShop.shop.id, defaultEndpoint, new Date(cutoff.getTime() + 86_400_000).toISOString());

      await h.c.housekeeping.anonymizeExpired();

      expect(await deliveriesLeft(shortShop.shop.id)).toEqual([twoWeeks]);
      expect(await deliveriesLeft(defaultShop.shop.id)).toEqual([insideDefault]);
    });
  });
}
