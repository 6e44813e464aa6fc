import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { sleep } from './fault-kit.js';

// Slow clients over a real socket, with the timeouts scaled down (the defaults are 20 s for headers
// and 120 s for the whole request; here 1 s and 4 s). A sender that drips a byte at a time is cut
// off; a steady upload that needs less than the request timeout passes.
const HEADERS_MS = 1000;
const REQUEST_MS = 4000;

interface Exchange {
  answer: string;
  sentBodyBytes: number;
  closedAt: number;
  startedAt: number;
}

/** Sends `head`, then the body in `chunks` pieces every `everyMs`, reading until the server closes. */
function exchange(port: number, head: string, body: Buffer, chunks: number, everyMs: number): Promise<Exchange> {
  return new Promise((resolve) => {
    const startedAt = Date.now();
    const sock = net.connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    let closed = false;
    sock.on('data', (d) => {
      answer += d.toString('utf8');
    });
    sock.on('error', () => undefined);
    sock.on('close', () => {
      closed = true;
      resolve({ answer, sentBodyBytes: sent, closedAt: Date.now(), startedAt });
    });
    sock.write(head);
    const size = Math.ceil(body.length / chunks);
    void (async () => {
      while (sent < body.length && !closed) {
        await sleep(everyMs);
        if (closed) break;
        const piece = body.subarray(sent, sent + size);
        sent += piece.length;
        sock.write(piece);
      }
    })();
  });
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

// The cases run at the same time (describe.concurrent) on one server, each on its own socket and shop:
// every one of them waits on the clock (the drips and the timeouts), about 12 s one after the other.
describe.concurrent('slow clients', () => {
  let h: Harness;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let port: number;
  let shop: Awaited<ReturnType<typeof seedShop>>;
  beforeAll(async () => {
    bank = await startSandbox();
    h = await createHarness('sqlite', {
      CHECKER_URL: bank.url,
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    });
    shop = await seedShop(h);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await h.close();
    await bank.close();
  });

  const head = (path: string, headers: Record<string, string>, length: number) =>
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: ${length}\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`;

  const expectCutOff = (expect: ExpectStatic, x: Exchange, total: number, path: string) => {
    // Closed by the server long before the body could have been sent at this pace, and not before the bound.
    expect(x.sentBodyBytes).toBeLessThan(total);
    expect(x.closedAt - x.startedAt).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(statusOf(x.answer)).toBe(408);
    expect(bodyOf(x.answer)).toMatchObject({ success: false, statusCode: 408, code: 'REQUEST_TIMEOUT', error: 'Request Timeout', path });
  };

  it('POST /api/v1/verify: headers, then a byte every so often, is answered 408 and closed', async ({ expect }) => {
    const body = Buffer.alloc(1000, 1);
    const x = await exchange(
      port,
      head('/api/v1/verify', { ...shop.auth, 'content-type': 'application/octet-stream' }, body.length),
      body,
      body.length,
      300,
    );
    expectCutOff(expect, x, body.length, '/api/v1/verify');
    const used = await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', shop.shop.id).executeTakeFirst();
    expect(used?.used ?? 0).toBe(0);
  });

  it('raw Thai text in the query (curl as typed) is answered 400 VALIDATION_ERROR saying to percent-encode, with the path', async ({
    expect,
  }) => {
    const body = Buffer.alloc(10, 1);
    const x = await exchange(
      port,
      head('/api/v1/verify?clientRef=ออเดอร์-1', { ...shop.auth, 'content-type': 'application/octet-stream' }, body.length),
      body,
      1,
      1,
    );
    expect(statusOf(x.answer)).toBe(400);
    expect(bodyOf(x.answer)).toMatchObject({
      success: false,
      statusCode: 400,
      code: 'VALIDATION_ERROR',
      path: '/api/v1/verify',
      message: expect.stringContaining('percent-encoded'),
    });
  });

  it('POST /api/dashboard/auth/login (no auth needed): the same drip is answered 408 and closed', async ({ expect }) => {
    const body = Buffer.from(JSON.stringify({ email: 'nobody@example.com', password: 'x'.repeat(40) }));
    const x = await exchange(
      port,
      head('/api/dashboard/auth/login', { 'content-type': 'application/json' }, body.length),
      body,
      body.length,
      300,
    );
    expectCutOff(expect, x, body.length, '/api/dashboard/auth/login');
  });

  it('headers dripped a byte at a time are cut off by the headers timeout', async ({ expect }) => {
    const x = await new Promise<{ answer: string; sent: number; total: number }>((resolve) => {
      const text = head('/api/dashboard/auth/login', { 'content-type': 'application/json', 'x-filler': 'a'.repeat(200) }, 2);
      const sock = net.connect(port, '127.0.0.1');
      let answer = '';
      let i = 0;
      sock.on('data', (d) => {
        answer += d.toString('utf8');
      });
      sock.on('error', () => undefined);
      sock.on('close', () => {
        clearInterval(t);
        resolve({ answer, sent: i, total: text.length });
      });
      const t = setInterval(() => {
        if (i < text.length) sock.write(text[i++]);
      }, 100);
    });
    expect(x.sent).toBeLessThan(x.total);
    expect(statusOf(x.answer)).toBe(408);
    expect(bodyOf(x.answer)).toMatchObject({ success: false, code: 'REQUEST_TIMEOUT' });
  });

  it('a steady slow upload that fits in the request timeout is checked (a slip over a slow phone link)', async ({ expect }) => {
    const own = await seedShop(h); // its charged unit stays off the shop whose drip must charge nothing
    const t = await bank.register();
    const img = await bank.slip(t.transRef);
    // 12 pieces over ~40% of the request timeout: the 10 MiB-at-1-Mbit/s case is ~70% of the 120 s default.
    const x = await exchange(
      port,
      head('/api/v1/verify', { ...own.auth, 'content-type': 'application/octet-stream' }, img.length),
      img,
      12,
      Math.floor((REQUEST_MS * 0.4) / 12),
    );
    expect(x.sentBodyBytes).toBe(img.length);
    expect(statusOf(x.answer)).toBe(200);
    expect(bodyOf(x.answer)).toMatchObject({ success: true, data: { status: 'SUCCESS' } });
  });

  it('a slow login within the bound gets its ordinary answer, not 408', async ({ expect }) => {
    const body = Buffer.from(JSON.stringify({ email: 'nobody@example.com', password: 'x'.repeat(40) }));
    const x = await exchange(
      port,
      head('/api/dashboard/auth/login', { 'content-type': 'application/json' }, body.length),
      body,
      8,
      Math.floor((REQUEST_MS * 0.4) / 8),
    );
    expect(x.sentBodyBytes).toBe(body.length);
    expect(statusOf(x.answer)).toBe(401);
  });
});
