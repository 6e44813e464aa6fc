import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { createOutboxWorker } from '../../src/outbox/outbox-worker.js';
import { until } from '../webhooks/helpers/receiver.js';
import { insertResult } from '../webhooks/helpers/results.js';
import { createDashHarness, signup, type Owner } from './dash-helpers.js';

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`dashboard webhooks [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let a: Owner;
    let b: Owner;
    let receiver: http.Server;
    let url: string;
    const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const call = (o: Owner, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, payload?: object) =>
      h.app.inject({ method, url: path, headers: o.auth, ...(payload ? { payload } : {}) });

    beforeAll(async () => {
      ({ h } = await createDashHarness(kind));
      receiver = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => {
          body += c;
        });
        req.on('end', () => {
          received.push({ headers: req.headers, body });
          res.writeHead(req.url === '/down' ? 500 : 200).end('ok');
        });
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      a = await signup(h);
      b = await signup(h);
    });
    afterAll(async () => {
      await h.close();
      await new Promise((r) => receiver.close(r));
    });

    it('on TRIAL an endpoint cannot be added; after the plan is paid the whole screen works, shop-scoped', async () => {
      const refused = await call(a, 'POST', '/api/dashboard/webhooks', { url });
      expect(refused.statusCode).toBe(403);
      await h.c.shops.setPlan(a.shopId, 'STARTER', 'operator:cli');
      const add = await call(a, 'POST', '/api/dashboard/webhooks', { url, events: ['slip.verified'], description: 'POS' });
      expect(add.statusCode).toBe(201);
      const { endpoint, secret } = add.json().data;
      expect(secret).toMatch(/^whsec_/);
      expect(endpoint).toMatchObject({ url, events: ['slip.verified'], status: 'enabled' });
      const list = (await call(a, 'GET', '/api/dashboard/webhooks')).json().data.items;
      expect(list).toHaveLength(1);
      expect(JSON.stringify(list)).not.toContain(secret);
      expect((await call(a, 'POST', `/api/dashboard/webhooks/${endpoint.id}/reveal-secret`)).json().data.secret).toBe(secret);
      // another shop sees 404 everywhere
      for (const [m, p] of [
        ['POST', `/api/dashboard/webhooks/${endpoint.id}/reveal-secret`],
        ['POST', `/api/dashboard/webhooks/${endpoint.id}/test`],
        ['DELETE', `/api/dashboard/webhooks/${endpoint.id}`],
        ['GET', `/api/dashboard/webhooks/${endpoint.id}/deliveries`],
      ] as const) {
        const r = await call(b, m, p);
        expect([403, 404], `${m} ${p}`).toContain(r.statusCode);
      }
      expect((await call(b, 'PATCH', `/api/dashboard/webhooks/${endpoint.id}`, { enabled: false })).statusCode).toBe(404);

      const test = await call(a, 'POST', `/api/dashboard/webhooks/${endpoint.id}/test`);
      expect(test.statusCode).toBe(200);
      expect(test.json().data.delivery).toMatchObject({ status: 'delivered', test: true, lastStatusCode: 200 });
      expect(received).toHaveLength(1);
      expect(String(received[0].headers['x-service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}/);
      const deliveries = (await call(a, 'GET', `/api/dashboard/webhooks/${endpoint.id}/deliveries`)).json().data;
      expect(deliveries.items).toHaveLength(1);
      expect((await call(a, 'GET', '/api/dashboard/webhooks/deliveries')).json().data.items).toHaveLength(1);
      const did = deliveries.items[0].id;
      expect((await call(b, 'GET', `/api/dashboard/webhooks/deliveries/${did}`)).statusCode).toBe(404);
      expect((await call(a, 'GET', `/api/dashboard/webhooks/deliveries/${did}`)).json().data.attempts.length).toBeGreaterThan(0);
      expect((await call(a, 'POST', `/api/dashboard/webhooks/${endpoint.id}/deliveries/${did}/redeliver`)).statusCode).toBe(200);

      const rotated = (await call(a, 'POST', `/api/dashboard/webhooks/${endpoint.id}/rotate-secret?overlapHours=0`)).json().data;
      expect(rotated.secret).not.toBe(secret);
      const disabled = await call(a, 'PATCH', `/api/dashboard/webhooks/${endpoint.id}`, { enabled: false });
      expect(disabled.json().data.status).toBe('disabled');
      expect((await call(a, 'PATCH', `/api/dashboard/webhooks/${endpoint.id}`, { events: ['nope'] })).statusCode).toBe(400);
      expect((await call(a, 'DELETE', `/api/dashboard/webhooks/${endpoint.id}`)).json().data).toEqual({ deleted: true });
      const actions = (await call(a, 'GET', '/api/dashboard/audit')).json().data.items.map((e: { action: string }) => e.action);
      expect(actions).toEqual(
        expect.arrayContaining(['webhook.endpoint.add', 'webhook.secret.reveal', 'webhook.secret.rotate', 'webhook.endpoint.delete']),
      );
    });

    it('a failed delivery shows its attempt number and the next attempt time (first retry 5 to 6 minutes later, the schedule starts the 48 h spread)', async () => {
      await h.c.shops.setPlan(a.shopId, 'STARTER', 'operator:cli');
      const add = await call(a, 'POST', '/api/dashboard/webhooks', { url: url.replace('/hook', '/down'), events: ['slip.verified'] });
      const endpointId = add.json().data.endpoint.id as string;
      const worker = createOutboxWorker({ db: h.c.db, caps: h.c.caps, clock: h.c.clock, handlers: h.c.outboxHandlers, pollMs: 50 });
      await insertResult(h, a.shopId, { status: 'SUCCESS' });
      worker.start();
      const item = await until(async () => {
        const items = (await call(a, 'GET', `/api/dashboard/webhooks/${endpointId}/deliveries`)).json().data.items;
        return items[0]?.status === 'retrying' ? items[0] : null;
      });
      await worker.stop();
      const now = h.c.clock.now().getTime(); // the dashboard harness's clock stands still
      expect(item).toMatchObject({ status: 'retrying', attempts: 1, attempt: 1, maxAttempts: 6, lastStatusCode: 500 });
      const wait = Date.parse(item.nextAttemptAt) - now;
      expect(wait).toBeGreaterThanOrEqual(300_000);
      expect(wait).toBeLessThanOrEqual(360_000);
      // The whole list and one delivery answer the same, with the attempt the receiver saw.
      const all = (await call(a, 'GET', '/api/dashboard/webhooks/deliveries?status=retrying')).json().data.items;
      expect(all.find((d: { id: string }) => d.id === item.id)).toMatchObject({ nextAttemptAt: item.nextAttemptAt, attempt: 1 });
      const one = (await call(a, 'GET', `/api/dashboard/webhooks/deliveries/${item.id}`)).json().data;
      expect(one.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 'failed', nextAttemptAt: item.nextAttemptAt })]);
      expect(received.at(-1)!.headers['x-service-attempt']).toBe('1');
      // Still scheduled: a manual redelivery waits for it to finish.
      const early = await call(a, 'POST', `/api/dashboard/webhooks/${endpointId}/deliveries/${item.id}/redeliver`);
      expect(early.statusCode).toBe(409);
    });
  });
}
