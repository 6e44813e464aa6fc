import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { seedTx } from '../helpers/records.js';

/** n live records a second apart from 2026-11-01, alternating SUCCESS/FRAUD, every third from LINE. */
async function seedTxs(h: Harness, shopId: string, n: number, extra: Record<string, unknown> = {}) {
  const base = Date.parse('2026-11-01T00:00:00Z');
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push(
      await seedTx(h, shopId, new Date(base + i * 1000), i % 2 ? 'SUCCESS' : 'FRAUD', {
        source: i % 3 === 0 ? 'LINE' : 'API',
        trans_ref: `REF${String(i).padStart(9, '0')}`,
        amount_satang: 12345 + i,
        latency_ms: 42,
        client_ref: `order-${i}`,
        ...extra,
      }),
    );
  return ids;
}

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`read endpoints [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let a: Awaited<ReturnType<typeof seedShop>>;
    let b: Awaited<ReturnType<typeof seedShop>>;
    let ids: string[];
    beforeAll(async () => {
      h = await createHarness(kind);
      a = await seedShop(h);
      b = await seedShop(h, { name: 'Other shop' });
      ids = await seedTxs(h, a.shop.id, 7);
      await seedTxs(h, b.shop.id, 2);
    });
    afterAll(async () => h.close());

    it('GET /api/v1/quota answers the quota resource with the four headers', async () => {
      const r = await h.app.inject({ url: '/api/v1/quota', headers: a.auth });
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expect(body.success).toBe(true);
      expect(body.data).toMatchObject({ used: 0, limit: 500, remaining: 500, percentUsed: 0, allowOverage: false, planCode: 'STARTER' });
      expect(body.data.periodMonth).toMatch(/^\d{4}-\d{2}$/);
      expect(r.headers['x-service-quota-limit']).toBe('500');
      expect(r.headers['x-service-quota-used']).toBe('0');
      expect(r.headers['x-service-quota-remaining']).toBe('500');
      expect(Number(r.headers['x-service-quota-reset-days'])).toBe(body.data.daysUntilReset);
      expect(r.headers['x-request-id']).toBeTruthy();
    });

    it('GET /api/v1/me shows shop, key, plan, quota, test quota, rate limits and payees (last 4 only)', async () => {
      const r = await h.app.inject({ url: '/api/v1/me', headers: a.auth });
      expect(r.statusCode).toBe(200);
      const d = r.json().data;
      expect(d.shop).toEqual({ id: a.shop.id, name: a.shop.name });
      expect(d.apiKey).toMatchObject({ environment: 'live', scopes: ['verify', 'read'], prefix: a.key.slice(0, 12) });
      expect(d.plan).toEqual({ code: 'STARTER', name: 'Starter' });
      expect(d.quota).toMatchObject({ limit: 500, overage: 0 });
      expect(d.testQuota).toEqual({ used: 0, limit: 200, remaining: 200 });
      expect(d.rateLimit).toEqual({ perKeyPerMinute: 120, verifyPerMinute: 240 });
      expect(d.payeeAccounts).toEqual([
        { bankCode: '004', kind: 'BANK', holder: 'บจก. ร้านกาแฟ ทดสอบ', accountLast4: '6609', isPrimary: true, status: 'ACTIVE' },
      ]);
      expect(r.body).not.toContain('1234566609');
      expect(r.body).not.toContain(a.key);
    });

    it('an unknown query parameter is 400 VALIDATION_ERROR naming it on every public route, /quota and /me included', async () => {
      // /quota, /me and /transactions/:id answered 200 and ignored it, while /verify and /transactions
      // refused it: a typo (?enviroment=test) looked accepted on some routes and not on others.
      for (const [method, url] of [
        ['GET', '/api/v1/quota?foo=1'],
        ['GET', '/api/v1/me?foo=1'],
        ['GET', `/api/v1/transactions/${ids[0]}?foo=1`],
        ['GET', '/api/v1/transactions?foo=1'],
        ['POST', '/api/v1/verify?foo=1'],
      ] as const) {
        const r = await h.app.inject({
          method,
          url,
          headers: { ...a.auth, 'content-type': 'application/octet-stream' },
          ...(method === 'POST' ? { payload: Buffer.from([0xff, 0xd8, 0xff, 0x00]) } : {}),
        });
        expect(r.statusCode, url).toBe(400);
        expect(r.json(), url).toMatchObject({
          success: false,
          error: 'Bad Request',
          statusCode: 400,
          code: 'VALIDATION_ERROR',
          path: url.split('?')[0],
          message: expect.stringMatching(/^Invalid querystring field "foo": /),
        });
      }
      // The refusal says what the route takes, so a misspelt name is found at once.
      const typo = await h.app.inject({ url: '/api/v1/transactions?clientref=x', headers: a.auth });
      expect(typo.json().message).toContain('clientRef');
      expect((await h.app.inject({ url: '/api/v1/quota?x=1', headers: a.auth })).json().message).toContain('no query parameters');
      expect(await h.c.db.selectFrom('transactions').select('id').where('shop_id', '=', a.shop.id).execute()).toHaveLength(ids.length);
      // Without the parameter the same calls answer as before.
      for (const url of ['/api/v1/quota', '/api/v1/me', `/api/v1/transactions/${ids[0]}`])
        expect((await h.app.inject({ url, headers: a.auth })).statusCode, url).toBe(200);
    });

    it('a wrong value is told in words the integrator can act on: the allowed values, or that it came twice', async () => {
      const say = async (url: string) => {
        const r = await h.app.inject({ url, headers: a.auth });
        expect(r.statusCode, url).toBe(400);
        expect(r.json().code).toBe('VALIDATION_ERROR');
        return r.json().message as string;
      };
      // Not "must be equal to constant" (which constant?) nor "must be equal to one of the allowed values".
      expect(await say('/api/v1/transactions?environment=prod')).toBe('Invalid querystring field "environment": must be one of live, test');
      expect(await say('/api/v1/transactions?limit=5&clientRef=a&clientRef=b')).toBe(
        'Invalid querystring field "clientRef": given more than once; send it once',
      );
    });

    it('a refused value is told in words: not as the regular expression, nor with an example the field refuses', async () => {
      const say = async (url: string, method: 'GET' | 'POST' = 'GET') => {
        const r = await h.app.inject({
          method,
          url,
          headers: { ...a.auth, ...(method === 'POST' ? { 'content-type': 'application/octet-stream' } : {}) },
          ...(method === 'POST' ? { payload: Buffer.from([0x89, 0x50, 0x4e, 0x47]) } : {}),
        });
        expect(r.statusCode, url).toBe(400);
        expect(r.json().code, url).toBe('VALIDATION_ERROR');
        const message = r.json().message as string;
        expect(message, url).not.toContain('must match');
        expect(message, url).not.toContain('^');
        return message;
      };
      // "1,000.00" is how a Thai price is printed; the answer said: must match pattern "^[0-9]{1,9}(\.[0-9]{1,2})?$".
      expect(await say(`/api/v1/verify?amount=${encodeURIComponent('1,000.00')}`, 'POST')).toBe(
        'Invalid querystring field "amount": write THB in digits with at most two decimals, without commas, spaces or a sign (e.g. 8.20 or 1000.00)',
      );
      expect(await say(`/api/v1/verify?clientRef=${encodeURIComponent('ออเดอร์ 42')}`, 'POST')).toBe(
        'Invalid querystring field "clientRef": use printable ASCII only (letters, digits and punctuation such as - _ . / #), no spaces or Thai letters',
      );
      expect(await say('/api/v1/transactions?status=success')).toBe(
        'Invalid querystring field "status": must be one of SUCCESS, DUPLICATE, AMOUNT_MISMATCH, RECEIVER_MISMATCH, INVALID, FRAUD, QUOTA_EXCEEDED, PROVIDER_ERROR, or several of them joined by commas (no spaces)',
      );
      // limit takes whole numbers only: the example once read "for example 50 or 120.50".
      for (const q of ['limit=abc', 'limit=1e2'])
        expect(await say(`/api/v1/transactions?${q}`)).toBe(
          'Invalid querystring field "limit": write a whole number in digits (for example 50)',
        );
      expect(await say('/api/v1/transactions?source=API,%20LINE')).toBe(
        'Invalid querystring field "source": must be one of API, LINE, DASHBOARD, or several of them joined by commas (no spaces)',
      );
      // It said: must match format "date-time", though a date alone is taken too.
      for (const q of ['from=yesterday', 'to=2026-11-27T10:00:00'])
        expect(await say(`/api/v1/transactions?${q}`)).toBe(
          `Invalid querystring field "${q.split('=')[0]}": must be an ISO 8601 instant with its offset (2026-11-27T10:00:00+07:00 or 2026-11-27T03:00:00Z) or a date alone (2026-11-27)`,
        );
    });

    it('lists transactions newest first with cursor pages that neither skip nor repeat', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const r = await h.app.inject({ url: `/api/v1/transactions?limit=3${q}`, headers: a.auth });
        expect(r.statusCode).toBe(200);
        const d = r.json().data;
        seen.push(...d.items.map((i: { id: string }) => i.id));
        cursor = d.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual([...ids].reverse());
    });

    it('filters by status, source, transRef, clientRef and time', async () => {
      const get = async (q: string) => (await h.app.inject({ url: `/api/v1/transactions?${q}`, headers: a.auth })).json().data.items;
      expect((await get('status=SUCCESS')).every((i: { status: string; verified: boolean }) => i.status === 'SUCCESS' && i.verified)).toBe(
        true,
      );
      expect((await get('status=SUCCESS')).length).toBe(3);
      expect((await get('source=LINE')).length).toBe(3);
      expect((await get('transRef=REF000000002')).map((i: { amount: number }) => i.amount)).toEqual([123.47]);
      expect((await get('clientRef=order-4')).length).toBe(1);
      expect((await get('from=2026-11-01T00:00:03Z&to=2026-11-01T00:00:04Z')).length).toBe(2);
    });

    /** A shop with a SUCCESS checked at each instant (`made`, in order), and `get`: the ids a list query answers, sorted. */
    const shopWithRecordsAt = async (name: string, refPrefix: string, at: string[]) => {
      const c = await seedShop(h, { name });
      const made: string[] = [];
      for (const [i, t] of at.entries()) made.push(await seedTx(h, c.shop.id, new Date(t), 'SUCCESS', { trans_ref: `${refPrefix}${i}` }));
      const get = async (q: string) => {
        const r = await h.app.inject({ url: `/api/v1/transactions?${q}`, headers: c.auth });
        expect(r.statusCode, q).toBe(200);
        return r
          .json()
          .data.items.map((i: { id: string }) => i.id)
          .sort();
      };
      return { c, made, get };
    };

    it('a date alone in from/to is a whole Bangkok day (ISO 8601 dates were refused before)', async () => {
      const { c, made, get } = await shopWithRecordsAt('Day shop', 'DAY', [
        '2026-10-31T16:59:59.999Z',
        '2026-10-31T17:00:00.000Z',
        '2026-11-01T16:59:59.999Z',
        '2026-11-01T17:00:00.000Z',
      ]);
      // 1 November in Bangkok runs from 31 October 17:00 UTC through 1 November 16:59:59.999 UTC.
      expect(await get('from=2026-11-01&to=2026-11-01')).toEqual([made[1], made[2]].sort());
      expect(await get('from=2026-11-01')).toEqual([made[1], made[2], made[3]].sort());
      expect(await get('to=2026-10-31')).toEqual([made[0]]);
      // A range that ends before it starts (from and to swapped) is refused as the export refuses it:
      // an empty 200 read as "no payments in that period" to a reconciliation job.
      for (const q of ['from=2026-11-02&to=2026-11-01', 'from=2026-11-01T10:00:00Z&to=2026-11-01T09:59:59Z']) {
        const r = await h.app.inject({ url: `/api/v1/transactions?${q}`, headers: c.auth });
        expect(r.statusCode, q).toBe(400);
        expect(r.json(), q).toMatchObject({ success: false, code: 'INVALID_RANGE', message: expect.stringContaining('from') });
      }
      expect(await get('from=2026-11-01T17:00:00Z&to=2026-11-01T17:00:00Z')).toEqual([made[3]]); // one instant is a range
      for (const q of ['from=2026-13-01', 'to=2026-11-31', 'from=2026-1-1']) {
        const r = await h.app.inject({ url: `/api/v1/transactions?${q}`, headers: c.auth });
        expect(r.statusCode, q).toBe(400);
        expect(r.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
      }
    });

    it('every instant the date-time format accepts is read, not a 500: an hour-only offset and a leap second', async () => {
      const { made, get } = await shopWithRecordsAt('Instant shop', 'INST', [
        '2026-11-01T02:59:59.999Z',
        '2026-11-01T03:00:00.000Z',
        '2026-12-31T23:59:59.999Z',
        '2027-01-01T00:00:00.000Z',
      ]);
      // RFC 3339's offset may be hours alone (+07 is +07:00): JavaScript's Date read it as Invalid Date.
      expect(await get(`from=${encodeURIComponent('2026-11-01T10:00:00+07')}&to=2026-11-30`)).toEqual([made[1]]);
      expect(await get(`to=${encodeURIComponent('2026-11-01T09:59:59.999+07')}`)).toEqual([made[0]]);
      // A leap second (23:59:60 UTC, which the format allows) is the second after 23:59:59.
      expect(await get('from=2026-12-31T23:59:60Z')).toEqual([made[3]]);
      expect(await get('from=2026-12-31T23:59:59Z&to=2026-12-31T23:59:60Z')).toEqual([made[2], made[3]].sort());
      expect(await get(`to=${encodeURIComponent('2027-01-01T06:59:60+07:00')}&from=2026-12-01`)).toEqual([made[2], made[3]].sort());
      // Past the year 9999 nothing was recorded (its text once sorted before every createdAt: all rows).
      for (const q of ['from=9999-12-31T23:59:60Z', `from=${encodeURIComponent('9999-12-31T23:30:00-01:00')}`])
        expect(await get(q)).toEqual([]);
    });

    it.each([
      ['limit=0'],
      ['limit=101'],
      ['limit=abc'],
      ['status=PAID'],
      ['source=FAX'],
      ['from=yesterday'],
      ['cursor=not-a-cursor'],
      ['bogus=1'],
    ])('rejects %s with 400 in the envelope', async (q) => {
      const r = await h.app.inject({ url: `/api/v1/transactions?${q}`, headers: a.auth });
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject({ success: false, error: 'Bad Request', statusCode: 400, path: '/api/v1/transactions' });
      expect(r.headers['x-service-quota-limit']).toBe('500');
    });

    it("GET /transactions/:id answers 404 identically for a missing id and another shop's id", async () => {
      const own = await h.app.inject({ url: `/api/v1/transactions/${ids[0]}`, headers: a.auth });
      expect(own.statusCode).toBe(200);
      expect(own.json().data).toMatchObject({ id: ids[0], transRef: 'REF000000000', cached: false, environment: 'live' });
      const other = await h.app.inject({ url: `/api/v1/transactions/${ids[0]}`, headers: b.auth });
      const missing = await h.app.inject({ url: `/api/v1/transactions/txn_doesnotexist`, headers: b.auth });
      expect(other.statusCode).toBe(404);
      expect(missing.statusCode).toBe(404);
      const strip = (x: Record<string, unknown>) => ({ ...x, path: '', requestId: '', timestamp: '' });
      expect(strip(other.json())).toEqual(strip(missing.json()));
      expect(other.json().message).toBe(missing.json().message);
    });

    it('GET /transactions/:id answers an id no record can have (over 64 characters, any length the URL takes) with the same 404', async () => {
      const missing = await h.app.inject({ url: `/api/v1/transactions/txn_doesnotexist`, headers: a.auth });
      expect(missing.statusCode).toBe(404);
      const strip = (x: Record<string, unknown>) => ({ ...x, path: '', requestId: '', timestamp: '' });
      // 65 characters, an own id with one more, a huge one (past the router's old 8192 bound), Thai text.
      for (const id of ['x'.repeat(65), `${ids[0]}${'0'.repeat(65 - ids[0].length)}`, 'a'.repeat(12_000), 'ก'.repeat(100)]) {
        const r = await h.app.inject({ url: `/api/v1/transactions/${encodeURIComponent(id)}`, headers: a.auth });
        expect(r.statusCode, `${id.length} characters`).toBe(404);
        expect(strip(r.json())).toEqual(strip(missing.json()));
        expect(r.headers['x-service-quota-limit']).toBe('500');
      }
      // Still a key first: without one it is the 401, whatever the id.
      expect((await h.app.inject({ url: `/api/v1/transactions/${'x'.repeat(65)}` })).statusCode).toBe(401);
      // A control character is refused as anywhere else in a request (400), never a 500.
      const nul = await h.app.inject({ url: `/api/v1/transactions/${'x'.repeat(70)}%00`, headers: a.auth });
      expect(nul.statusCode).toBe(400);
      expect(nul.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    });
  });
}
