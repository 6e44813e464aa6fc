// One shop's receiver that never answers must not hold up every other shop's webhooks. Each send
// holds a worker slot until WEBHOOK_TIMEOUT_MS; before this test, a shop whose endpoint was down
// behind a firewall (no answer, 10 s timeouts) with 115 events in a minute kept another shop's
// webhook 52 s late on a two-node production-like setup (idle: 1-2 s). LINE replies share the slots.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceHarness, DB_KINDS, type ServiceHarness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { createOutboxWorker } from '../../src/outbox/outbox-worker.js';
import { endpointSends, slowEndpointSends } from '../../src/modules/webhooks/webhook-delivery.js';
import { startReceiver, until, type Receiver } from './helpers/receiver.js';
import { insertResult } from './helpers/results.js';

/** A started outbox worker of the harness's handlers with this many slots (polling every 50 ms). */
function startedWorker(h: ServiceHarness, slots: number) {
  const worker = createOutboxWorker({
    db: h.c.db,
    caps: h.c.caps,
    clock: h.c.clock,
    handlers: h.c.outboxHandlers,
    pollMs: 50,
    concurrency: slots,
  });
  worker.start();
  return worker;
}

const TIMEOUT_MS = 1000;
const SLOTS = 4;
const EVENTS_OF_A = 40;

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`a shop's silent webhook receiver (${kind})${skipNote(kind)}`, () => {
    let h: ServiceHarness;
    let silent: Receiver;
    let fast: Receiver;

    beforeAll(async () => {
      // Long retry delays: only first attempts happen during the test.
      h = await createServiceHarness(kind, {
        WEBHOOK_RETRY_SCHEDULE: '600,600,600,600,600',
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        WORKER_CONCURRENCY: String(SLOTS),
      });
      silent = await startReceiver(() => undefined); // never answers
      fast = await startReceiver();
    });
    afterAll(async () => {
      await silent?.close();
      await fast?.close();
      await h?.close();
    });

    it("does not delay another shop's webhook by more than a timeout or two, and still attempts every delivery", async () => {
      const a = await seedShop(h, { name: 'ร้าน A' });
      const b = await seedShop(h, { name: 'ร้าน B' });
      const ea = await h.c.webhooks.addEndpoint(a.shop.id, { url: silent.url('/a') });
      await h.c.webhooks.addEndpoint(b.shop.id, { url: fast.url('/b') });
      for (let i = 0; i < EVENTS_OF_A; i++) await insertResult(h, a.shop.id, { clientRef: `a-${i}` });
      await insertResult(h, b.shop.id, { clientRef: 'b-1' });

      const started = Date.now();
      const worker = startedWorker(h, SLOTS);
      try {
        await fast.waitFor(1, 30_000);
        const late = Date.now() - started;
        // Without a limit: 40 sends of 1 s over 4 slots before B's turn, ~10 s.
        expect(late).toBeLessThan(4 * TIMEOUT_MS);
        expect(fast.received[0]!.body).toContain('"clientRef":"b-1"');
        // Here 2 of the 4 slots; with the default 32 slots, 8: a slow but working receiver keeps some pace.
        expect([slowEndpointSends(SLOTS), slowEndpointSends(32)]).toEqual([2, 8]);

        // A's deliveries are not lost or failed for having waited: each gets its first attempt.
        await until(
          async () => {
            const rows = await h.c.db
              .selectFrom('webhook_deliveries')
              .select(['status'])
              .where('endpoint_id', '=', ea.endpoint.id)
              .execute();
            return rows.length === EVENTS_OF_A && rows.every((r) => r.status === 'retrying');
          },
          60_000,
          "every one of A's deliveries attempted once",
        );
        expect(silent.received.length).toBe(EVENTS_OF_A);
        const attempts = await h.c.db
          .selectFrom('webhook_attempts')
          .select(['delivery_id'])
          .where('endpoint_id', '=', ea.endpoint.id)
          .execute();
        expect(attempts.length).toBe(EVENTS_OF_A);
      } finally {
        await worker.stop({ abandon: true });
      }
    }, 90_000);
  });
}

// The first sends to an endpoint this worker has not heard from yet: before 2026-11-27 they could take
// every slot (its slowness was learnt only when they timed out), so another shop waited one whole
// WEBHOOK_TIMEOUT_MS. An endpoint gets the slow endpoints' share until its first answer in time.
const FIRST_TIMEOUT_MS = 5000;
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`an endpoint not heard from yet (${kind})${skipNote(kind)}`, () => {
    let h: ServiceHarness;
    let silent: Receiver;
    let fast: Receiver;

    beforeAll(async () => {
      h = await createServiceHarness(kind, {
        WEBHOOK_RETRY_SCHEDULE: '600,600,600,600,600',
        WEBHOOK_TIMEOUT_MS: String(FIRST_TIMEOUT_MS),
        WORKER_CONCURRENCY: String(SLOTS),
      });
      silent = await startReceiver(() => undefined); // never answers
      fast = await startReceiver();
    });
    afterAll(async () => {
      await silent?.close();
      await fast?.close();
      await h?.close();
    });

    const startWorker = () => startedWorker(h, SLOTS);

    it('a burst to a new receiver that answers in time is not held back once it has answered', async () => {
      const d = await seedShop(h, { name: 'ร้าน D' });
      await h.c.webhooks.addEndpoint(d.shop.id, { url: fast.url('/d') });
      for (let i = 0; i < 10; i++) await insertResult(h, d.shop.id, { clientRef: `d-${i}` });
      const started = Date.now();
      const worker = startWorker();
      try {
        // Two sends while it is unknown; the rounds put back run as those end, not on their fallback
        // timer of two timeouts (10 s here).
        await until(async () => fast.received.filter((r) => r.path === '/d').length === 10 || null, 30_000, "D's ten webhooks");
        expect(Date.now() - started).toBeLessThan(FIRST_TIMEOUT_MS);
      } finally {
        await worker.stop({ abandon: true });
      }
    }, 60_000);

    it("a burst to a receiver that never answered does not hold another shop's webhook for a timeout", async () => {
      const a = await seedShop(h, { name: 'ร้าน A' });
      const b = await seedShop(h, { name: 'ร้าน B' });
      await h.c.webhooks.addEndpoint(a.shop.id, { url: silent.url('/a') });
      await h.c.webhooks.addEndpoint(b.shop.id, { url: fast.url('/b') });
      for (let i = 0; i < EVENTS_OF_A; i++) await insertResult(h, a.shop.id, { clientRef: `a-${i}` });
      await insertResult(h, b.shop.id, { clientRef: 'b-1' });
      const started = Date.now();
      const worker = startWorker();
      try {
        await fast.waitFor(1, 30_000);
        // Without the limit every slot held a send to A until its first timeout: B came after 5 s (3.1 s with 3 s timeouts).
        expect(Date.now() - started).toBeLessThan(FIRST_TIMEOUT_MS);
        expect(silent.received.length).toBeLessThanOrEqual(slowEndpointSends(SLOTS));
      } finally {
        await worker.stop({ abandon: true });
      }
    }, 60_000);
  });
}

