import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '@slipcheck/sdk';
import { createServiceHarness, DB_KINDS, type ServiceHarness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { createOutboxWorker, type OutboxWorker } from '../../src/outbox/outbox-worker.js';
import { startReceiver, until, type Receiver, type Received } from '../webhooks/helpers/receiver.js';
import { insertResult } from '../webhooks/helpers/results.js';

/** Independent of the SDK: recompute v1 from the raw body and compare. */
function independentlyValid(r: Received, secret: string): boolean {
  const header = String(r.headers['x-service-signature']);
  const t = /(?:^|,)t=(\d+)/.exec(header)![1];
  const expected = createHmac('sha256', secret).update(`${t}.${r.body}`).digest('hex');
  return header.split(',').some((p) => p === `v1=${expected}`);
}

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`webhook delivery (${kind})${skipNote(kind)}`, () => {
    let h: ServiceHarness;
    let rx: Receiver;
    let worker: OutboxWorker | null = null;

    beforeAll(async () => {
      h = await createServiceHarness(kind, { WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0', WEBHOOK_TIMEOUT_MS: '1500' });
      rx = await startReceiver();
    });
    afterAll(async () => {
      await rx.close();
      await h.close();
    });
    afterEach(async () => {
      await worker?.stop({ abandon: true });
      worker = null;
      rx.received.length = 0;
      rx.setBehaviour((_r, _n, res) => {
        res.writeHead(200).end();
      });
    });

    const startWorker = (o: { leaseMs?: number; workerId?: string } = {}) => {
      const w = createOutboxWorker({ db: h.c.db, caps: h.c.caps, clock: h.c.clock, handlers: h.c.outboxHandlers, pollMs: 100, ...o });
      w.start();
      return w;
    };
    const delivery = (id: string) => h.c.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const deliveriesOf = (endpointId: string) =>
      h.c.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).execute();

    it('fails N times then delivers; every attempt is signed (SDK and independent HMAC) with the same body and delivery id', async () => {
      const { shop } = await seedShop(h);
      const { endpoint, secret } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/flaky'), description: 'orders' });
      expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);
      rx.setBehaviour((_r, n, res) => {
        res.writeHead(n <= 2 ? 500 : 200).end();
      });
      worker = startWorker();
      const tx = await insertResult(h, shop.id, { status: 'SUCCESS', amount: 150.5, clientRef: 'order-42' });

      const [d] = await until(async () => {
        const l = await deliveriesOf(endpoint.id);
        return l[0]?.status === 'delivered' ? l : null;
      });
      expect(rx.received).toHaveLength(3);
      for (const r of rx.received) {
        const ev = verifyWebhookSignature(r.body, r.headers['x-service-signature'] as string, secret);
        expect(independentlyValid(r, secret)).toBe(true);
        expect(ev.event).toBe('slip.verified');
        expect(r.headers['x-service-delivery-id']).toBe(d!.id);
        expect(r.headers['x-service-event']).toBe('slip.verified');
        expect(r.headers['user-agent']).not.toMatch(/easyslip|slipok/i);
        expect(r.body).toBe(rx.received[0]!.body);
      }
      // X-Service-Attempt counts deliveries from 1, as the OpenAPI document says (the first try is 1, not 0).
      expect(rx.received.map((r) => r.headers['x-service-attempt'])).toEqual(['1', '2', '3']);
      const body = JSON.parse(rx.received[0]!.body);
      expect(body).toEqual({
        event: 'slip.verified',
        id: expect.stringMatching(/^evt_[0-9a-f]+$/),
        created: expect.any(Number),
        data: {
          transactionId: tx.id,
          transRef: tx.transRef,
          amount: 150.5,
          status: 'SUCCESS',
          sender: 'นาย ทดสอบ ส่ง',
          receiver: 'บจก. ร้านกาแฟ',
          verifiedAt: expect.stringMatching(/Z$/),
          latencyMs: 321,
          clientRef: 'order-42',
          source: 'API',
          environment: 'live',
          errorCode: null,
          printedAmount: null,
          edited: false,
        },
      });
      expect(d).toMatchObject({ status: 'delivered', attempts: 3, round: 2, last_status_code: 200 });
      const full = await h.c.webhooks.getDelivery(shop.id, d!.id);
      expect(full.attempts.map((a) => [a.attempt, a.status, a.responseCode])).toEqual([
        [1, 'failed', 500],
        [2, 'failed', 500],
        [3, 'delivered', 200],
      ]);
      // The owner sees the number the receiver saw in X-Service-Attempt.
      expect(full).toMatchObject({ attempt: 3, maxAttempts: 6 });
      expect(full.attempts[0]!.error).toBe('HTTP 500');
      expect(full.attempts[0]!.nextAttemptAt).not.toBeNull();
      expect(full.attempts.every((a) => a.durationMs !== null && a.finishedAt)).toBe(true);
    });

    it('maps statuses to event kinds and honours the endpoint subscription; trial shops get nothing', async () => {
      const { shop } = await seedShop(h);
      const all = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/all') });
      const failedOnly = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/failed'), events: 'slip.failed' });
      const trial = await seedShop(h, { plan: 'TRIAL' });
      await expect(h.c.webhooks.addEndpoint(trial.shop.id, { url: rx.url('/t') })).rejects.toMatchObject({
        statusCode: 403,
        code: 'PLAN_API_ACCESS_REQUIRED',
      });
      // A shop that had webhooks and went back to a plan without them gets no deliveries either.
      const downgraded = await seedShop(h);
      await h.c.webhooks.addEndpoint(downgraded.shop.id, { url: rx.url('/down') });
      await h.c.db.updateTable('shops').set({ plan_code: 'TRIAL' }).where('id', '=', downgraded.shop.id).execute();

      worker = startWorker();
      await insertResult(h, shop.id, { status: 'SUCCESS' });
      await insertResult(h, shop.id, { status: 'DUPLICATE' });
      await insertResult(h, shop.id, { status: 'FRAUD' });
      await insertResult(h, downgraded.shop.id, { status: 'SUCCESS' });
      await rx.waitFor(4);
      await until(
        async () => (await h.c.db.selectFrom('outbox').select('id').where('status', '=', 'pending').execute()).length === 0 || null,
      );
      const kinds = (path: string) =>
        rx.received
          .filter((r) => r.path === path)
          .map((r) => JSON.parse(r.body).event)
          .sort();
      expect(kinds('/all')).toEqual(['slip.duplicate', 'slip.failed', 'slip.verified']);
      expect(kinds('/failed')).toEqual(['slip.failed']);
      expect(kinds('/down')).toEqual([]);
      expect((await deliveriesOf(all.endpoint.id)).length).toBe(3);
      expect((await deliveriesOf(failedOnly.endpoint.id)).length).toBe(1);
    });

    it('a result whose record or shop is gone completes with no delivery (not retried); the job runs through the services', async () => {
      const { shop } = await seedShop(h);
      const { endpoint } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/gone') });
      const gone = await insertResult(h, shop.id, { status: 'SUCCESS' });
      await h.c.db.deleteFrom('transactions').where('id', '=', gone.id).execute();
      const erased = await seedShop(h);
      const erasedEndpoint = await h.c.webhooks.addEndpoint(erased.shop.id, { url: rx.url('/erased') });
      await insertResult(h, erased.shop.id, { status: 'SUCCESS' });
      await h.c.shops.softDelete(erased.shop.id, new Date().toISOString());
      const w = createOutboxWorker({ db: h.c.db, caps: h.c.caps, clock: h.c.clock, handlers: h.c.outboxHandlers });
      expect(await w.runOnce()).toBeGreaterThanOrEqual(2);
      const jobs = await h.c.db
        .selectFrom('outbox')
        .select(['status', 'attempts', 'last_error'])
        .where('kind', '=', 'result.created')
        .where('shop_id', 'in', [shop.id, erased.shop.id])
        .execute();
      expect(jobs).toHaveLength(2);
      for (const j of jobs) expect(j).toMatchObject({ status: 'done', attempts: 1, last_error: null });
      expect(await deliveriesOf(endpoint.id)).toEqual([]);
      expect(await deliveriesOf(erasedEndpoint.endpoint.id)).toEqual([]);
    });

    it('a receiver that hangs past the timeout is a failed attempt, retried', async () => {
      const { shop } = await seedShop(h);
      const { endpoint } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/hang') });
      rx.setBehaviour((_r, n, res) => {
        if (n > 1) res.writeHead(204).end(); /* first: never answers */
      });
      worker = startWorker();
      await insertResult(h, shop.id);
      const [d] = await until(async () => {
        const l = await deliveriesOf(endpoint.id);
        return l[0]?.status === 'delivered' ? l : null;
      });
      const full = await h.c.webhooks.getDelivery(shop.id, d!.id);
      expect(full.attempts[0]).toMatchObject({ attempt: 1, status: 'failed', responseCode: null, error: 'timeout after 1500 ms' });
      expect(full.attempts[0]!.durationMs).toBeGreaterThanOrEqual(1400);
      expect(full.attempts[1]).toMatchObject({ attempt: 2, status: 'delivered', responseCode: 204 });
    });

    it('does not follow redirects (3xx fails), honours Retry-After, and 410 disables the endpoint', async () => {
      const { shop } = await seedShop(h);
      const redirect = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/redirect'), events: 'slip.verified' });
      const busy = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/busy'), events: 'slip.verified' });
      const gone = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/gone'), events: 'slip.verified' });
      rx.setBehaviour((r, _n, res) => {
        if (r.path === '/redirect') res.writeHead(302, { location: rx.url('/target') }).end();
        else if (r.path === '/busy') res.writeHead(503, { 'retry-after': '120' }).end();
        else if (r.path === '/gone') res.writeHead(410).end();
        else res.writeHead(200).end();
      });
      worker = startWorker();
      const before = Date.now();
      await insertResult(h, shop.id);
      await until(async () => (await deliveriesOf(gone.endpoint.id))[0]?.status === 'failed' || null);
      // The redirect endpoint is retried (schedule 0 s) 5 times, then failed; its target is never called.
      const [rd] = await until(async () => {
        const l = await deliveriesOf(redirect.endpoint.id);
        return l[0]?.status === 'failed' ? l : null;
      });
      expect(rd).toMatchObject({ attempts: 6, round: 5, last_status_code: 302 });
      expect(rd!.last_error).toMatch(/redirect not followed/);
      expect(rx.received.some((r) => r.path === '/target')).toBe(false);

      const [bd] = await deliveriesOf(busy.endpoint.id);
      expect(bd).toMatchObject({ status: 'retrying', attempts: 1, last_status_code: 503 });
      expect(Date.parse(bd!.next_attempt_at!) - before).toBeGreaterThanOrEqual(120_000);

      const [gd] = await deliveriesOf(gone.endpoint.id);
      expect(gd).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 410 });
      expect(await h.c.webhooks.get(shop.id, gone.endpoint.id)).toMatchObject({ status: 'disabled', disabledReason: 'GONE' });
      expect((await h.c.audit.list(shop.id)).some((a) => a.action === 'webhook.endpoint.disable' && a.target === gone.endpoint.id)).toBe(
        true,
      );
      expect(rx.received.filter((r) => r.path === '/gone')).toHaveLength(1);
    });

    it('gives up after 5 retries, then a manual redelivery sends the same event once more', async () => {
      const { shop } = await seedShop(h);
      const { endpoint, secret } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/down') });
      rx.setBehaviour((_r, _n, res) => {
        res.writeHead(500).end();
      });
      worker = startWorker();
      await insertResult(h, shop.id);
      const [d] = await until(async () => {
        const l = await deliveriesOf(endpoint.id);
        return l[0]?.status === 'failed' ? l : null;
      });
      expect(d).toMatchObject({ attempts: 6, round: 5 });
      expect(rx.received).toHaveLength(6);
      await expect(h.c.webhooks.redeliver('shop_other', d!.id)).rejects.toMatchObject({ statusCode: 404 });

      rx.setBehaviour((_r, _n, res) => {
        res.writeHead(200).end();
      });
      const r = await h.c.webhooks.redeliver(shop.id, d!.id, 'user:test');
      expect(r.status).toBe('pending');
      await expect(h.c.webhooks.redeliver(shop.id, d!.id)).rejects.toMatchObject({ statusCode: 409 });
      await until(async () => (await delivery(d!.id)).status === 'delivered' || null);
      expect(rx.received).toHaveLength(7);
      expect(rx.received[6]!.body).toBe(rx.received[0]!.body);
      expect(rx.received.map((x) => x.headers['x-service-attempt'])).toEqual(['1', '2', '3', '4', '5', '6', '7']);
      verifyWebhookSignature(rx.received[6]!.body, rx.received[6]!.headers['x-service-signature'] as string, secret);
      const full = await h.c.webhooks.getDelivery(shop.id, d!.id);
      expect(full.attempts.at(-1)).toMatchObject({ attempt: 7, manual: true, status: 'delivered' });
      expect(full).toMatchObject({ attempt: 7, nextAttemptAt: null });
    });

    it('a delivery whose job the worker parks as failed is marked failed and can be redelivered', async () => {
      const { shop } = await seedShop(h);
      const { endpoint } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/parked') });
      rx.setBehaviour((_r, _n, res) => {
        res.writeHead(200).end();
      });
      // A worker whose delivery handler always crashes, giving up after one claim.
      const broken = createOutboxWorker({
        db: h.c.db,
        caps: h.c.caps,
        clock: h.c.clock,
        maxAttempts: 1,
        onFinalFailure: h.c.outboxFinalFailure,
        handlers: {
          ...h.c.outboxHandlers,
          'webhook.deliver': async () => {
            throw new Error('handler crashed');
          },
        },
      });
      await insertResult(h, shop.id);
      await broken.runOnce(); // the delivery job is adopted and runs right after, not awaited by runOnce
      const [d] = await until(async () => {
        const l = await deliveriesOf(endpoint.id);
        return l[0]?.status === 'failed' ? l : null;
      });
      expect(d).toMatchObject({ status: 'failed' });
      expect(d!.last_error).toContain('handler crashed');
      worker = startWorker();
      await h.c.webhooks.redeliver(shop.id, d!.id, 'user:test');
      await until(async () => (await delivery(d!.id)).status === 'delivered' || null);
      expect(rx.received).toHaveLength(1);
    });

    it('signs with both secrets during a rotation overlap, with one after it', async () => {
      const { shop } = await seedShop(h);
      const { endpoint, secret: oldSecret } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/rot') });
      const rot = await h.c.webhooks.rotateSecret(shop.id, endpoint.id, {}, 'user:test');
      expect(rot.secret).not.toBe(oldSecret);
      expect(Date.parse(rot.previousSecretExpiresAt!) - Date.now()).toBeGreaterThan(23 * 3_600_000);
      const revealed = await h.c.webhooks.revealSecret(shop.id, endpoint.id);
      expect(revealed).toMatchObject({ secret: rot.secret, previousSecret: oldSecret });

      const test = await h.c.webhooks.sendTest(shop.id, endpoint.id);
      expect(test).toMatchObject({ status: 'delivered', test: true });
      const r1 = rx.received.at(-1)!;
      expect(String(r1.headers['x-service-signature']).match(/v1=/g)).toHaveLength(2);
      expect(independentlyValid(r1, oldSecret) && independentlyValid(r1, rot.secret)).toBe(true);
      verifyWebhookSignature(r1.body, r1.headers['x-service-signature'] as string, oldSecret);

      const rot2 = await h.c.webhooks.rotateSecret(shop.id, endpoint.id, { overlapHours: 0 });
      await h.c.webhooks.sendTest(shop.id, endpoint.id);
      const r2 = rx.received.at(-1)!;
      expect(String(r2.headers['x-service-signature']).match(/v1=/g)).toHaveLength(1);
      expect(independentlyValid(r2, rot2.secret)).toBe(true);
      expect(() => verifyWebhookSignature(r2.body, r2.headers['x-service-signature'] as string, rot.secret)).toThrow(/No signature/);

      const row = await h.c.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
      expect(row.secret_enc).not.toContain(rot2.secret.slice(6));
      expect(row.secret_enc.startsWith('sb1.')).toBe(true);
      const actions = (await h.c.audit.list(shop.id)).map((a) => a.action);
      expect(actions).toEqual(expect.arrayContaining(['webhook.endpoint.add', 'webhook.secret.rotate']));
    });

    it('a worker killed mid-delivery: the lease is taken back and the round is delivered exactly once', async () => {
      const { shop } = await seedShop(h);
      const { endpoint } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/slow') });
      rx.setBehaviour((_r, n, res) => {
        if (n === 1)
          setTimeout(() => {
            if (!res.destroyed) res.writeHead(200).end();
          }, 5000);
        else res.writeHead(200).end();
      });
      const a = startWorker({ leaseMs: 500, workerId: 'worker-a' });
      await insertResult(h, shop.id);
      await rx.waitFor(1);
      await a.stop({ abandon: true }); // the process "dies": nothing more is written by A
      const [d0] = await deliveriesOf(endpoint.id);
      expect(d0).toMatchObject({ status: 'pending', attempts: 0 });

      // Only A's lease must run out; B's is long, so a slow delivery on a loaded full run is not taken back from B.
      worker = startWorker({ leaseMs: 60_000, workerId: 'worker-b' });
      const [d] = await until(async () => {
        const l = await deliveriesOf(endpoint.id);
        return l[0]?.status === 'delivered' ? l : null;
      });
      expect(rx.received).toHaveLength(2);
      expect(rx.received[1]!.at - rx.received[0]!.at).toBeGreaterThanOrEqual(400); // not before the lease ran out
      expect(rx.received.filter((r) => r.answered)).toHaveLength(1); // delivered once
      expect(new Set(rx.received.map((r) => r.headers['x-service-delivery-id']))).toEqual(new Set([d!.id]));
      const full = await h.c.webhooks.getDelivery(shop.id, d!.id);
      expect(full.attempts.map((x) => [x.attempt, x.status])).toEqual([
        [1, 'lost'],
        [1, 'delivered'],
      ]);
      expect(rx.received.map((x) => x.headers['x-service-attempt'])).toEqual(['1', '1']); // the same round, sent again
      expect(d).toMatchObject({ attempts: 1, round: 0 });
      const job = await h.c.db
        .selectFrom('outbox')
        .selectAll()
        .where('kind', '=', 'webhook.deliver')
        .where('payload', 'like', `%${d!.id}%`)
        .executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'done', attempts: 2 });
    });

    it('retention: finished deliveries older than WEBHOOK_RETENTION_DAYS go with their attempts; scheduled and recent ones stay', async () => {
      const { shop } = await seedShop(h);
      const { endpoint } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/prune') });
      const now = h.c.clock.now().getTime();
      const at = (days: number) => new Date(now - days * 86_400_000).toISOString();
      const old = h.config.WEBHOOK_RETENTION_DAYS + 1;
      const rows = [
        ['whd_prune_old_delivered', 'delivered', old],
        ['whd_prune_old_failed', 'failed', old],
        ['whd_prune_old_retrying', 'retrying', old],
        ['whd_prune_recent', 'delivered', 1],
      ] as const;
      for (const [id, status, days] of rows) {
        await h.c.db
          .insertInto('webhook_deliveries')
          .values({
            id,
            shop_id: shop.id,
            endpoint_id: endpoint.id,
            event_id: `evt_${id}`,
            event_kind: 'slip.verified',
            transaction_id: null,
            payload: '{}',
            is_test: 0,
            status,
            attempts: 1,
            round: 0,
            last_status_code: 200,
            last_error: null,
            last_duration_ms: 5,
            next_attempt_at: null,
            delivered_at: null,
            created_at: at(days),
            updated_at: at(days),
          })
          .execute();
        await h.c.db
          .insertInto('webhook_attempts')
          .values({
            id: `wha_${id}`,
            delivery_id: id,
            shop_id: shop.id,
            endpoint_id: endpoint.id,
            event_id: `evt_${id}`,
            round: 0,
            manual: 0,
            status: 'delivered',
            response_code: 200,
            duration_ms: 5,
            error: null,
            next_attempt_at: null,
            worker_id: null,
            started_at: at(days),
            finished_at: at(days),
          })
          .execute();
      }
      expect(await h.c.webhooks.prune()).toBe(2);
      const left = await h.c.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', endpoint.id)
        .orderBy('id')
        .execute();
      expect(left.map((r) => r.id)).toEqual(['whd_prune_old_retrying', 'whd_prune_recent']);
      const attempts = await h.c.db
        .selectFrom('webhook_attempts')
        .select('delivery_id')
        .where('endpoint_id', '=', endpoint.id)
        .orderBy('delivery_id')
        .execute();
      expect(attempts.map((r) => r.delivery_id)).toEqual(['whd_prune_old_retrying', 'whd_prune_recent']);
    });

    it("is shop-scoped: another shop's endpoint and delivery ids answer 404", async () => {
      const a = await seedShop(h);
      const b = await seedShop(h);
      const { endpoint } = await h.c.webhooks.addEndpoint(a.shop.id, { url: rx.url('/a') });
      const test = await h.c.webhooks.sendTest(a.shop.id, endpoint.id);
      for (const call of [
        () => h.c.webhooks.get(b.shop.id, endpoint.id),
        () => h.c.webhooks.update(b.shop.id, endpoint.id, { description: 'x' }),
        () => h.c.webhooks.disable(b.shop.id, endpoint.id),
        () => h.c.webhooks.delete(b.shop.id, endpoint.id),
        () => h.c.webhooks.revealSecret(b.shop.id, endpoint.id),
        () => h.c.webhooks.rotateSecret(b.shop.id, endpoint.id),
        () => h.c.webhooks.sendTest(b.shop.id, endpoint.id),
        () => h.c.webhooks.redeliver(b.shop.id, test.id),
        () => h.c.webhooks.getDelivery(b.shop.id, test.id),
      ])
        await expect(call()).rejects.toMatchObject({ statusCode: 404 });
      expect(await h.c.webhooks.list(b.shop.id)).toEqual([]);
      expect((await h.c.webhooks.listDeliveries(b.shop.id)).items).toEqual([]);
      expect((await h.c.webhooks.listDeliveries(a.shop.id, { endpointId: endpoint.id })).items.map((d) => d.id)).toEqual([test.id]);
      await h.c.webhooks.delete(a.shop.id, endpoint.id, 'user:test');
      expect(await h.c.webhooks.list(a.shop.id)).toEqual([]);
    });
  });
}
