import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { createDashHarness, seedTx, signup, type Owner } from './dash-helpers.js';

/** Reads server-sent events from a fetch body until `until` says stop. */
async function readEvents(res: Response, until: (events: { event: string; id?: string; data: string }[]) => boolean, timeoutMs = 8000) {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  const events: { event: string; id?: string; data: string }[] = [];
  const deadline = Date.now() + timeoutMs;
  while (!until(events)) {
    if (Date.now() > deadline) throw new Error(`timeout; got ${JSON.stringify(events)}`);
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i: number;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const ev: { event: string; id?: string; data: string } = { event: 'message', data: '' };
      let hasData = false;
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) ev.event = line.slice(7);
        else if (line.startsWith('id: ')) ev.id = line.slice(4);
        else if (line.startsWith('data: ')) {
          ev.data = line.slice(6);
          hasData = true;
        } else if (line.startsWith('retry: ')) events.push({ event: 'retry', data: line.slice(7) });
        else if (line.startsWith(':')) events.push({ event: 'comment', data: line });
      }
      if (hasData) events.push(ev);
    }
  }
  await reader.cancel().catch(() => undefined);
  return events;
}

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`dashboard routes [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let clock: Awaited<ReturnType<typeof createDashHarness>>['clock'];
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    let base: string;
    let a: Owner;
    let b: Owner;
    const get = (o: Owner, url: string) => h.app.inject({ url, headers: o.auth });
    const send = (o: Owner, method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
      h.app.inject({ method, url, headers: o.auth, ...(payload ? { payload } : {}) });

    beforeAll(async () => {
      bank = await startSandbox();
      ({ h, clock } = await createDashHarness(kind, { CHECKER_URL: bank.url, DECODE_THREADS: '1' }));
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
      a = await signup(h, { shopName: 'ร้าน A', planCode: 'STARTER' });
      b = await signup(h, { shopName: 'ร้าน B' });
    });
    afterAll(async () => {
      await h.close();
      await bank.close();
    });

    it('every bearer route answers 401 without a token or with a forged one', async () => {
      const routes: [string, string][] = [
        ['GET', '/api/dashboard/me'],
        ['GET', '/api/dashboard/overview'],
        ['GET', '/api/dashboard/transactions'],
        ['GET', '/api/dashboard/transactions/x'],
        ['POST', '/api/dashboard/events/ticket'],
        ['POST', '/api/dashboard/verify'],
        ['GET', '/api/dashboard/payees'],
        ['POST', '/api/dashboard/payees'],
        ['PATCH', '/api/dashboard/payees/x'],
        ['DELETE', '/api/dashboard/payees/x'],
        ['GET', '/api/dashboard/api-keys'],
        ['POST', '/api/dashboard/api-keys'],
        ['POST', '/api/dashboard/api-keys/x/rotate'],
        ['POST', '/api/dashboard/api-keys/x/revoke'],
        ['GET', '/api/dashboard/settings'],
        ['PATCH', '/api/dashboard/settings'],
        ['GET', '/api/dashboard/sessions'],
        ['DELETE', '/api/dashboard/sessions/x'],
        ['POST', '/api/dashboard/sessions/revoke-all'],
        ['GET', '/api/dashboard/audit'],
        ['POST', '/api/dashboard/auth/password'],
      ];
      const forged = a.token.slice(0, -4) + (a.token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      for (const [method, url] of routes) {
        for (const headers of [{}, { authorization: `Bearer ${forged}` }, { authorization: `Bearer sk_live_${'a'.repeat(32)}` }]) {
          const r = await h.app.inject({ method: method as 'GET', url, headers });
          expect(r.statusCode, `${method} ${url}`).toBe(401);
          expect(r.json().code).toBe('UNAUTHORIZED');
        }
      }
    });

    it('plans list the sign-up cards', async () => {
      const r = await h.app.inject({ url: '/api/dashboard/plans' });
      expect(r.statusCode).toBe(200);
      const codes = r.json().data.items.map((p: { code: string }) => p.code);
      expect(codes).toEqual(expect.arrayContaining(['TRIAL', 'STARTER', 'GROWTH']));
    });

    it('overview: trial days, quota, 30 days by status in Bangkok days, recent results', async () => {
      const now = clock.now(); // 2026-11-10T03:00Z = 10:00 Bangkok
      await seedTx(h, a.shopId, new Date(now.getTime() - 60_000), 'SUCCESS');
      await seedTx(h, a.shopId, new Date(now.getTime() - 120_000), 'FRAUD');
      await seedTx(h, a.shopId, new Date('2026-11-09T18:30:00Z'), 'SUCCESS'); // 01:30 on the 10th in Bangkok
      await seedTx(h, a.shopId, new Date('2026-11-09T16:30:00Z'), 'DUPLICATE'); // 23:30 on the 9th in Bangkok
      await seedTx(h, a.shopId, new Date('2026-09-01T00:00:00Z'), 'SUCCESS'); // outside the window
      await seedTx(h, a.shopId, new Date(now.getTime() - 30_000), 'SUCCESS', { environment: 'test' }); // test keys are not charted
      await seedTx(h, b.shopId, new Date(now.getTime() - 60_000), 'SUCCESS');
      const r = await get(a, '/api/dashboard/overview');
      expect(r.statusCode).toBe(200);
      const d = r.json().data;
      expect(d.shop).toMatchObject({ id: a.shopId, planCode: 'TRIAL', chosenPlanCode: 'STARTER', state: 'trial' });
      expect(d.plan).toMatchObject({ code: 'TRIAL', monthlyLimit: 50, apiAccess: false });
      expect(d.trialDaysLeft).toBe(7);
      expect(d.quota).toMatchObject({ limit: 50, used: 0, planCode: 'TRIAL' });
      expect(d.testQuota.limit).toBe(200);
      expect(d.daily).toHaveLength(30);
      expect(d.daily[29]).toEqual({ date: '2026-11-10', total: 3, byStatus: { SUCCESS: 2, FRAUD: 1 } });
      expect(d.daily[28]).toEqual({ date: '2026-11-09', total: 1, byStatus: { DUPLICATE: 1 } });
      expect(d.recent.length).toBe(6);
      expect(d.recent[0].status).toBe('SUCCESS');
      const trialEnds = (await h.c.shops.get(a.shopId)).trialEndsAt!;
      await h.c.db
        .updateTable('shops')
        .set({ trial_ends_at: new Date(now.getTime() + 3.5 * 86_400_000).toISOString() })
        .where('id', '=', a.shopId)
        .execute();
      expect((await get(a, '/api/dashboard/overview')).json().data.trialDaysLeft).toBe(4);
      await h.c.db.updateTable('shops').set({ trial_ends_at: trialEnds }).where('id', '=', a.shopId).execute();
    });

    it("transactions: list and detail are shop-scoped; another shop's id is a 404 like a missing one", async () => {
      const list = await get(a, '/api/dashboard/transactions?limit=2&status=SUCCESS');
      expect(list.statusCode).toBe(200);
      expect(list.json().data.items).toHaveLength(2);
      expect(list.json().data.nextCursor).toBeTruthy();
      const all = (await get(a, '/api/dashboard/transactions')).json().data.items;
      const id = all[0].id;
      expect((await get(a, `/api/dashboard/transactions/${id}`)).json().data.id).toBe(id);
      const foreign = await get(b, `/api/dashboard/transactions/${id}`);
      const missing = await get(b, '/api/dashboard/transactions/txn_missing');
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().message).toBe(missing.json().message);
      expect(foreign.json().code).toBe(missing.json().code);
      // An id no record can have (over 64 characters) is missing like any other: the same 404.
      for (const long of ['x'.repeat(65), 'a'.repeat(12_000)]) {
        const r = await get(b, `/api/dashboard/transactions/${long}`);
        expect(r.statusCode, `${long.length} characters`).toBe(404);
        expect(r.json()).toMatchObject({ code: missing.json().code, message: missing.json().message });
      }
      expect((await get(a, '/api/dashboard/transactions?limit=0')).json().code).toBe('VALIDATION_ERROR');
    });

    it('payees: add (full number once, last 4 after), edit, primary, delete; other shop 404', async () => {
      const add = await send(b, 'POST', '/api/dashboard/payees', {
        bankCode: '004',
        accountNumber: '123-4-56660-9',
        holder: 'บจก. ร้านกาแฟ ทดสอบ',
      });
      expect(add.statusCode).toBe(201);
      expect(add.json().data).toMatchObject({ accountLast4: '6609', isPrimary: true, status: 'ACTIVE' });
      expect(add.body).not.toContain('1234566609');
      const id = add.json().data.id;
      const second = await send(b, 'POST', '/api/dashboard/payees', {
        kind: 'PROMPTPAY',
        proxyType: 'PHONE',
        accountNumber: '0812345678',
        holder: 'นาย ข',
      });
      expect(second.statusCode).toBe(201);
      const p2 = second.json().data.id;
      expect((await send(b, 'PATCH', `/api/dashboard/payees/${p2}`, { isPrimary: true })).json().data.isPrimary).toBe(true);
      const list = (await get(b, '/api/dashboard/payees')).json().data.items;
      expect(list.map((p: { id: string }) => p.id)).toEqual([p2, id]);
      expect(JSON.stringify(list)).not.toContain('0812345678');
      expect(
        (await send(b, 'POST', '/api/dashboard/payees', { bankCode: '999', accountNumber: '1234567890', holder: 'x' })).json().code,
      ).toBe('VALIDATION_ERROR');
      expect((await send(a, 'PATCH', `/api/dashboard/payees/${id}`, { holder: 'hijack' })).statusCode).toBe(404);
      expect((await send(a, 'DELETE', `/api/dashboard/payees/${id}`)).statusCode).toBe(404);
      expect((await send(b, 'DELETE', `/api/dashboard/payees/${p2}`)).json().data).toEqual({ deleted: true });
      expect((await get(b, '/api/dashboard/payees')).json().data.items).toHaveLength(1);
    });

    // The same account added twice (typed again, or by the CLI) listed it twice on the screen and on the
    // money card, one row at 0.00 beside the one the slips were matched to; removing the "extra" one then
    // put the received money under a removed account.
    it('payees: an account the shop already has (same bank and number, or PromptPay id) is refused 409 PAYEE_EXISTS, disabled ones too', async () => {
      const o = await signup(h, { shopName: 'ร้านบัญชีซ้ำ' });
      const add = (payload: object) => send(o, 'POST', '/api/dashboard/payees', payload);
      expect((await add({ bankCode: '004', accountNumber: '1234566609', holder: 'ร้าน' })).statusCode).toBe(201);
      const again = await add({ bankCode: '004', accountNumber: '123-4-56660-9', holder: 'ร้าน อีกครั้ง' });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ code: 'PAYEE_EXISTS', statusCode: 409 });
      expect(again.body).not.toContain('1234566609');
      // The same number at another bank is another account.
      expect((await add({ bankCode: '014', accountNumber: '1234566609', holder: 'ร้าน' })).statusCode).toBe(201);
      const pp = await add({ kind: 'PROMPTPAY', proxyType: 'PHONE', accountNumber: '0812345678', holder: 'ร้าน' });
      expect(pp.statusCode).toBe(201);
      expect((await add({ kind: 'PROMPTPAY', proxyType: 'PHONE', accountNumber: '081-234-5678', holder: 'x' })).json().code).toBe(
        'PAYEE_EXISTS',
      );
      // A disabled account is still the shop's: enabling it is the way back, not a second copy.
      await send(o, 'PATCH', `/api/dashboard/payees/${pp.json().data.id}`, { status: 'DISABLED' });
      expect((await add({ kind: 'PROMPTPAY', proxyType: 'PHONE', accountNumber: '0812345678', holder: 'x' })).json().code).toBe(
        'PAYEE_EXISTS',
      );
      expect((await get(o, '/api/dashboard/payees')).json().data.items).toHaveLength(3);
      // Another shop may hold the same account (branches paid into one account).
      const other = await signup(h, { shopName: 'ร้านสาขา' });
      expect(
        (await send(other, 'POST', '/api/dashboard/payees', { bankCode: '004', accountNumber: '1234566609', holder: 'ร้าน' })).statusCode,
      ).toBe(201);
    });

    it('verify: no payee is 422, a bad image 400, multipart 415; a sandbox slip is checked, live on the SSE stream', async () => {
      const t0 = await bank.register({ amount: 99 });
      const noPayee = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/verify',
        headers: { ...a.auth, 'content-type': 'image/png' },
        payload: await bank.slip(t0.transRef),
      });
      expect(noPayee.json()).toMatchObject({ statusCode: 422, code: 'NO_PAYEE_CONFIGURED' });
      await send(a, 'POST', '/api/dashboard/payees', { bankCode: '004', accountNumber: '1234566609', holder: 'บจก. ร้านกาแฟ ทดสอบ' });
      const bad = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/verify',
        headers: { ...a.auth, 'content-type': 'application/octet-stream' },
        payload: Buffer.from('not an image'),
      });
      expect(bad.json()).toMatchObject({ statusCode: 400, code: 'INVALID_IMAGE' });
      const multi = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/verify',
        headers: { ...a.auth, 'content-type': 'multipart/form-data; boundary=x' },
        payload: '--x--',
      });
      expect(multi.statusCode).toBe(415);

      // the live stream
      const ticket = (await send(a, 'POST', '/api/dashboard/events/ticket')).json().data.ticket;
      const stream = await fetch(`${base}/api/dashboard/events?ticket=${encodeURIComponent(ticket)}`);
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);
      const t = await bank.register({ amount: 250 });
      const img = await bank.slip(t.transRef);
      const eventsP = readEvents(stream, (ev) => ev.some((e) => e.event === 'transaction.created'));
      const up = await fetch(`${base}/api/dashboard/verify?expectedAmount=250`, {
        method: 'POST',
        headers: { ...a.auth, 'content-type': 'image/png' },
        body: new Uint8Array(img),
      });
      const body = await up.json();
      expect(up.status).toBe(200);
      expect(body.data).toMatchObject({ status: 'SUCCESS', verified: true, source: 'DASHBOARD', environment: 'live', amount: 250 });
      expect(body.data.quota).toEqual({ used: 1, limit: 50, remaining: 49 });
      const events = await eventsP;
      expect(events[0]).toEqual({ event: 'retry', data: '3000' });
      expect(events.find((e) => e.event === 'ready')).toBeTruthy();
      const created = events.find((e) => e.event === 'transaction.created')!;
      expect(created.id).toBe(body.data.id);
      expect(JSON.parse(created.data)).toMatchObject({ id: body.data.id, status: 'SUCCESS' });

      // another shop's stream sees nothing of it; a replay from an older id brings it back
      const older = (await get(a, '/api/dashboard/transactions'))
        .json()
        .data.items.find((i: { id: string; environment: string }) => i.id !== body.data.id && i.environment === 'live');
      const t2 = (await send(a, 'POST', '/api/dashboard/events/ticket')).json().data.ticket;
      const replay = await fetch(`${base}/api/dashboard/events?ticket=${encodeURIComponent(t2)}&lastEventId=${older.id}`);
      const replayed = await readEvents(replay, (ev) => ev.some((e) => e.id === body.data.id));
      expect(replayed.filter((e) => e.event === 'transaction.created').map((e) => e.id)).toContain(body.data.id);
    });

    it('events: an expired or missing ticket and an access token in place of a ticket are refused', async () => {
      const t = (await send(a, 'POST', '/api/dashboard/events/ticket')).json().data.ticket;
      clock.advance(61_000);
      const late = await fetch(`${base}/api/dashboard/events?ticket=${encodeURIComponent(t)}`);
      expect(late.status).toBe(401);
      clock.advance(-61_000);
      expect((await fetch(`${base}/api/dashboard/events?ticket=${encodeURIComponent(a.token)}`)).status).toBe(401);
      expect((await fetch(`${base}/api/dashboard/events`)).status).toBe(400);
      // and a ticket is not an access token
      const t2 = (await send(a, 'POST', '/api/dashboard/events/ticket')).json().data.ticket;
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: { authorization: `Bearer ${t2}` } })).statusCode).toBe(401);
    });

    it('API keys: refused on TRIAL with 403, created after the plan is paid, with calls this month, rotate and revoke', async () => {
      const refused = await send(a, 'POST', '/api/dashboard/api-keys', { environment: 'live', name: 'POS' });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('PLAN_API_ACCESS_REQUIRED');
      expect((await get(a, '/api/dashboard/api-keys')).json().data).toEqual({ apiAccess: false, items: [] });
      await h.c.shops.setPlan(a.shopId, 'STARTER', 'operator:cli');
      const created = await send(a, 'POST', '/api/dashboard/api-keys', { environment: 'live', name: 'POS', scopes: ['verify', 'read'] });
      expect(created.statusCode).toBe(201);
      const { key, apiKey } = created.json().data;
      expect(key).toMatch(/^sk_live_/);
      expect(apiKey).toMatchObject({ name: 'POS', scopes: ['verify', 'read'], prefix: key.slice(0, 12), callsThisMonth: 0 });
      await seedTx(h, a.shopId, new Date(clock.now().getTime() - 1000), 'SUCCESS', { api_key_id: apiKey.id });
      await seedTx(h, a.shopId, new Date('2026-10-31T16:59:00Z'), 'SUCCESS', { api_key_id: apiKey.id }); // 23:59 Oct 31 Bangkok: last month
      const list = (await get(a, '/api/dashboard/api-keys')).json().data;
      expect(list.apiAccess).toBe(true);
      expect(list.items[0]).toMatchObject({ id: apiKey.id, callsThisMonth: 1 });
      expect(JSON.stringify(list)).not.toContain(key);
      // the key works on the public API
      expect((await h.app.inject({ url: '/api/v1/me', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(200);
      expect((await send(b, 'POST', `/api/dashboard/api-keys/${apiKey.id}/revoke`)).statusCode).toBe(404);
      expect((await send(b, 'POST', `/api/dashboard/api-keys/${apiKey.id}/rotate`)).statusCode).toBe(404);
      const rotated = await send(a, 'POST', `/api/dashboard/api-keys/${apiKey.id}/rotate`);
      expect(rotated.statusCode).toBe(201);
      expect((await h.app.inject({ url: '/api/v1/me', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(401);
      const newId2 = rotated.json().data.apiKey.id;
      const revoked = await send(a, 'POST', `/api/dashboard/api-keys/${newId2}/revoke`);
      expect(revoked.json().data.apiKey.revokedAt).toBeTruthy();
      expect((await send(a, 'POST', `/api/dashboard/api-keys/${newId2}/rotate`)).json().code).toBe('KEY_REVOKED');
      expect((await send(a, 'POST', '/api/dashboard/api-keys', { environment: 'prod' })).json().code).toBe('VALIDATION_ERROR');
      const actions = (await get(a, '/api/dashboard/audit')).json().data.items.map((e: { action: string }) => e.action);
      expect(actions).toEqual(expect.arrayContaining(['api_key.create', 'api_key.rotate', 'api_key.revoke', 'plan.change', 'payee.add']));
    });

    it('settings: read and change name, language and notification preferences', async () => {
      const s = (await get(b, '/api/dashboard/settings')).json().data;
      expect(s).toEqual({
        shopName: 'ร้าน B',
        language: 'th',
        notifications: { staleSlipAlerts: true, email: true },
        privacy: { autoDelete: false, retentionMonths: 12 },
        email: b.email,
      });
      const p = await send(b, 'PATCH', '/api/dashboard/settings', {
        shopName: 'ร้าน บี ใหม่',
        language: 'en',
        notifications: { email: false },
        privacy: { autoDelete: true },
      });
      expect(p.json().data).toEqual({
        shopName: 'ร้าน บี ใหม่',
        language: 'en',
        notifications: { staleSlipAlerts: true, email: false },
        privacy: { autoDelete: true, retentionMonths: 12 },
        email: b.email,
      });
      const q = await send(b, 'PATCH', '/api/dashboard/settings', { privacy: { retentionMonths: 6 } });
      expect(q.json().data).toMatchObject({ notifications: { email: false }, privacy: { autoDelete: true, retentionMonths: 6 } });
      expect((await send(b, 'PATCH', '/api/dashboard/settings', { privacy: { retentionMonths: 0 } })).json().code).toBe('VALIDATION_ERROR');
      expect((await send(b, 'PATCH', '/api/dashboard/settings', { language: 'fr' })).json().code).toBe('VALIDATION_ERROR');
      expect((await send(b, 'PATCH', '/api/dashboard/settings', { shopName: '' })).json().code).toBe('VALIDATION_ERROR');
      expect((await get(b, '/api/dashboard/me')).json().data.shop.name).toBe('ร้าน บี ใหม่');
    });

    it("sessions: list marks the current one; revoke one, revoke others; another user's session is 404", async () => {
      const login = async (ip: string) => {
        const r = await h.app.inject({
          method: 'POST',
          url: '/api/dashboard/auth/login',
          remoteAddress: ip,
          headers: { 'user-agent': `UA ${ip}` },
          payload: { email: b.email, password: b.password },
        });
        return { authorization: `Bearer ${r.json().data.accessToken}` };
      };
      const s2 = await login('10.7.0.2');
      const s3 = await login('10.7.0.3');
      const items = (await get(b, '/api/dashboard/sessions')).json().data.items;
      expect(items).toHaveLength(3);
      expect(items.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
      const other = items.find((s: { current: boolean; ip: string }) => !s.current && s.ip === '10.7.0.2');
      expect((await send(a, 'DELETE', `/api/dashboard/sessions/${other.id}`)).statusCode).toBe(404);
      expect((await send(b, 'DELETE', `/api/dashboard/sessions/${other.id}`)).json().data).toEqual({ revoked: true });
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: s2 })).statusCode).toBe(401);
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: s3 })).statusCode).toBe(200);
      expect((await send(b, 'POST', '/api/dashboard/sessions/revoke-all')).json().data).toEqual({ revoked: 1 });
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: s3 })).statusCode).toBe(401);
      expect((await get(b, '/api/dashboard/me')).statusCode).toBe(200);
      const audit = (await get(b, '/api/dashboard/audit?limit=50')).json().data.items;
      expect(audit.map((e: { action: string }) => e.action)).toContain('session.revoke');
      expect(audit.every((e: { action: string }) => !e.action.startsWith('api_key'))).toBe(true); // shop A's events are not here
      expect(JSON.stringify(audit)).not.toMatch(/rt_|\$argon2/);
    });

    it('every dashboard route is limited to RATE_LIMIT_DASHBOARD per minute per client, with Retry-After', async () => {
      const o = await signup(h);
      let last = await get(o, '/api/dashboard/me');
      for (let i = 1; i < 120; i++) last = await get(o, '/api/dashboard/me');
      expect(last.statusCode).toBe(200);
      const over = await get(o, '/api/dashboard/settings');
      expect(over.statusCode).toBe(429);
      expect(over.json().code).toBe('RATE_LIMITED');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      clock.advance(60_000);
      expect((await get(o, '/api/dashboard/me')).statusCode).toBe(200);
    });
  });
}
