import path from 'node:path';
import type { AddressInfo } from 'node:net';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/db.js';
import { createHarness, type Harness, seedShop, skipReason } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { createOwnDatabase, eventually, startRelay } from './fault-kit.js';

const BASE = process.env.TEST_DATABASE_URL;

type Bank = Awaited<ReturnType<typeof startSandbox>>;

async function usedOf(h: Harness, shopId: string) {
  return (await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', shopId).executeTakeFirst())?.used ?? 0;
}

function client(url: string, auth: Record<string, string>) {
  return {
    verify: async (img: Buffer) => {
      const r = await fetch(`${url}/api/v1/verify`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(img),
      });
      return { status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() };
    },
    get: async (p: string) => {
      const r = await fetch(`${url}${p}`, { headers: auth });
      return { status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() };
    },
  };
}

const expect503 = (a: { status: number; retryAfter: string | null; body: unknown }, path: string) => {
  expect(a.status).toBe(503);
  expect(Number(a.retryAfter)).toBeGreaterThan(0);
  expect(a.body).toMatchObject({ success: false, statusCode: 503, code: 'SERVICE_UNAVAILABLE', error: 'Service Unavailable', path });
  expect(JSON.stringify(a.body)).not.toMatch(/ECONNREFUSED|terminated|SQLITE|postgres/i);
};

// The database is unreachable (PostgreSQL behind a relay the test takes down, so new connections are
// refused and pooled ones cut): every route answers the retryable 503, nothing is charged and the
// checker is not asked; readiness is 503 until the database is back, then everything works again.
describe.skipIf(!BASE)(`database unreachable [postgres]${skipReason('TEST_DATABASE_URL')}`, () => {
  let own: Awaited<ReturnType<typeof createOwnDatabase>>;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let bank: Bank;
  let h: Harness;
  let handle: ReturnType<typeof openDatabase>;
  let url: string;
  beforeAll(async () => {
    own = await createOwnDatabase(BASE!);
    const target = new URL(own.url);
    relay = await startRelay({ host: target.hostname, port: Number(target.port || 5432) });
    const viaRelay = new URL(own.url);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(relay.port);
    bank = await startSandbox();
    handle = openDatabase({
      databaseUrl: viaRelay.toString(),
      dataDir: '/tmp',
      connectTimeoutMs: 1000,
      onConnectionError: () => undefined,
    });
    h = await createHarness('postgres', { DATABASE_URL: viaRelay.toString(), CHECKER_URL: bank.url }, { dbHandle: handle });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await relay?.up().catch(() => undefined);
    await h?.close();
    await handle?.close();
    await bank?.close();
    await own?.drop();
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After, charges nothing, /health 503 until it is back', async () => {
    const s = await seedShop(h);
    const api = client(url, s.auth);
    expect((await api.verify(await bank.slip((await bank.register()).transRef))).body.data.status).toBe('SUCCESS');
    const img = await bank.slip((await bank.register()).transRef);
    const calls = (await bank.stats()).checkerCalls;

    await relay.down();
    expect503(await api.verify(img), '/api/v1/verify');
    expect503(await api.get('/api/v1/transactions'), '/api/v1/transactions');
    expect503(await api.get('/api/v1/quota'), '/api/v1/quota');
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(503);
    expect((await health.json()).checks.database.status).toBe('down');
    expect((await fetch(`${url}/health/liveness`)).status).toBe(200);
    expect((await bank.stats()).checkerCalls).toBe(calls);

    await relay.up();
    expect(await eventually(async () => (await fetch(`${url}/health`)).status === 200)).toBe(true);
    const retry = await api.verify(img);
    expect(retry.status).toBe(200);
    expect(retry.body.data).toMatchObject({ status: 'SUCCESS', quota: { used: 2 } });
    expect(await usedOf(h, s.shop.id)).toBe(2);
    expect((await bank.stats()).checkerCalls).toBe(calls + 1);
  }, 90_000);
});

// SQLite: another process holds the write lock past busy_timeout. Reads go on (WAL), so readiness
// stays 200; a request that must write answers the same retryable 503 and changes nothing.
describe('database locked by another writer [sqlite]', () => {
  let bank: Bank;
  let h: Harness;
  let url: string;
  beforeAll(async () => {
    bank = await startSandbox();
    h = await createHarness('sqlite', { CHECKER_URL: bank.url });
    // The service waits busy_timeout (5 s) for the lock, then gives up; 250 ms gives the same answer sooner.
    await sql`pragma busy_timeout = 250`.execute(h.c.db);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await h.close();
    await bank.close();
  });

  it('a verify that cannot write answers 503 SERVICE_UNAVAILABLE, charges nothing, and the retry is checked', async () => {
    const s = await seedShop(h);
    const api = client(url, s.auth);
    const img = await bank.slip((await bank.register()).transRef);
    const other = new SQLite(path.join(h.dataDir, 'slipcheck.db'));
    try {
      other.exec('BEGIN IMMEDIATE');
      expect503(await api.verify(img), '/api/v1/verify');
      expect((await fetch(`${url}/health`)).status).toBe(200);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(await usedOf(h, s.shop.id)).toBe(0);
    const retry = await api.verify(img);
    expect(retry.status).toBe(200);
    expect(retry.body.data).toMatchObject({ status: 'SUCCESS', quota: { used: 1 } });
  }, 90_000);
});
