import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { cookieFrom, createDashHarness, ORIGIN, signup, UA, type Owner } from './dash-helpers.js';

let seq = 0;
const addr = () => `staff${++seq}-${Math.random().toString(36).slice(2, 8)}@example.com`;

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`team seats (${kind})${skipNote(kind)}`, () => {
    let h: Harness;
    let clock: Awaited<ReturnType<typeof createDashHarness>>['clock'];
    beforeAll(async () => {
      ({ h, clock } = await createDashHarness(kind));
    });
    afterAll(async () => h.close());

    const ownerOn = async (plan: string) => {
      const o = await signup(h);
      await h.c.shops.setPlan(o.shopId, plan, 'test');
      return o;
    };
    const invite = (o: { auth: Record<string, string> }, email: string) =>
      h.app.inject({ method: 'POST', url: '/api/dashboard/team/invites', headers: o.auth, payload: { email } });
    const tokenFor = async (email: string) => {
      const [m] = await h.c.mail.list({ to: email, limit: 1 });
      const t = /accept-invite\?token=(inv_[A-Za-z0-9_-]+)/.exec(m?.text ?? '');
      if (!t) throw new Error(`no invite mail for ${email}`);
      return t[1];
    };
    const accept = (token: string, password = 'staff password 1') =>
      h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/accept-invite',
        headers: { 'user-agent': UA },
        remoteAddress: `10.9.${seq % 250}.${(seq * 3) % 250}`,
        payload: { token, password },
      });
    const joinStaff = async (o: Owner) => {
      const email = addr();
      expect((await invite(o, email)).statusCode).toBe(201);
      const res = await accept(await tokenFor(email));
      expect(res.statusCode).toBe(201);
      const d = res.json().data;
      return { email, userId: d.user.id as string, auth: { authorization: `Bearer ${d.accessToken}` }, refresh: cookieFrom(res)! };
    };
    const team = async (a: Record<string, string>) =>
      (await h.app.inject({ method: 'GET', url: '/api/dashboard/team', headers: a })).json().data;
    const auditActions = async (shopId: string) => (await h.c.audit.list(shopId, 200)).map((e: { action: string }) => e.action);

    it('invite → mail → accept signs the staff member in; team lists members and roles', async () => {
      const o = await ownerOn('GROWTH');
      const email = addr();
      const res = await invite(o, email.toUpperCase());
      expect(res.statusCode).toBe(201);
      const inv = res.json().data.invite;
      expect(inv).toMatchObject({ email, role: 'staff' });
      expect(Date.parse(inv.expiresAt) - clock.now().getTime()).toBe(7 * 86_400_000);
      const [mail] = await h.c.mail.list({ to: email });
      expect(mail.template).toBe('team_invite');
      expect(mail.text).toContain(`${ORIGIN}/accept-invite?token=inv_`);
      expect(mail.text).toMatch(/เชิญคุณ[\s\S]*invited you/);
      const token = await tokenFor(email);
      // Only a hash is stored.
      const rows = await h.c.db.selectFrom('team_invites').select('token_hash').where('id', '=', inv.id).execute();
      expect(rows[0].token_hash).not.toContain(token);
      expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);

      let t = await team(o.auth);
      expect(t.seats).toEqual({ used: 2, limit: 5 });
      expect(t.invites.map((i: { email: string }) => i.email)).toEqual([email]);

      const acc = await accept(token);
      expect(acc.statusCode).toBe(201);
      const d = acc.json().data;
      expect(d.user).toMatchObject({ email, role: 'staff' });
      expect(d.shop.id).toBe(o.shopId);
      expect(cookieFrom(acc)).toMatch(/^rt_/);
      const me = await h.app.inject({ method: 'GET', url: '/api/dashboard/me', headers: { authorization: `Bearer ${d.accessToken}` } });
      expect(me.json().data.user.role).toBe('staff');
      // The owner's own view says owner.
      expect((await h.app.inject({ method: 'GET', url: '/api/dashboard/me', headers: o.auth })).json().data.user.role).toBe('owner');

      t = await team(o.auth);
      expect(t.seats).toEqual({ used: 2, limit: 5 });
      expect(t.invites).toEqual([]);
      expect(t.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
        [o.email, 'owner'],
        [email, 'staff'],
      ]);
      expect(t.members[1].lastLoginAt).toBe(clock.now().toISOString());
      // The staff member can sign in with the new password, and reads the team too.
      const login = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/login',
        headers: { 'user-agent': UA },
        payload: { email, password: 'staff password 1' },
      });
      expect(login.statusCode).toBe(200);
      expect((await team({ authorization: `Bearer ${d.accessToken}` })).members).toHaveLength(2);
      expect(await auditActions(o.shopId)).toEqual(expect.arrayContaining(['team.invite', 'team.accept']));
    });

    it('seat limit counts active users and pending invites; revoking frees a seat; re-invite is a resend', async () => {
      const o = await ownerOn('STARTER'); // 2 seats: the owner + one
      const a = addr();
      expect((await invite(o, a)).statusCode).toBe(201);
      const over = await invite(o, addr());
      expect(over.statusCode).toBe(403);
      expect(over.json().code).toBe('PLAN_LIMIT_SEATS');
      expect(over.json().message).toMatch(/2 seat/);
      // Resending to the same address replaces the pending invite: no second seat, the old link dies.
      const oldToken = await tokenFor(a);
      const again = await invite(o, a);
      expect(again.statusCode).toBe(201);
      expect((await accept(oldToken)).json().code).toBe('INVITE_INVALID');
      const t = await team(o.auth);
      expect(t.invites).toHaveLength(1);
      expect(t.seats).toEqual({ used: 2, limit: 2 });
      // Revoke frees the seat.
      const rv = await h.app.inject({ method: 'DELETE', url: `/api/dashboard/team/invites/${t.invites[0].id}`, headers: o.auth });
      expect(rv.statusCode).toBe(200);
      expect((await team(o.auth)).seats.used).toBe(1);
      // An accepted member takes the seat for good.
      await joinStaff(o);
      expect((await invite(o, addr())).json().code).toBe('PLAN_LIMIT_SEATS');
      // TRIAL has one seat: the owner.
      const trial = await signup(h);
      expect((await invite(trial, addr())).json().code).toBe('PLAN_LIMIT_SEATS');
      expect(await auditActions(o.shopId)).toEqual(expect.arrayContaining(['team.invite', 'team.invite_revoke', 'team.accept']));
    });

    it('used and revoked tokens are refused; e-mail already taken; malformed tokens', async () => {
      const o = await ownerOn('GROWTH');
      const email = addr();
      await invite(o, email);
      const token = await tokenFor(email);
      expect((await accept(token)).statusCode).toBe(201);
      const reused = await accept(token);
      expect(reused.statusCode).toBe(400);
      expect(reused.json().code).toBe('INVITE_INVALID');

      const r = addr();
      const inv = (await invite(o, r)).json().data.invite;
      const rt = await tokenFor(r);
      await h.app.inject({ method: 'DELETE', url: `/api/dashboard/team/invites/${inv.id}`, headers: o.auth });
      expect((await accept(rt)).json().code).toBe('INVITE_INVALID');
      // A revoked invite cannot be revoked twice.
      expect((await h.app.inject({ method: 'DELETE', url: `/api/dashboard/team/invites/${inv.id}`, headers: o.auth })).statusCode).toBe(
        404,
      );

      expect((await accept('inv_short')).json().code).toBe('INVITE_INVALID');
      expect((await accept(`inv_${'A'.repeat(43)}`)).json().code).toBe('INVITE_INVALID');
      // An address with an account cannot be invited.
      expect((await invite(o, o.email)).json().code).toBe('EMAIL_TAKEN');
      expect((await invite(o, email)).statusCode).toBe(409);
      // Weak password is refused and leaves the invite usable.
      const w = addr();
      await invite(o, w);
      const wt = await tokenFor(w);
      expect((await accept(wt, 'short')).statusCode).toBe(400);
      expect((await accept(wt)).statusCode).toBe(201);
    });

    it('staff are refused owner-only actions with 403 OWNER_ONLY and can use the rest', async () => {
      const o = await ownerOn('GROWTH');
      const s = await joinStaff(o);
      const forbidden: [string, string, unknown?][] = [
        ['POST', '/api/dashboard/team/invites', { email: addr() }],
        ['DELETE', '/api/dashboard/team/invites/inv_x'],
        ['DELETE', `/api/dashboard/team/members/${o.userId}`],
        ['GET', '/api/dashboard/api-keys'],
        ['POST', '/api/dashboard/api-keys', { environment: 'live' }],
        ['POST', '/api/dashboard/api-keys/key_x/revoke'],
        ['GET', '/api/dashboard/webhooks'],
        ['POST', '/api/dashboard/webhooks', { url: 'https://example.com/hook' }],
        ['POST', '/api/dashboard/payees', { accountNumber: '1234567890', holder: 'ร้าน' }],
        ['PATCH', '/api/dashboard/payees/pay_x', { holder: 'x' }],
        ['DELETE', '/api/dashboard/payees/pay_x'],
        ['PATCH', '/api/dashboard/settings', { privacy: { autoDelete: true } }],
        ['POST', '/api/dashboard/privacy/erase', { password: 'staff password 1', confirm: 'x' }],
        // The shop's LINE official account and the owner's alert recipients: staff could unlink the OA or
        // silence the owner's alerts (staff still link and unlink groups and make group link codes).
        ['POST', '/api/dashboard/line/channels', { channelId: '1650000000', channelSecret: 's'.repeat(32), accessToken: 't' }],
        ['DELETE', '/api/dashboard/line/channels/lch_x'],
        ['DELETE', '/api/dashboard/line/owners/low_x'],
      ];
      for (const [method, url, payload] of forbidden) {
        const res = await h.app.inject({
          method: method as 'GET',
          url,
          headers: s.auth,
          ...(payload ? { payload: payload as object } : {}),
        });
        expect([url, res.statusCode, res.json().code]).toEqual([url, 403, 'OWNER_ONLY']);
      }
      for (const url of [
        '/api/dashboard/overview',
        '/api/dashboard/transactions',
        '/api/dashboard/payees',
        '/api/dashboard/settings',
        '/api/dashboard/sessions',
        '/api/dashboard/team',
        '/api/dashboard/line',
        // Their own data only (test/dashboard/privacy.test.ts checks what it holds).
        '/api/dashboard/privacy/export',
      ]) {
        const res = await h.app.inject({ method: 'GET', url, headers: s.auth });
        expect([url, res.statusCode]).toEqual([url, 200]);
      }
      // The owner still can.
      expect((await h.app.inject({ method: 'GET', url: '/api/dashboard/api-keys', headers: o.auth })).statusCode).toBe(200);
    });

    it("another shop's members and invites answer 404 like missing ones; the owner cannot be removed", async () => {
      const a = await ownerOn('GROWTH');
      const b = await ownerOn('GROWTH');
      const staffB = await joinStaff(b);
      const invB = (await invite(b, addr())).json().data.invite;
      for (const url of [
        `/api/dashboard/team/members/${staffB.userId}`,
        `/api/dashboard/team/invites/${invB.id}`,
        '/api/dashboard/team/members/usr_missing',
        '/api/dashboard/team/invites/inv_missing',
      ]) {
        const res = await h.app.inject({ method: 'DELETE', url, headers: a.auth });
        expect([url, res.statusCode, res.json().code]).toEqual([url, 404, 'NOT_FOUND']);
      }
      expect((await team(b.auth)).members).toHaveLength(2);
      const self = await h.app.inject({ method: 'DELETE', url: `/api/dashboard/team/members/${b.userId}`, headers: b.auth });
      expect(self.statusCode).toBe(403);
      expect(self.json().code).toBe('OWNER_NOT_REMOVABLE');
      // Team of shop A does not show shop B's people.
      expect((await team(a.auth)).members.map((m: { id: string }) => m.id)).toEqual([a.userId]);
    });

    it('removing a staff member ends their sessions at once and frees the address and seat', async () => {
      const o = await ownerOn('STARTER');
      const s = await joinStaff(o);
      expect((await h.app.inject({ method: 'GET', url: '/api/dashboard/overview', headers: s.auth })).statusCode).toBe(200);
      const rm = await h.app.inject({ method: 'DELETE', url: `/api/dashboard/team/members/${s.userId}`, headers: o.auth });
      expect(rm.statusCode).toBe(200);
      expect((await h.app.inject({ method: 'GET', url: '/api/dashboard/overview', headers: s.auth })).statusCode).toBe(401);
      const refresh = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/refresh',
        headers: { origin: ORIGIN, cookie: `slipcheck_refresh=${s.refresh}` },
      });
      expect(refresh.statusCode).toBe(401);
      // Said apart from an ordinary end of session, so the sign-in page can tell them to ask the owner.
      expect(refresh.json()).toMatchObject({ success: false, code: 'MEMBER_REMOVED' });
      expect(String(refresh.headers['set-cookie'])).toContain('Max-Age=0');
      const login = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/login',
        headers: { 'user-agent': UA },
        payload: { email: s.email, password: 'staff password 1' },
      });
      expect(login.statusCode).toBe(401);
      const t = await team(o.auth);
      expect(t.members).toHaveLength(1);
      expect(t.seats.used).toBe(1);
      expect((await h.app.inject({ method: 'DELETE', url: `/api/dashboard/team/members/${s.userId}`, headers: o.auth })).statusCode).toBe(
        404,
      );
      // The same address may be invited again.
      expect((await invite(o, s.email)).statusCode).toBe(201);
      expect(await auditActions(o.shopId)).toContain('team.remove');
    });

    it('a staff session ended any other way (signed out) answers REFRESH_INVALID, not MEMBER_REMOVED', async () => {
      const o = await ownerOn('STARTER');
      const s = await joinStaff(o);
      const out = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/logout',
        headers: { origin: ORIGIN, cookie: `slipcheck_refresh=${s.refresh}` },
      });
      expect(out.statusCode).toBe(200);
      const refresh = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/refresh',
        headers: { origin: ORIGIN, cookie: `slipcheck_refresh=${s.refresh}` },
      });
      expect(refresh.statusCode).toBe(401);
      expect(refresh.json().code).toBe('REFRESH_INVALID');
    });

    it("a removed staff member's open live stream gets no result after the removal: it ends at the next event, not the next heartbeat", async () => {
      const o = await ownerOn('STARTER');
      const s = await joinStaff(o);
      const ticket = (await h.app.inject({ method: 'POST', url: '/api/dashboard/events/ticket', headers: s.auth })).json().data.ticket;
      if (!h.app.server.listening) await h.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (h.app.server.address() as AddressInfo).port;
      const stream = await fetch(`http://127.0.0.1:${port}/api/dashboard/events?ticket=${encodeURIComponent(ticket)}`);
      expect(stream.status).toBe(200);
      const reader = stream.body!.getReader();
      const dec = new TextDecoder();
      let text = '';
      const readUntil = async (what: RegExp) => {
        const deadline = Date.now() + 8000;
        while (!what.test(text)) {
          if (Date.now() > deadline) throw new Error(`timeout; got ${text}`);
          const { value, done } = await reader.read();
          if (done) return true;
          text += dec.decode(value, { stream: true });
        }
        return false;
      };
      await readUntil(/event: ready/);
      const rm = await h.app.inject({ method: 'DELETE', url: `/api/dashboard/team/members/${s.userId}`, headers: o.auth });
      expect(rm.statusCode).toBe(200);
      // A customer's slip checked after the removal (heartbeats are 20 s apart: the stream is still open).
      await h.c.bus.publish({
        shopId: o.shopId,
        type: 'transaction.created',
        data: { id: 'txn_after_removal', senderName: 'นาย ลูกค้า หลังลบ', amount: 4200 },
      });
      const ended = await readUntil(/session\.ended/);
      expect(text).not.toContain('txn_after_removal');
      expect(text).toContain('event: session.ended');
      expect(ended || (await reader.read()).done).toBe(true);
    });

    // Last: moves the shared clock past every session's lifetime.
    it('an expired invite is refused and no longer takes a seat', async () => {
      const o = await ownerOn('STARTER');
      const email = addr();
      await invite(o, email);
      const token = await tokenFor(email);
      clock.advance(7 * 86_400_000 + 1000);
      const res = await accept(token);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('INVITE_INVALID');
      const login = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/login',
        headers: { 'user-agent': UA },
        payload: { email: o.email, password: o.password },
      });
      expect(login.statusCode, login.body).toBe(200);
      const fresh = { authorization: `Bearer ${login.json().data.accessToken}` };
      const t = await team(fresh);
      expect(t.invites).toEqual([]);
      expect(t.seats.used).toBe(1);
      const again = await invite({ auth: fresh }, addr());
      expect(again.statusCode, again.body).toBe(201);
    });
  });
}
