import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { startService } from './fault-kit.js';

// An 11 MiB body to a 10 MiB limit: the server must let the client finish writing before it answers
// and closes, or the client sees a reset (EPIPE in Node's fetch) instead of the 413. The service runs
// as its own process: in one event loop with the client the race that loses the answer cannot happen.
describe('oversized body', () => {
  let h: Harness;
  let svc: Awaited<ReturnType<typeof startService>>;
  let url: string;
  let port: number;
  let shop: Awaited<ReturnType<typeof seedShop>>;
  const big = Buffer.alloc(11 * 1024 * 1024, 7);
  beforeAll(async () => {
    const SECRET_KEY = 'oversized-test-secret-key-0123456789abcdef';
    h = await createHarness('sqlite', { SECRET_KEY });
    shop = await seedShop(h);
    svc = await startService({ DATA_DIR: h.dataDir, SECRET_KEY, WORKER_MODE: 'off', SHUTDOWN_GRACE_MS: '0', LOG_LEVEL: 'warn' });
    url = svc.url;
    port = Number(new URL(url).port);
  }, 240_000);
  afterAll(async () => {
    await svc?.stop();
    await h?.close();
  });

  const expect413 = (body: unknown) =>
    expect(body).toMatchObject({
      success: false,
      statusCode: 413,
      code: 'PAYLOAD_TOO_LARGE',
      error: 'Payload Too Large',
      path: '/api/v1/verify',
    });

  it('Node fetch reads the 413 envelope every time (20 tries)', async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      try {
        const r = await fetch(`${url}/api/v1/verify`, {
          method: 'POST',
          headers: { ...shop.auth, 'content-type': 'application/octet-stream' },
          body: new Uint8Array(big),
        });
        const body = await r.json();
        expect413(body);
        outcomes.push(String(r.status));
      } catch (e) {
        outcomes.push(`${(e as Error).message} ${String((e as { cause?: { code?: string } }).cause?.code ?? '')}`);
      }
    }
    expect(outcomes).toEqual(Array(20).fill('413'));
  }, 120_000);

  it('a raw socket that writes the whole body reads the 413 envelope', async () => {
    const answer = await new Promise<string>((resolve) => {
      const sock = net.connect(port, '127.0.0.1');
      let text = '';
      sock.on('data', (d) => {
        text += d.toString('utf8');
      });
      sock.on('error', (e) => resolve(`error ${(e as NodeJS.ErrnoException).code}: ${text}`));
      sock.on('close', () => resolve(text));
      sock.write(
        `POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nAuthorization: ${shop.auth.authorization}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${big.length}\r\n\r\n`,
      );
      sock.write(big);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect413(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)));
  });

  it('a chunked body (no Content-Length) past the limit gets the same 413', async () => {
    const r = await fetch(`${url}/api/v1/verify`, {
      method: 'POST',
      headers: { ...shop.auth, 'content-type': 'application/octet-stream' },
      duplex: 'half',
      body: new ReadableStream({
        start(ctl) {
          for (let i = 0; i < 11; i++) ctl.enqueue(new Uint8Array(1024 * 1024));
          ctl.close();
        },
      }),
    } as RequestInit);
    expect(r.status).toBe(413);
    expect413(await r.json());
  });

  it('nothing was charged and the service answers normally afterwards', async () => {
    const used = await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', shop.shop.id).executeTakeFirst();
    expect(used?.used ?? 0).toBe(0);
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });
});
