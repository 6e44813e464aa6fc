import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createMemoryRateLimiter } from '../../src/lib/rate-limiter.js';
import { createHarness, DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';

const strip = (x: Record<string, unknown>) => ({ ...x, requestId: '', timestamp: '' });

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`API keys, scopes, plans and rate limits [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let limiterNow = Date.parse('2026-11-21T10:00:10Z');
    beforeAll(async () => {
      h = await createHarness(kind, { RATE_LIMIT_PER_KEY: '5' }, { rateLimiter: createMemoryRateLimiter(() => limiterNow) });
    });
    afterAll(async () => h.close());

    it('missing, malformed, unknown and revoked keys all answer the same 401', async () => {
      const s = await seedShop(h);
      await h.c.apiKeys.revoke(s.keyId, 'test');
      const cases = [
        undefined,
        'Basic abc',
        'Bearer',
        'Bearer sk_live_short',
        `Bearer sk_live_${'A'.repeat(32)}`,
        `Bearer ${s.key}`,
        `Bearer ${s.key.replace('sk_live_', 'sk_test_')}`,
      ];
      const bodies = [];
      for (const authorization of cases) {
        const r = await h.app.inject({ url: '/api/v1/quota', headers: authorization ? { authorization } : {} });
        expect(r.statusCode, String(authorization)).toBe(401);
        expect(r.headers['x-service-quota-limit']).toBeUndefined();
        bodies.push(strip(r.json()));
      }
      for (const b of bodies) expect(b).toEqual(bodies[0]);
      expect(bodies[0]).toMatchObject({ success: false, error: 'Unauthorized', statusCode: 401, path: '/api/v1/quota' });
    });

    it('a rotated key stops working at once and the new one works', async () => {
      const s = await seedShop(h);
      const rotated = await h.c.apiKeys.rotate(s.keyId, 'test');
      expect((await h.app.inject({ url: '/api/v1/quota', headers: s.auth })).statusCode).toBe(401);
      const ok = await h.app.inject({ url: '/api/v1/me', headers: { authorization: `Bearer ${rotated.key}` } });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().data.apiKey.scopes).toEqual(['verify', 'read']);
    });

    // Keys stored only as hashes: test/services/api-keys.test.ts.

    it.each([
      ['verify', 'GET', '/api/v1/quota', 'read'],
      ['verify', 'GET', '/api/v1/transactions', 'read'],
      ['read', 'POST', '/api/v1/verify', 'verify'],
    ])('a key with scopes %s gets 403 on %s %s', async (scopes, method, url, missing) => {
      const s = await seedShop(h, { scopes });
      const r = await h.app.inject({
        method: method as 'GET',
        url,
        headers: { ...s.auth, 'content-type': 'application/octet-stream' },
        payload: method === 'POST' ? Buffer.from([0xff, 0xd8, 0xff]) : undefined,
      });
      expect(r.statusCode).toBe(403);
      expect(r.json()).toMatchObject({ error: 'Forbidden', message: `API key missing scope(s): ${missing}`, code: 'MISSING_SCOPE' });
      expect(r.headers['x-service-quota-limit']).toBe('500');
    });

    it('a key of a shop whose plan has no API access answers 403 PLAN_API_ACCESS_REQUIRED; trial shops cannot create keys', async () => {
      const s = await seedShop(h);
      await h.c.shops.setPlan(s.shop.id, 'TRIAL', 'test');
      const r = await h.app.inject({ url: '/api/v1/quota', headers: s.auth });
      expect(r.statusCode).toBe(403);
      expect(r.json()).toMatchObject({ code: 'PLAN_API_ACCESS_REQUIRED', statusCode: 403 });
      expect(r.headers['x-service-quota-limit']).toBe('50');
      await expect(h.c.apiKeys.create(s.shop.id, { environment: 'live' }, 'test')).rejects.toMatchObject({
        code: 'PLAN_API_ACCESS_REQUIRED',
        statusCode: 403,
      });
    });

    it('suspended shops are refused with 403', async () => {
      const s = await seedShop(h);
      await h.c.shops.setState(s.shop.id, 'suspended', 'test');
      expect((await h.app.inject({ url: '/api/v1/quota', headers: s.auth })).json()).toMatchObject({
        statusCode: 403,
        code: 'SHOP_SUSPENDED',
      });
    });

    it('429 with Retry-After past the per-key limit, and recovery in the next window', async () => {
      const s = await seedShop(h);
      for (let i = 0; i < 5; i++) expect((await h.app.inject({ url: '/api/v1/quota', headers: s.auth })).statusCode).toBe(200);
      const r = await h.app.inject({ url: '/api/v1/quota', headers: s.auth });
      expect(r.statusCode).toBe(429);
      expect(r.headers['retry-after']).toBe('50');
      expect(r.json()).toMatchObject({ success: false, error: 'Too Many Requests', code: 'RATE_LIMITED', statusCode: 429 });
      const other = await seedShop(h);
      expect((await h.app.inject({ url: '/api/v1/quota', headers: other.auth })).statusCode).toBe(200);
      limiterNow += 60_000;
      expect((await h.app.inject({ url: '/api/v1/quota', headers: s.auth })).statusCode).toBe(200);
    });

    it('unknown routes and wrong methods answer in the envelope', async () => {
      const r = await h.app.inject({ url: '/api/v1/nope' });
      expect(r.statusCode).toBe(404);
      expect(r.json()).toMatchObject({
        success: false,
        error: 'Not Found',
        statusCode: 404,
        path: '/api/v1/nope',
        requestId: expect.any(String),
      });
      expect(r.json().timestamp).toMatch(/\+07:00$/);
      expect(r.headers['x-request-id']).toBe(r.json().requestId);
      const m = await h.app.inject({ method: 'DELETE', url: '/api/v1/quota' });
      expect(m.statusCode).toBe(405);
      expect(m.headers.allow).toBe('GET');
      expect(m.json()).toMatchObject({ success: false, error: 'Method Not Allowed', code: 'METHOD_NOT_ALLOWED', path: '/api/v1/quota' });
      const g = await h.app.inject({ method: 'GET', url: '/api/v1/verify' });
      expect(g.statusCode).toBe(405);
      expect(g.headers.allow).toBe('POST');
      const tx = await h.app.inject({ method: 'PUT', url: '/api/v1/transactions/txn_123' });
      expect(tx.statusCode).toBe(405);
    });

    it('a wrong method with a valid key carries the quota headers; without one, or with a bad one, it carries none', async () => {
      const s = await seedShop(h);
      await h.c.quota.adjust(s.shop.id, { used: 7 }, 'test');
      const quota = await h.app.inject({ url: '/api/v1/quota', headers: s.auth });
      const headersOf = (r: { headers: Record<string, unknown> }) =>
        Object.fromEntries(['limit', 'used', 'remaining', 'reset-days'].map((n) => [n, r.headers[`x-service-quota-${n}`]]));
      expect(headersOf(quota)).toEqual({ limit: '500', used: '7', remaining: '493', 'reset-days': expect.stringMatching(/^\d+$/) });
      for (const [method, url, allow] of [
        ['DELETE', '/api/v1/verify', 'POST'],
        ['PUT', '/api/v1/quota', 'GET'],
        ['POST', '/api/v1/me', 'GET'],
        ['PATCH', '/api/v1/transactions', 'GET'],
        ['DELETE', '/api/v1/transactions/txn_123', 'GET'],
      ] as const) {
        const keyed = await h.app.inject({ method, url, headers: s.auth });
        expect(keyed.statusCode, `${method} ${url}`).toBe(405);
        expect(keyed.headers.allow).toBe(allow);
        expect(keyed.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED', path: url });
        expect(headersOf(keyed), `${method} ${url}`).toEqual(headersOf(quota));
        // The same body whoever asks: the key changes the headers only.
        const bare = await h.app.inject({ method, url });
        const bad = await h.app.inject({ method, url, headers: { authorization: `Bearer sk_live_${'A'.repeat(32)}` } });
        for (const r of [bare, bad]) {
          expect(r.statusCode).toBe(405);
          expect(r.headers.allow).toBe(allow);
          expect(strip(r.json())).toEqual(strip(keyed.json()));
          expect(r.headers['x-service-quota-limit']).toBeUndefined();
          expect(r.headers['x-request-id']).toBe(r.json().requestId);
        }
      }
      // A path served without a key (the OpenAPI document) shows no quota, whoever asks.
      const doc = await h.app.inject({ method: 'POST', url: '/api/v1/openapi.json', headers: s.auth });
      expect(doc.statusCode).toBe(405);
      expect(doc.headers['x-service-quota-limit']).toBeUndefined();
      // A 405 is not a request the key's rate limit counts (the quota read above was one of the 5).
      for (let i = 0; i < 4; i++) expect((await h.app.inject({ url: '/api/v1/quota', headers: s.auth })).statusCode).toBe(200);
    });

    it('health answers at /health* and /v1/health* without auth', async () => {
      for (const p of ['/health', '/health/liveness', '/health/uptime', '/v1/health', '/v1/health/liveness', '/v1/health/uptime']) {
        const r = await h.app.inject({ url: p });
        expect(r.statusCode, p).toBe(200);
        expect(r.json().status).toBe('ok');
      }
      expect((await h.app.inject({ url: '/health' })).json().checks.database.status).toBe('up');
    });

    it('the OpenAPI 3.1 document validates and documents verify, its query and the error envelope', async () => {
      const doc = (await h.app.inject({ url: '/api/v1/openapi.json' })).json();
      const v = new Validator();
      const res = await v.validate(doc);
      expect(res.errors ?? []).toEqual([]);
      expect(res.valid).toBe(true);
      expect(doc.openapi).toBe('3.1.0');
      const verify = doc.paths['/api/v1/verify'].post;
      expect(verify.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['amount', 'clientRef']);
      expect(JSON.stringify(doc)).not.toMatch(/key_hash|account_number|easyslip|slipok/i);
      expect(Object.keys(doc.paths).filter((p) => !/^\/(api\/v1|health|v1\/health)/.test(p))).toEqual([]);
      expect((await h.app.inject({ url: '/api/v1/docs' })).statusCode).toBeLessThan(400);
    });
  });
  // The monthly period in Asia/Bangkok (a new month at Bangkok midnight) is a quota service rule: test/services/quota.test.ts.
}
