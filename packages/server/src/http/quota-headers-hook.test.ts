import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuthenticatedKey } from '../modules/api-keys/api-key-service.js';
import type { QuotaService } from '../modules/quota/quota-service.js';
import { quotaHeadersHook } from './api-auth.js';

// The hook is a callback hook (no promise per request): each of its three ways out must call done, or
// the answer would never leave. A route stands in for authentication by setting req.apiAuth.
const auth = { shop: { id: 'shop_1' }, plan: { code: 'BUSINESS' } } as unknown as AuthenticatedKey;
const apps: ReturnType<typeof Fastify>[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

function appWith(snapshot: () => Promise<unknown>, opts: { authenticated: boolean; known?: boolean }) {
  const app = Fastify();
  apps.push(app);
  let reads = 0;
  const quota = {
    snapshot: () => {
      reads++;
      return snapshot();
    },
  } as unknown as QuotaService;
  app.addHook('onSend', quotaHeadersHook({ quota }));
  app.get('/x', async (req) => {
    if (opts.authenticated) req.apiAuth = auth;
    if (opts.known) req.quotaHeaders = { limit: 10, used: 3, remaining: 7, resetDays: 2 };
    return { ok: true };
  });
  return { app, reads: () => reads };
}

describe('quotaHeadersHook', () => {
  it('sets the headers from the quota the handler left, without reading it', async () => {
    const { app, reads } = appWith(async () => ({}), { authenticated: true, known: true });
    const r = await app.inject('/x');
    expect(r.statusCode).toBe(200);
    expect(r.headers['x-service-quota-used']).toBe('3');
    expect(r.headers['x-service-quota-reset-days']).toBe('2');
    expect(reads()).toBe(0);
  });

  it('reads the quota when the handler did not leave it', async () => {
    const { app, reads } = appWith(async () => ({ limit: 500, used: 12, remaining: 488, daysUntilReset: 5 }), { authenticated: true });
    const r = await app.inject('/x');
    expect(r.headers['x-service-quota-limit']).toBe('500');
    expect(r.headers['x-service-quota-remaining']).toBe('488');
    expect(reads()).toBe(1);
  });

  it('answers without the headers when the quota cannot be read (a database blip), and does not hang', async () => {
    const { app } = appWith(() => Promise.reject(new Error('database is down')), { authenticated: true });
    const r = await app.inject('/x');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ ok: true });
    expect(r.headers['x-service-quota-limit']).toBeUndefined();
  });

  it('adds nothing to an answer without authentication', async () => {
    const { app, reads } = appWith(async () => ({}), { authenticated: false });
    const r = await app.inject('/x');
    expect(r.headers['x-service-quota-limit']).toBeUndefined();
    expect(reads()).toBe(0);
  });
});
