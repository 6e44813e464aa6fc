import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, seedShop, skipReason } from '../helpers/harness.js';
import type { BusMessage } from '../../src/lib/results-bus.js';

const REDIS = process.env.TEST_REDIS_URL;
if (!REDIS) console.warn('[results-bus-redis] TEST_REDIS_URL not set: the Redis results bus test is SKIPPED');

describe.skipIf(!REDIS)(`Redis results bus: two nodes see each other's results${skipReason('TEST_REDIS_URL')}`, () => {
  let a: Harness;
  let b: Harness;
  beforeAll(async () => {
    a = await createHarness('sqlite', { REDIS_URL: REDIS! });
    b = await createHarness('sqlite', { REDIS_URL: REDIS! });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('a result published on one container reaches subscribers on the other, once, and only for that shop', async () => {
    const { shop } = await seedShop(a);
    const other = await seedShop(a);
    const onA: BusMessage[] = [];
    const onB: BusMessage[] = [];
    const onBOther: BusMessage[] = [];
    const offA = a.c.bus.subscribe(shop.id, (m) => onA.push(m));
    const offB = b.c.bus.subscribe(shop.id, (m) => onB.push(m));
    const offO = b.c.bus.subscribe(other.shop.id, (m) => onBOther.push(m));
    await (b.c.bus as unknown as { ready(): Promise<void> }).ready();
    await (a.c.bus as unknown as { ready(): Promise<void> }).ready();

    await a.c.bus.publish({ shopId: shop.id, type: 'transaction.created', data: { id: 'txn_1' } });
    await b.c.bus.publish({ shopId: shop.id, type: 'owner.alert', data: { type: 'STALE_SLIP' } });
    const deadline = Date.now() + 5000;
    while ((onA.length < 2 || onB.length < 2) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100)); // room for a wrong duplicate to show up
    // Order across nodes is not guaranteed (own messages are local and immediate): compare as sets.
    expect(onA.map((m) => m.type).sort()).toEqual(['owner.alert', 'transaction.created']);
    expect(onB.map((m) => m.type).sort()).toEqual(['owner.alert', 'transaction.created']);
    expect(onB.find((m) => m.type === 'transaction.created')).toEqual({
      shopId: shop.id,
      type: 'transaction.created',
      data: { id: 'txn_1' },
    });
    expect(onBOther).toEqual([]);

    offB();
    await a.c.bus.publish({ shopId: shop.id, type: 'transaction.created', data: { id: 'txn_2' } });
    await new Promise((r) => setTimeout(r, 150));
    expect(onB).toHaveLength(2);
    expect(onA).toHaveLength(3);
    offA();
    offO();
  });
});