// An endpoint that answered in time and falls silent in the middle of a burst: before any of its sends
// has run half a timeout it is not known to be slow, and the burst's sends filled every slot.
const WIDE_SLOTS = 8;
const SILENT_TIMEOUT_MS = 5000;
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`a receiver that answered in time, then falls silent mid-burst (${kind})${skipNote(kind)}`, () => {
    let h: ServiceHarness;
    let flaky: Receiver;
    let fast: Receiver;
    let steady: Receiver;
    let inFlight = 0;
    let maxInFlight = 0;

    beforeAll(async () => {
      h = await createServiceHarness(kind, {
        WEBHOOK_RETRY_SCHEDULE: '600,600,600,600,600',
        WEBHOOK_TIMEOUT_MS: String(SILENT_TIMEOUT_MS),
        WORKER_CONCURRENCY: String(WIDE_SLOTS),
      });
      flaky = await startReceiver();
      fast = await startReceiver();
      // Answers each request after 800 ms (well within half the timeout), counting requests open at once.
      steady = await startReceiver((_r, _n, res) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        setTimeout(() => {
          inFlight--;
          res.writeHead(200).end('ok');
        }, 800);
      });
    });
    afterAll(async () => {
      await flaky?.close();
      await fast?.close();
      await steady?.close();
      await h?.close();
    });

    const startWorker = () => startedWorker(h, WIDE_SLOTS);

    it('an endpoint that answers in time gets all but the slow endpoints\u2019 quarter of the slots', async () => {
      const c = await seedShop(h, { name: 'ร้าน C' });
      await h.c.webhooks.addEndpoint(c.shop.id, { url: steady.url('/c') });
      const first = startWorker();
      try {
        await insertResult(h, c.shop.id, { clientRef: 'c-first' });
        await steady.waitFor(1, 30_000);
        await until(async () => steady.received[0]?.answered, 10_000, 'the first answer');
      } finally {
        await first.stop();
      }
      // Queued while no worker runs, so the next one finds them all due at once.
      for (let i = 0; i < 12; i++) await insertResult(h, c.shop.id, { clientRef: `c-${i}` });
      const worker = startWorker();
      try {
        await steady.waitFor(13, 30_000);
        expect(maxInFlight).toBe(WIDE_SLOTS - slowEndpointSends(WIDE_SLOTS)); // 6 of 8 here; 24 of the default 32
        expect(endpointSends(32)).toBe(24);
      } finally {
        await worker.stop({ abandon: true });
      }
    }, 60_000);

    it('leaves a quarter of the slots to other shops: their webhook is not held for a timeout', async () => {
      const a = await seedShop(h, { name: 'ร้าน A' });
      const b = await seedShop(h, { name: 'ร้าน B' });
      await h.c.webhooks.addEndpoint(a.shop.id, { url: flaky.url('/a') });
      await h.c.webhooks.addEndpoint(b.shop.id, { url: fast.url('/b') });
      // A's endpoint answers in time: this process knows it as fast.
      const first = startWorker();
      try {
        await insertResult(h, a.shop.id, { clientRef: 'a-first' });
        await until(async () => flaky.received[0]?.answered, 10_000, "A's first answer");
      } finally {
        await first.stop();
      }
      flaky.setBehaviour(() => undefined); // then it falls silent
      // A burst, then B's event, queued while no worker runs: the next one finds them all due at once.
      for (let i = 0; i < 20; i++) await insertResult(h, a.shop.id, { clientRef: `a-${i}` });
      await insertResult(h, b.shop.id, { clientRef: 'b-1' });
      const started = Date.now();
      const worker = startWorker();
      try {
        await fast.waitFor(1, 30_000);
        // Before: all 8 slots held a send to A until its timeout, and B came after 3.1-3.3 s with 3 s timeouts.
        expect(Date.now() - started).toBeLessThan(SILENT_TIMEOUT_MS / 2);
        expect(flaky.received.length - 1).toBeLessThanOrEqual(WIDE_SLOTS - slowEndpointSends(WIDE_SLOTS));
      } finally {
        await worker.stop({ abandon: true });
      }
    }, 60_000);
  });
}
