/**
 * Webhooks as an integrator's receiver sees them, through the real service (outbox worker, sender,
 * signer) and a real HTTP receiver on loopback: signatures checked with the SDK as its README says,
 * answers that fail in each way, the endpoint's life (disable, enable, rotate, delete, plan change)
 * and the body's money. SQLite file, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature, WebhookSignatureError } from '@slipcheck/sdk';
import { createServiceHarness, DB_KINDS, type ServiceHarness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { createOutboxWorker, type OutboxWorker } from '../../src/outbox/outbox-worker.js';
import { startReceiver, until, type Receiver, type Received } from './helpers/receiver.js';
import { insertResult } from './helpers/results.js';

/** The SDK's verify, with the receiver's clock at the time the request arrived; the error code on a refusal. */
function check(r: Received, secrets: string[]): string {
  try {
    verifyWebhookSignature(Buffer.from(r.body, 'utf8'), r.headers['x-service-signature'], secrets, { now: () => r.at });
    return 'ok';
  } catch (e) {
    if (e instanceof WebhookSignatureError) return e.code;
    throw e;
  }
}

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`webhooks seen from the receiver (${kind})${skipNote(kind)}`, () => {
    let h: ServiceHarness;
    let rx: Receiver;
    let worker: OutboxWorker;

    beforeAll(async () => {
      // Retries 2 s apart (jitter adds up to 20 %): long enough to act between two rounds.
      h = await createServiceHarness(kind, { WEBHOOK_RETRY_SCHEDULE: '2,2,2,2,2', WEBHOOK_TIMEOUT_MS: '1500' });
      rx = await startReceiver();
      worker = createOutboxWorker({ db: h.c.db, caps: h.c.caps, clock: h.c.clock, handlers: h.c.outboxHandlers, pollMs: 50 });
      worker.start();
    });
    afterAll(async () => {
      await worker.stop({ abandon: true });
      await rx.close();
      await h.close();
    });
    afterEach(() => {
      rx.received.length = 0;
      rx.setBehaviour((_r, _n, res) => {
        res.writeHead(200).end();
      });
    });

    const deliveriesOf = (endpointId: string) =>
      h.c.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('id').execute();
    const settled = (endpointId: string, n: number) =>
      until(
        async () => {
          const l = await deliveriesOf(endpointId);
          return l.length === n && l.every((d) => !['pending', 'retrying'].includes(d.status)) ? l : null;
        },
        20_000,
        `${n} settled deliveries`,
      );

    it('amounts are the exact baht of the record (8.20, 1,000,000.00, 0.07) in the signed body', async () => {
      const { shop } = await seedShop(h);
      const { endpoint, secret } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/money') });
      for (const amount of [8.2, 1_000_000, 0.07, 1_234_567.89]) await insertResult(h, shop.id, { amount });
      await settled(endpoint.id, 4);
      const amounts = rx.received.map((r) => {
        expect(check(r, [secret])).toBe('ok');
        // The number as written on the wire, not only after parsing.
        return /"amount":([^,]+),/.exec(r.body)![1];
      });
      expect(amounts.sort()).toEqual(['0.07', '1000000', '1234567.89', '8.2']);
    });

    it('a huge 2xx answer, a reset connection and a 2xx whose body never ends: each settles within the timeout, the same event is retried', async () => {
      const { shop } = await seedShop(h);
      const { endpoint } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/odd') });
      rx.setBehaviour((r, _n, res) => {
        const round = Number(r.headers['x-service-attempt']);
        if (r.body.includes('"amount":1,')) {
          // 20 MB of answer: read at most 64 KB of it, and the 2xx counts.
          res.writeHead(200);
          const mb = Buffer.alloc(1 << 20, 97);
          let sent = 0;
          const write = () => {
            while (sent < 20 && res.write(mb)) sent++;
            if (sent < 20) res.once('drain', write);
            else res.end();
          };
          write();
        } else if (round === 1) res.socket?.destroy();
        else {
          res.writeHead(200);
          res.write('{'); // and never ends
        }
      });
      const big = await insertResult(h, shop.id, { amount: 1 });
      const reset = await insertResult(h, shop.id, { amount: 2 });
      const rows = await settled(endpoint.id, 2);
      const byTx = new Map(rows.map((d) => [d.transaction_id, d]));
      expect(byTx.get(big.id)).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(byTx.get(reset.id)).toMatchObject({ status: 'delivered', attempts: 2 });
      const attempts = (await h.c.webhooks.getDelivery(shop.id, byTx.get(reset.id)!.id)).attempts;
      expect(attempts[0]).toMatchObject({ attempt: 1, status: 'failed', responseCode: null });
      expect(attempts[0]!.error).toMatch(/other side closed|ECONNRESET|UND_ERR_SOCKET/);
      // The never-ending body is cut at the timeout, not waited for.
      expect(attempts[1]!.durationMs).toBeLessThan(1500 + 1000);
      const resent = rx.received.filter((r) => r.body.includes(reset.id));
      expect(resent).toHaveLength(2);
      expect(new Set(resent.map((r) => JSON.parse(r.body).id)).size).toBe(1);
      expect(new Set(resent.map((r) => r.headers['x-service-delivery-id'])).size).toBe(1);
    });

    it('rotation: during the overlap a receiver on the old secret and one on the new both verify; rotating again drops the oldest at once', async () => {
      const { shop } = await seedShop(h);
      const { endpoint, secret: first } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/rotate') });
      const { secret: second, previousSecretExpiresAt } = await h.c.webhooks.rotateSecret(shop.id, endpoint.id);
      const overlap = Date.parse(previousSecretExpiresAt!) - h.c.clock.now().getTime();
      expect(overlap).toBeGreaterThan(24 * 3_600_000 - 5_000); // WEBHOOK_SECRET_OVERLAP_HOURS, 24 by default
      expect(overlap).toBeLessThanOrEqual(24 * 3_600_000);
      await insertResult(h, shop.id);
      await settled(endpoint.id, 1);
      const during = rx.received[0]!;
      expect(String(during.headers['x-service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      expect([check(during, [first]), check(during, [second]), check(during, [second, first])]).toEqual(['ok', 'ok', 'ok']);
      // A second rotation inside the overlap keeps only the secret it replaces.
      const { secret: third } = await h.c.webhooks.rotateSecret(shop.id, endpoint.id);
      await insertResult(h, shop.id);
      await settled(endpoint.id, 2);
      const after = rx.received[1]!;
      expect([check(after, [first]), check(after, [second]), check(after, [third])]).toEqual(['NO_MATCHING_SIGNATURE', 'ok', 'ok']);
      // overlapHours 0: the previous secret stops at once (a leaked secret).
      const { secret: fourth } = await h.c.webhooks.rotateSecret(shop.id, endpoint.id, { overlapHours: 0 });
      await insertResult(h, shop.id);
      await settled(endpoint.id, 3);
      const cut = rx.received[2]!;
      expect(String(cut.headers['x-service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect([check(cut, [third]), check(cut, [fourth])]).toEqual(['NO_MATCHING_SIGNATURE', 'ok']);
      // A replayed request is refused by its timestamp, even with the right secret.
      expect(() => verifyWebhookSignature(cut.body, cut.headers['x-service-signature'], fourth, { now: () => cut.at + 301_000 })).toThrow(
        /more than 300 s/,
      );
    });

    it('disable while retrying cancels the pending delivery; events while disabled are not queued; enabling resumes with new events only', async () => {
      const { shop } = await seedShop(h);
      const { endpoint } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/toggle') });
      rx.setBehaviour((_r, _n, res) => {
        res.writeHead(503).end();
      });
      const before = await insertResult(h, shop.id);
      await until(async () => (await deliveriesOf(endpoint.id))[0]?.status === 'retrying');
      await h.c.webhooks.disable(shop.id, endpoint.id);
      const between = await insertResult(h, shop.id);
      const [cancelled] = await settled(endpoint.id, 1);
      expect(cancelled).toMatchObject({
        transaction_id: before.id,
        status: 'cancelled',
        last_error: 'endpoint disabled',
        next_attempt_at: null,
      });
      rx.setBehaviour((_r, _n, res) => {
        res.writeHead(204).end();
      });
      await h.c.webhooks.enable(shop.id, endpoint.id);
      const afterwards = await insertResult(h, shop.id);
      const rows = await settled(endpoint.id, 2);
      expect(rows.map((d) => [d.transaction_id, d.status])).toEqual([
        [before.id, 'cancelled'],
        [afterwards.id, 'delivered'],
      ]);
      expect(rx.received.some((r) => r.body.includes(between.id))).toBe(false);
      // The cancelled one can be sent again by hand, with its event id.
      const again = await h.c.webhooks.redeliver(shop.id, cancelled!.id);
      expect(again.status).toBe('pending');
      await settled(endpoint.id, 2);
      const last = rx.received.at(-1)!;
      expect(JSON.parse(last.body).id).toBe(cancelled!.event_id);
      expect(last.headers['x-service-attempt']).toBe(String(cancelled!.round + 2));
    });

    it('deleting an endpoint with a delivery waiting for its retry: nothing more reaches the receiver', async () => {
      const { shop } = await seedShop(h);
      const { endpoint } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/deleted') });
      rx.setBehaviour((_r, _n, res) => {
        res.writeHead(500).end();
      });
      await insertResult(h, shop.id);
      await until(async () => (await deliveriesOf(endpoint.id))[0]?.status === 'retrying');
      await h.c.webhooks.delete(shop.id, endpoint.id);
      const seen = rx.received.length;
      await new Promise((r) => setTimeout(r, 3000)); // past the retry's time
      expect(rx.received).toHaveLength(seen);
      expect(await deliveriesOf(endpoint.id)).toEqual([]);
    });

    it('a plan without webhooks: retries of earlier events still go, new events make none, and no manual send of any kind', async () => {
      const { shop } = await seedShop(h);
      const { endpoint } = await h.c.webhooks.addEndpoint(shop.id, { url: rx.url('/downgrade') });
      rx.setBehaviour((_r, n, res) => {
        res.writeHead(n === 1 ? 500 : 200).end();
      });
      const paid = await insertResult(h, shop.id);
      await until(async () => (await deliveriesOf(endpoint.id))[0]?.status === 'retrying');
      await h.c.shops.setPlan(shop.id, 'TRIAL', 'test');
      const [done] = await settled(endpoint.id, 1);
      expect(done).toMatchObject({ transaction_id: paid.id, status: 'delivered' });
      await insertResult(h, shop.id);
      await new Promise((r) => setTimeout(r, 500));
      expect(await deliveriesOf(endpoint.id)).toHaveLength(1);
      const seen = rx.received.length;
      await expect(h.c.webhooks.sendTest(shop.id, endpoint.id)).rejects.toMatchObject({
        code: 'PLAN_API_ACCESS_REQUIRED',
        statusCode: 403,
      });
      // Redelivery is a send too: the trial sends no webhooks (it was sent here).
      await expect(h.c.webhooks.redeliver(shop.id, done!.id)).rejects.toMatchObject({ code: 'PLAN_API_ACCESS_REQUIRED', statusCode: 403 });
      await new Promise((r) => setTimeout(r, 300));
      expect(rx.received).toHaveLength(seen);
      expect((await deliveriesOf(endpoint.id))[0]).toMatchObject({ status: 'delivered' });
      // Paid again: the same delivery can be sent again.
      await h.c.shops.setPlan(shop.id, 'STARTER', 'test');
      await h.c.webhooks.redeliver(shop.id, done!.id);
      await rx.waitFor(seen + 1);
      expect(JSON.parse(rx.received.at(-1)!.body).id).toBe(done!.event_id);
    });
  });
}
