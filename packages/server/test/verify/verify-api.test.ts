import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSlip, renderNonSlip } from '@slipcheck/sandbox-bank';
import { createHarness, DB_KINDS, type DbKind, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/** A sandbox bank, a harness whose checker is that bank, and a shop with a payee and a live key; set up and torn down around one describe. */
function verifyFixture(kind: DbKind) {
  const f = {} as { h: Harness; bank: Sandbox; s: Awaited<ReturnType<typeof seedShop>> };
  beforeAll(async () => {
    f.bank = await startSandbox();
    f.h = await createHarness(kind, {
      CHECKER: 'sandbox',
      CHECKER_URL: f.bank.url,
      CHECKER_TIMEOUT_MS: '1000',
      CHECKER_DEADLINE_MS: '2500',
      DECODE_THREADS: '1',
    });
    f.s = await seedShop(f.h);
  });
  afterAll(async () => {
    await f.h.close();
    await f.bank.close();
  });
  return Object.assign(f, {
    verify: (image: Buffer | string, headers: Record<string, string> = f.s.auth, query = '', contentType = 'application/octet-stream') =>
      f.h.app.inject({
        method: 'POST',
        url: `/api/v1/verify${query}`,
        headers: { ...headers, 'content-type': contentType },
        payload: image,
      }),
    used: async (shopId = f.s.shop.id) =>
      (await f.h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', shopId).executeTakeFirst())?.used ?? 0,
  });
}

/**
 * 32 bytes of `img` from `from` on whose bytes are varied (at least 16 distinct values): evidence of
 * the image if found in a database file. A flat run (a JPEG with optimised Huffman tables can code a
 * blank area as zero bytes) would also match a page's zero padding, which proves nothing.
 */
function distinctWindow(img: Buffer, from: number): Buffer {
  for (let at = from; at + 32 <= img.length; at++) {
    const w = img.subarray(at, at + 32);
    if (new Set(w).size >= 16) return Buffer.from(w);
  }
  throw new Error('no varied 32-byte run in the image');
}

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`POST /api/v1/verify [${kind}]${skipNote(kind)}`, () => {
    const f = verifyFixture(kind);
    const { verify, used } = f;
    let h: Harness;
    let bank: Sandbox;
    let s: Awaited<ReturnType<typeof seedShop>>;
    beforeAll(() => {
      ({ h, bank, s } = f);
    });

    it('SUCCESS: every field of the record, quota, meta and headers', async () => {
      const t = await bank.register({ amount: 1250.5 });
      const r = await verify(await bank.slip(t.transRef), s.auth, '?amount=1250.50&clientRef=order-1001');
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expect(body.success).toBe(true);
      expect(body.data).toMatchObject({
        status: 'SUCCESS',
        verified: true,
        transRef: t.transRef,
        amount: 1250.5,
        bankCode: '014',
        senderName: expect.any(String),
        receiverName: expect.any(String),
        errorCode: null,
        errorMessage: null,
        duplicate: false,
        cached: false,
        environment: 'live',
        source: 'API',
        clientRef: 'order-1001',
        quota: { used: 1, limit: 500, remaining: 499 },
      });
      expect(body.data.transDate).toMatch(/Z$/);
      expect(body.data.latencyMs).toBeGreaterThanOrEqual(0);
      expect(body.meta.requestId).toBe(r.headers['x-request-id']);
      expect(body.meta.timestamp).toMatch(/[+-]\d{2}:\d{2}$/);
      expect(r.headers['x-service-quota-used']).toBe('1');
      expect(r.headers['x-service-quota-remaining']).toBe('499');
      expect(await used()).toBe(1);
      const listed = await h.app.inject({ url: '/api/v1/transactions?clientRef=order-1001', headers: s.auth });
      expect(listed.json().data.items.map((i: { id: string }) => i.id)).toEqual([body.data.id]);
    });

    it('same image again: the earlier record with cached=true and no quota', async () => {
      const t = await bank.register();
      const img = await bank.slip(t.transRef);
      const first = (await verify(img)).json().data;
      const before = await used();
      const calls = (await bank.stats()).checkerCalls;
      const again = await verify(img);
      expect(again.statusCode).toBe(200);
      expect(again.json().data).toMatchObject({ id: first.id, status: 'SUCCESS', verified: true, cached: true });
      expect(await used()).toBe(before);
      expect((await bank.stats()).checkerCalls).toBe(calls);
    });

    it('another image of a verified transRef: DUPLICATE, duplicate=true, verified=false, not charged', async () => {
      const t = await bank.register();
      const first = (await verify(await bank.slip(t.transRef))).json().data;
      const before = await used();
      const r = (await verify(await bank.slip(t.transRef, 'jpeg70', 'jpg'))).json().data;
      expect(r).toMatchObject({ status: 'DUPLICATE', duplicate: true, verified: false, transRef: t.transRef, cached: false });
      // Which payment the slip re-uses: the first SUCCESS's bank data, repeated without asking the checker.
      const { amount, senderName, senderAccount, receiverName, receiverAccount, transDate } = first;
      expect(amount).toBeGreaterThan(0);
      expect(r).toMatchObject({ amount, senderName, senderAccount, receiverName, receiverAccount, transDate });
      expect(await used()).toBe(before);
    });

    it('AMOUNT_MISMATCH when ?amount differs from the bank amount', async () => {
      const t = await bank.register({ amount: 99 });
      const before = await used();
      const r = (await verify(await bank.slip(t.transRef), s.auth, '?amount=100')).json().data;
      expect(r).toMatchObject({ status: 'AMOUNT_MISMATCH', verified: false, amount: 99, errorCode: 'AMOUNT_MISMATCH' });
      expect(await used()).toBe(before + 1); // the checker answered: charged
    });

    it('RECEIVER_MISMATCH when the money went to another account, with advice to add the account', async () => {
      const t = await bank.register({ receiver: { name: 'นาย คนอื่น', account: '9998887771', bankCode: '004' } });
      const before = await used();
      const r = (await verify(await bank.slip(t.transRef))).json().data;
      expect(r.status).toBe('RECEIVER_MISMATCH');
      expect(await used()).toBe(before + 1); // the checker answered: charged
      expect(r.errorMessage).toMatch(/Payee accounts/);
    });

    it('FRAUD when the bank has no such transfer (charged: the checker answered)', async () => {
      const g = await generateSlip({ bankCode: '004' });
      const before = await used();
      const r = (await verify(g.image)).json().data;
      expect(r).toMatchObject({ status: 'FRAUD', verified: false, transRef: g.transfer.transRef });
      expect(await used()).toBe(before + 1);
    });

    it('INVALID with a reason when the image has no slip QR; not charged', async () => {
      const before = await used();
      const blank = (await verify(await renderNonSlip('blank'))).json().data;
      expect(blank).toMatchObject({ status: 'INVALID', errorCode: 'NO_QR_FOUND', transRef: null });
      const pp = (await verify(await renderNonSlip('promptpay'))).json().data;
      expect(pp).toMatchObject({ status: 'INVALID', errorCode: 'NOT_SLIP_QR' });
      expect(await used()).toBe(before);
    });

    it.each([
      ['JSON', JSON.stringify({ image: 'abc' }), 'application/json'],
      ['multipart', '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc\r\n--x--', 'multipart/form-data; boundary=x'],
      ['base64 text', Buffer.from('\x89PNG\r\n\x1a\n').toString('base64'), 'text/plain'],
      ['non-image bytes', Buffer.from('hello world, not an image'), 'application/octet-stream'],
      ['empty body', Buffer.alloc(0), 'application/octet-stream'],
    ])('400 in the envelope for %s, nothing charged', async (_n, payload, type) => {
      const before = await used();
      const r = await verify(payload as Buffer, s.auth, '', type);
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject({ success: false, statusCode: 400, error: 'Bad Request', path: '/api/v1/verify' });
      expect(r.json().message).toMatch(/octet-stream|JPEG|PNG|image/i);
      expect(await used()).toBe(before);
    });

    it('400 for bad query values', async () => {
      for (const q of ['?amount=-1', '?amount=abc', '?amount=1.234', `?clientRef=${'x'.repeat(65)}`, '?clientRef=a%20b', '?foo=1']) {
        const r = await verify(await renderNonSlip('blank'), s.auth, q);
        expect(r.statusCode, q).toBe(400);
      }
    });

    it('413 in the envelope over the size cap', async () => {
      const big = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(10 * 1024 * 1024)]);
      const r = await verify(big);
      expect(r.statusCode).toBe(413);
      expect(r.json()).toMatchObject({ success: false, statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
      // The limit the integrator must meet, not only that it was missed ("Request body is too large").
      expect(r.json().message).toBe('Request body is too large: this route takes at most 10485760 bytes (10 MiB)');
    });

    it('422 NO_PAYEE_CONFIGURED before anything is decoded or charged', async () => {
      const lonely = await seedShop(h, { payee: false });
      const t = await bank.register();
      const calls = (await bank.stats()).checkerCalls;
      const r = await verify(await bank.slip(t.transRef), lonely.auth);
      expect(r.statusCode).toBe(422);
      expect(r.json()).toMatchObject({ success: false, code: 'NO_PAYEE_CONFIGURED', statusCode: 422 });
      expect(await used(lonely.shop.id)).toBe(0);
      expect((await bank.stats()).checkerCalls).toBe(calls);
    });

    it('402 QUOTA_EXCEEDED with code and quota for a live key over the pool; never a 200', async () => {
      const shop = await seedShop(h);
      await h.c.quota.adjust(shop.shop.id, { used: 510 }, 'test'); // STARTER: 500 + free buffer 10
      const t = await bank.register();
      const r = await verify(await bank.slip(t.transRef), shop.auth);
      expect(r.statusCode).toBe(402);
      expect(r.json()).toMatchObject({
        success: false,
        code: 'QUOTA_EXCEEDED',
        statusCode: 402,
        error: 'Payment Required',
        quota: { used: 510, limit: 500, remaining: 0 },
        reason: 'MONTHLY_QUOTA',
      });
      expect(r.headers['x-service-quota-used']).toBe('510');
    });

    it('test keys never touch the shop pool and stop at their cap with 402 TEST_QUOTA_EXCEEDED', async () => {
      const shop = await seedShop(h, { env: 'test' });
      const t = await bank.register();
      const ok = await verify(await bank.slip(t.transRef), shop.auth);
      expect(ok.json().data).toMatchObject({ status: 'SUCCESS', environment: 'test', quota: { used: 1, limit: 200, remaining: 199 } });
      expect(await used(shop.shop.id)).toBe(0);
      await h.c.quota.adjust(shop.shop.id, { testUsed: 200 }, 'test');
      const t2 = await bank.register();
      const over = await verify(await bank.slip(t2.transRef), shop.auth);
      expect(over.statusCode).toBe(402);
      expect(over.json()).toMatchObject({ code: 'TEST_QUOTA_EXCEEDED', quota: { limit: 200, remaining: 0 }, reason: 'TEST_CAP' });
    });

    it('stale slips: reject mode answers INVALID + STALE_SLIP', async () => {
      const h2 = await createHarness(kind, { CHECKER_URL: bank.url, SLIP_STALE_MODE: 'reject', DECODE_THREADS: '1' });
      try {
        const s2 = await seedShop(h2);
        const t = await bank.register({ transDate: new Date(Date.now() - 30 * 3_600_000).toISOString() });
        const r = await h2.app.inject({
          method: 'POST',
          url: '/api/v1/verify',
          headers: { ...s2.auth, 'content-type': 'application/octet-stream' },
          payload: await bank.slip(t.transRef),
        });
        expect(r.json().data).toMatchObject({ status: 'INVALID', errorCode: 'STALE_SLIP', stale: true, verified: false });
      } finally {
        await h2.close();
      }
    });

    it('stale slips: alert mode (default) keeps SUCCESS, marks stale and queues an owner alert', async () => {
      const t = await bank.register({ transDate: new Date(Date.now() - 30 * 3_600_000).toISOString() });
      const r = (await verify(await bank.slip(t.transRef))).json().data;
      expect(r).toMatchObject({ status: 'SUCCESS', stale: true, verified: true });
      const alert = await h.c.db.selectFrom('outbox').select(['payload']).where('kind', '=', 'owner.alert').execute();
      expect(alert.map((a) => JSON.parse(a.payload).transactionId)).toContain(r.id);
    });

    it('the image is never persisted: no run of its bytes in the database files', async () => {
      const t = await bank.register();
      const img = await bank.slip(t.transRef, 'jpeg70', 'jpg');
      const probe = distinctWindow(img, Math.floor(img.length / 2));
      const head = distinctWindow(img, 200);
      expect((await verify(img)).json().data.status).toBe('SUCCESS');
      if (kind === 'sqlite') {
        for (const f of fs.readdirSync(h.dataDir).filter((n) => n.startsWith('slipcheck.db'))) {
          const bytes = fs.readFileSync(path.join(h.dataDir, f));
          expect(bytes.indexOf(probe), f).toBe(-1);
          expect(bytes.indexOf(head), f).toBe(-1);
        }
      }
      const rows = await h.c.db.selectFrom('transactions').selectAll().execute();
      const dump = JSON.stringify(rows) + JSON.stringify(await h.c.db.selectFrom('outbox').selectAll().execute());
      expect(dump).not.toContain(probe.toString('base64'));
      expect(dump).not.toContain(probe.toString('hex'));
    });
  });

  // Provider failures trip the circuit breaker by design, so they get a harness of their own.
  describe.skipIf(pgMissing(kind))(`POST /api/v1/verify provider failures [${kind}]${skipNote(kind)}`, () => {
    const f = verifyFixture(kind);
    const { verify, used } = f;
    let bank: Sandbox;
    beforeAll(() => {
      ({ bank } = f);
    });

    it('PROVIDER_ERROR on checker failure: not charged and never served from the cache', async () => {
      const t = await bank.register({ fault: 'error' });
      const img = await bank.slip(t.transRef);
      const before = await used();
      const r1 = (await verify(img)).json().data;
      expect(r1).toMatchObject({ status: 'PROVIDER_ERROR', verified: false, errorCode: 'PROVIDER_UNAVAILABLE', cached: false });
      // The bank data service answered at once with an error: no claim that it ran out of time.
      expect(r1.errorMessage).not.toMatch(/in time/);
      expect(r1.errorMessage).toMatch(/could not check this slip just now/);
      expect(await used()).toBe(before);
      await fetch(`${bank.url}/transfers/${t.transRef}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fault: null }),
      });
      const r2 = (await verify(img)).json().data;
      expect(r2).toMatchObject({ status: 'SUCCESS', cached: false });
      expect(r2.id).not.toBe(r1.id);
      expect(await used()).toBe(before + 1);
    });

    it('PROVIDER_ERROR with SLIP_PENDING and a retry hint when the bank publishes late', async () => {
      const t = await bank.register({ fault: 'pending' });
      const r = (await verify(await bank.slip(t.transRef))).json().data;
      expect(r).toMatchObject({ status: 'PROVIDER_ERROR', errorCode: 'SLIP_PENDING' });
      expect(r.errorMessage).toMatch(/minute/);
    });

    it('PROVIDER_ERROR when the checker times out', async () => {
      const t = await bank.register({ fault: 'timeout' });
      const r = (await verify(await bank.slip(t.transRef))).json().data;
      expect(r).toMatchObject({ status: 'PROVIDER_ERROR', errorCode: 'PROVIDER_UNAVAILABLE' });
      expect(r.errorMessage).toMatch(/did not answer in time/);
    }, 20_000);

    it('never names the checking provider or its address in answers', async () => {
      const t = await bank.register({ fault: 'error' });
      const r = await verify(await bank.slip(t.transRef));
      const text = JSON.stringify(r.headers) + r.body;
      for (const word of [bank.url, '127.0.0.1:' + bank.port, 'sandbox', 'easyslip', 'slipok', 'checker'])
        expect(text.toLowerCase()).not.toContain(word.toLowerCase());
    });
  });
}
