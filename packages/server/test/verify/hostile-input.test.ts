import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DB_KINDS, pgMissing, skipNote } from '../helpers/harness.js';
import { shopVerifyKit } from '../helpers/bank-harness.js';
import { countRecords } from '../helpers/records.js';

const STATUSES = ['SUCCESS', 'DUPLICATE', 'AMOUNT_MISMATCH', 'RECEIVER_MISMATCH', 'INVALID', 'FRAUD', 'PROVIDER_ERROR'];

// Bad input gets a clear answer in the envelope and changes nothing it should not.
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`hostile input on the public API [${kind}]${skipNote(kind)}`, () => {
    const k = shopVerifyKit(kind);
    const { verify, used } = k;

    it('random bytes behind a JPEG or PNG signature: INVALID, nothing charged, the service keeps answering', async () => {
      const before = await used();
      for (let i = 0; i < 40; i++) {
        const magic = i % 2 ? Buffer.from([0xff, 0xd8, 0xff, 0xe0]) : Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
        const r = await verify(Buffer.concat([magic, randomBytes(1 + Math.floor(Math.random() * 5000))]));
        expect(r.statusCode).toBe(200);
        expect(r.json().data).toMatchObject({ status: 'INVALID', verified: false });
        expect(['UNREADABLE_IMAGE', 'NO_QR_FOUND']).toContain(r.json().data.errorCode);
      }
      expect(await used()).toBe(before);
      expect((await k.h.app.inject({ url: '/health' })).statusCode).toBe(200);
    });

    it('a Content-Encoding on the image: 400 naming it, nothing checked or charged (gzip was "not an image", br was ignored)', async () => {
      const { gzipSync } = await import('node:zlib');
      const t = await k.bank.register();
      const png = await k.bank.slip(t.transRef);
      const before = await used();
      for (const [encoding, payload] of [
        ['gzip', gzipSync(png)],
        ['br', png],
        ['deflate, gzip', png],
      ] as const) {
        const r = await k.h.app.inject({
          method: 'POST',
          url: '/api/v1/verify',
          headers: { ...k.s.auth, 'content-type': 'application/octet-stream', 'content-encoding': encoding },
          payload,
        });
        expect(r.statusCode, encoding).toBe(400);
        expect(r.json()).toMatchObject({ success: false, code: 'INVALID_IMAGE', message: expect.stringContaining('Content-Encoding') });
      }
      expect(await used()).toBe(before);
      const plain = await k.h.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        headers: { ...k.s.auth, 'content-type': 'application/octet-stream', 'content-encoding': 'identity' },
        payload: png,
      });
      expect(plain.json().data.status).toBe('SUCCESS');
    });

    it('truncated slips answer a valid status and never crash', async () => {
      const t = await k.bank.register();
      const full = await k.bank.slip(t.transRef, 'jpeg70', 'jpg');
      for (const frac of [0.1, 0.3, 0.5, 0.7, 0.9, 0.99]) {
        const r = await verify(full.subarray(0, Math.floor(full.length * frac)));
        expect(r.statusCode, String(frac)).toBe(200);
        expect(STATUSES).toContain(r.json().data.status);
      }
    });

    it('hostile query strings are refused or treated as plain data', async () => {
      const evil = [
        "' OR 1=1 --",
        '"; drop table transactions; --',
        '\u0000',
        '\u202Eevil',
        '🧾'.repeat(20),
        '../../etc/passwd',
        '%00',
        'a'.repeat(5000),
      ];
      for (const [n, v] of evil.entries()) {
        const q = encodeURIComponent(v);
        for (const url of [
          `/api/v1/transactions?transRef=${q}`,
          `/api/v1/transactions?clientRef=${q}`,
          `/api/v1/transactions/${q}`,
          `/api/v1/transactions?cursor=${q}`,
        ]) {
          const r = await k.h.app.inject({ url, headers: k.s.auth });
          expect([200, 400, 404], `${url}`).toContain(r.statusCode);
          if (r.statusCode !== 200) expect(r.json()).toMatchObject({ success: false, statusCode: r.statusCode });
          else expect(r.json().data.items).toEqual([]);
        }
        const r = await verify(Buffer.from([0xff, 0xd8, 0xff, n]), `?clientRef=${q}`); // a new image each time: a replay would answer the earlier record
        const acceptable = /^[\x21-\x7E]{1,64}$/.test(v);
        expect(r.statusCode, v).toBe(acceptable ? 200 : 400);
        if (acceptable) expect(r.json().data).toMatchObject({ status: 'INVALID', clientRef: v });
      }
      expect((await k.h.c.db.selectFrom('transactions').select('id').execute()).length).toBeGreaterThan(0);
    });

    it('a malformed percent-escape in clientRef (%FF, a cut Thai character): 400 naming it; nothing checked, charged or recorded', async () => {
      // The query parser kept an undecodable value as its literal text: the order id "%FF" was stored and
      // echoed in webhooks, so the integrator's own order id never matched its record.
      const t = await k.bank.register({ amount: 120 });
      const png = await k.bank.slip(t.transRef);
      const count = () => countRecords(k.h, k.s.shop.id);
      const [u0, n0, c0] = [await used(), await count(), k.bank.stats().checkerCalls];
      for (const bad of ['%FF', '%E0%B8', 'order-%', 'a%G1', '%C0%AF', '%ED%A0%80']) {
        const r = await verify(png, `?amount=120&clientRef=${bad}`);
        expect(r.statusCode, bad).toBe(400);
        expect(r.json(), bad).toMatchObject({
          success: false,
          statusCode: 400,
          code: 'VALIDATION_ERROR',
          path: '/api/v1/verify',
          message: expect.stringContaining('"clientRef"'),
        });
      }
      // The list filter and the dashboard's list read the same way.
      const l = await k.h.app.inject({ url: '/api/v1/transactions?clientRef=%E0%B8', headers: k.s.auth });
      expect(l.statusCode).toBe(400);
      expect(l.json()).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('"clientRef"') });
      expect([await used(), await count(), k.bank.stats().checkerCalls]).toEqual([u0, n0, c0]);
      // A well-formed escape still decodes: %25FF is the text "%FF", a literal percent written correctly.
      const ok = await verify(png, '?amount=120&clientRef=%25FF');
      expect(ok.statusCode).toBe(200);
      expect(ok.json().data).toMatchObject({ status: 'SUCCESS', clientRef: '%FF' });
    });

    it('a malformed percent-escape in the path (/transactions/%FF): 400 in the spec envelope, not the router bare body', async () => {
      // The router refused it before any hook with {"error","code":"FST_ERR_BAD_URL",...}: no success,
      // path, requestId or timestamp, and a code outside the catalogue, so envelope-reading clients broke.
      for (const url of ['/api/v1/transactions/%FF', '/api/v1/transactions/abc%E0%B8', '/api/dashboard/payees/%C0']) {
        const r = await k.h.app.inject({ url, headers: k.s.auth });
        expect(r.statusCode, url).toBe(400);
        const body = r.json();
        expect(body, url).toEqual({
          success: false,
          error: 'Bad Request',
          message: expect.stringContaining('percent'),
          statusCode: 400,
          code: 'VALIDATION_ERROR',
          path: url,
          requestId: expect.stringMatching(/^req_[0-9a-f]{24}$/),
          timestamp: expect.stringMatching(/\+07:00$/),
        });
        expect(r.headers['x-request-id'], url).toBe(body.requestId);
        expect(String(r.headers['content-type'])).toContain('application/json');
      }
    });

    it('control characters (NUL breaks PostgreSQL text) answer 400 on every route, on both stores', async () => {
      for (const url of ['/api/v1/transactions?transRef=a%00b', '/api/v1/transactions?clientRef=%01x', '/api/v1/transactions/txn%00x']) {
        const r = await k.h.app.inject({ url, headers: k.s.auth });
        expect(r.statusCode, url).toBe(400);
        expect(r.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      }
      expect((await verify(Buffer.from([0xff, 0xd8, 0xff, 0x01]), '?clientRef=a%00b')).statusCode).toBe(400);
    });

    it('oversized headers and query strings get a clean error, not a crash', async () => {
      const r = await k.h.app.inject({ url: `/api/v1/transactions?status=${'SUCCESS,'.repeat(2000)}SUCCESS`, headers: k.s.auth });
      expect([400, 414]).toContain(r.statusCode);
      const longKey = await k.h.app.inject({ url: '/api/v1/quota', headers: { authorization: `Bearer ${'x'.repeat(20000)}` } });
      expect(longKey.statusCode).toBe(401);
    });
  });
}
