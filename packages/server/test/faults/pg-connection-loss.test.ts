import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/db.js';
import { createHarness, type Harness, seedShop, skipReason } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { startReceiver, until } from '../webhooks/helpers/receiver.js';
import { createOwnDatabase, eventually, startService } from './fault-kit.js';

const BASE = process.env.TEST_DATABASE_URL;
const SECRET_KEY = 'fault-test-secret-key-0123456789abcdef';

// PostgreSQL ends connections on a restart, a failover or a proxy's idle-kill. The service (API and
// its inline outbox worker, one pool) must live through it and carry on without a restart.
describe.skipIf(!BASE)(`PostgreSQL backends terminated under a running service${skipReason('TEST_DATABASE_URL')}`, () => {
  let own: Awaited<ReturnType<typeof createOwnDatabase>>;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let seed: Harness;
  let seedHandle: ReturnType<typeof openDatabase>;
  let svc: Awaited<ReturnType<typeof startService>>;
  let shop: Awaited<ReturnType<typeof seedShop>>;

  beforeAll(async () => {
    own = await createOwnDatabase(BASE!);
    bank = await startSandbox();
    rx = await startReceiver();
    const env = { DATABASE_URL: own.url, SECRET_KEY, CHECKER_URL: bank.url, WEBHOOK_ALLOW_PRIVATE: 'true' };
    // The seeding side is an in-process container on the same database; its own pool is hit too.
    seedHandle = openDatabase({ databaseUrl: own.url, dataDir: '/tmp', onConnectionError: () => undefined });
    seed = await createHarness('postgres', env, { dbHandle: seedHandle });
    shop = await seedShop(seed);
    await seed.c.webhooks.addEndpoint(shop.shop.id, { url: rx.url('/hook') });
    // With Redis when the run has one, as a multi-node deployment would (the service's other shared part).
    const redis: Record<string, string> = process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {};
    svc = await startService({
      ...env,
      ...redis,
      DATA_DIR: seed.dataDir,
      WORKER_MODE: 'inline',
      WORKER_POLL_MS: '100',
      SHUTDOWN_GRACE_MS: '0',
    });
  }, 240_000);
  afterAll(async () => {
    if (process.env.FAULT_LOG) (await import('node:fs')).writeFileSync(process.env.FAULT_LOG, svc?.log() ?? '');
    await svc?.stop();
    await seed?.close();
    await seedHandle?.close();
    await rx?.close();
    await bank?.close();
    await own?.drop();
  });

  const verify = async () => {
    const t = await bank.register();
    const img = await bank.slip(t.transRef);
    const r = await fetch(`${svc.url}/api/v1/verify`, {
      method: 'POST',
      headers: { ...shop.auth, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(img),
    });
    return { status: r.status, body: await r.json(), retryAfter: r.headers.get('retry-after') };
  };

  it('keeps answering, and verify, reads and webhooks work again without a restart', async () => {
    // Warm up: the pool holds connections (idle and, during the verifies below, checked out).
    expect((await verify()).body).toMatchObject({ data: { status: 'SUCCESS' } });
    await rx.waitFor(1);

    // Terminate while verifies are in flight, so checked-out clients die mid-query as well as idle ones.
    const inFlight = Array.from({ length: 6 }, () => verify());
    await new Promise((r) => setTimeout(r, 30));
    expect(await own.terminateBackends()).toBeGreaterThan(0);
    const during = await Promise.all(inFlight);
    // Each answer is either a checked slip or the retryable 503 in the envelope, never a 500.
    for (const a of during) {
      if (a.status === 503) expect(a.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
      else expect(a.status).toBe(200);
    }
    // A second wave on the now-idle pool.
    expect(await own.terminateBackends()).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 300));

    expect(svc.alive()).toBe(true);
    expect((await fetch(`${svc.url}/health/liveness`)).status).toBe(200);
    expect(await eventually(async () => (await fetch(`${svc.url}/health`)).status === 200)).toBe(true);

    const after = await verify();
    expect(after.status).toBe(200);
    expect(after.body.data.status).toBe('SUCCESS');
    const list = await fetch(`${svc.url}/api/v1/transactions?limit=50`, { headers: shop.auth });
    expect(list.status).toBe(200);
    expect((await list.json()).data.items.map((x: { id: string }) => x.id)).toContain(after.body.data.id);
    // The outbox worker (same pool) delivers the new record's webhook.
    await until(
      async () => rx.received.some((x) => x.body.includes(after.body.data.id)),
      15_000,
      'the webhook of the record checked after the blip',
    );

    // The in-process pool of the seeding side lived through it too.
    expect(await seed.c.db.selectFrom('shops').select('id').where('id', '=', shop.shop.id).executeTakeFirst()).toBeTruthy();
    expect(svc.alive()).toBe(true);
    expect(svc.log()).toContain('database connection lost');
  }, 120_000);
});
