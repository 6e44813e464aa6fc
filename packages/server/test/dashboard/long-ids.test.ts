import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { createDashHarness, signup, type Owner } from './dash-helpers.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Every dashboard route with a path parameter, read from the router itself: a route added later is swept too. */
function dashboardParamRoutes(h: Harness): Array<{ method: Method; path: string }> {
  const routes: Array<{ method: Method; path: string }> = [];
  const tree = h.app.printRoutes({ commonPrefix: false });
  let prefix: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[└├]── (\S+)(?: \(([A-Z, ]+)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    prefix = [...prefix.slice(0, depth), m[2]!];
    const path = prefix.join('');
    if (!m[3] || !path.startsWith('/api/dashboard/') || !path.includes(':')) continue;
    for (const method of m[3].split(', ')) if (method !== 'HEAD') routes.push({ method: method as Method, path });
  }
  return routes;
}

/** A body each route accepts, so its answer is about the id and not the payload. */
const BODIES: Record<string, object> = {
  'PATCH /api/dashboard/payees/:id': { holder: 'ร้าน' },
  'PATCH /api/dashboard/webhooks/:id': { description: 'x' },
  'PATCH /api/dashboard/line/groups/:id': { silentNonSlip: true },
};

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`over-long ids on the dashboard's :id routes [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let a: Owner;
    let b: Owner;
    const send = (o: Owner, method: Method, url: string, payload?: object) =>
      h.app.inject({ method, url, headers: o.auth, ...(payload && { payload }) });
    const answer = (r: { statusCode: number; json: () => { code?: string; message?: string } }) => ({
      status: r.statusCode,
      code: r.json().code,
      message: r.json().message,
    });

    beforeAll(async () => {
      ({ h } = await createDashHarness(kind));
      a = await signup(h);
      b = await signup(h);
      for (const o of [a, b]) await h.c.shops.setPlan(o.shopId, 'GROWTH', 'test');
    });
    afterAll(async () => h.close());

    it('every :id route answers an id over 64 characters exactly as an unknown id: 404, not 400', async () => {
      const routes = dashboardParamRoutes(h);
      expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
        expect.arrayContaining([
          'DELETE /api/dashboard/payees/:id',
          'POST /api/dashboard/api-keys/:id/revoke',
          'PATCH /api/dashboard/webhooks/:id',
          'DELETE /api/dashboard/team/members/:id',
          'DELETE /api/dashboard/line/channels/:id',
          'GET /api/dashboard/webhooks/deliveries/:deliveryId',
        ]),
      );
      expect(routes.length).toBeGreaterThanOrEqual(20);
      const mismatches: string[] = [];
      for (const { method, path } of routes) {
        const url = (id: string) => path.replace(/:[A-Za-z]+/g, id);
        const body = BODIES[`${method} ${path}`] ?? (method === 'GET' || method === 'DELETE' ? undefined : {});
        const unknown = answer(await send(a, method, url('zz_unknown_0123456789ab'), body));
        if (unknown.status !== 404) mismatches.push(`${method} ${path}: unknown id -> ${unknown.status} ${unknown.code}`);
        for (const long of ['x'.repeat(65), 'a'.repeat(12_000)]) {
          const got = answer(await send(a, method, url(long), body));
          if (JSON.stringify(got) !== JSON.stringify(unknown))
            mismatches.push(
              `${method} ${path} (${long.length} chars): ${got.status} ${got.code}, unknown id: ${unknown.status} ${unknown.code}`,
            );
        }
      }
      expect(mismatches).toEqual([]);
      // Nothing was written under an id no record can have (no audit entry names one).
      const targets = await h.c.db.selectFrom('audit_log').select('target').where('target', 'is not', null).execute();
      expect(targets.filter((t) => t.target!.length > 64)).toEqual([]);
    });

    it("the same body as for another shop's id: payees, webhooks, API keys, team members, sessions", async () => {
      const created = async (url: string, payload: object) => {
        const r = await send(a, 'POST', url, payload);
        expect(r.statusCode, url).toBe(201);
        return r.json().data as { id?: string; view?: { id: string }; key?: string };
      };
      const payee = await created('/api/dashboard/payees', { bankCode: '004', accountNumber: '1234566609', holder: 'ร้าน' });
      const hook = await created('/api/dashboard/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['slip.verified'] });
      const key = await created('/api/dashboard/api-keys', { environment: 'live' });
      const keyId = key.view?.id ?? key.id!;
      const cases: Array<[Method, (id: string) => string, string, object?]> = [
        ['DELETE', (id) => `/api/dashboard/payees/${id}`, payee.id!],
        ['PATCH', (id) => `/api/dashboard/payees/${id}`, payee.id!, { holder: 'x' }],
        ['PATCH', (id) => `/api/dashboard/webhooks/${id}`, hook.id!, { description: 'x' }],
        ['GET', (id) => `/api/dashboard/webhooks/${id}/deliveries`, hook.id!],
        ['POST', (id) => `/api/dashboard/api-keys/${id}/revoke`, keyId, {}],
        ['DELETE', (id) => `/api/dashboard/team/members/${id}`, a.userId],
      ];
      for (const [method, url, foreignId, body] of cases) {
        const foreign = answer(await send(b, method, url(foreignId), body));
        expect(foreign.status, url(foreignId)).toBe(404);
        for (const long of ['y'.repeat(65), 'b'.repeat(12_000)])
          expect(answer(await send(b, method, url(long), body)), `${method} ${url('')} ${long.length}`).toEqual(foreign);
      }
      // Shop a's records are untouched by b's requests.
      expect((await send(a, 'GET', '/api/dashboard/payees')).json().data.items).toHaveLength(1);
      // A session of another person is 404 too, and so is an over-long session id.
      const session = (await send(a, 'GET', '/api/dashboard/sessions')).json().data.items as Array<{ id: string }>;
      const foreignSession = answer(await send(b, 'DELETE', `/api/dashboard/sessions/${session[0]!.id}`));
      expect(foreignSession.status).toBe(404);
      expect(answer(await send(b, 'DELETE', `/api/dashboard/sessions/${'s'.repeat(12_000)}`))).toEqual(foreignSession);
      // Control characters stay a 400 (input guard), whatever the length.
      expect((await send(b, 'DELETE', `/api/dashboard/payees/${'c'.repeat(70)}%01`)).statusCode).toBe(400);
    });
  });
}
