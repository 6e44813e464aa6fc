import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { sql } from 'kysely';
import { PrivacyExportSchema } from '../../src/modules/privacy/privacy-schemas.js';
import { DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { createDashHarness, seedTx, signup } from './dash-helpers.js';

/**
 * Paths of fields the value has and the schema does not name. The response serializer drops such a
 * field silently, so a module that adds one to its view would vanish from the export unnoticed.
 */
function fieldsOutside(schema: TSchema, value: unknown, path = 'data'): string[] {
  const s = schema as { properties?: Record<string, TSchema>; items?: TSchema; anyOf?: TSchema[] };
  if (value === null || value === undefined) return [];
  if (s.anyOf) return s.anyOf.flatMap((variant) => (Value.Check(variant, value) ? fieldsOutside(variant, value, path) : []));
  if (s.items && Array.isArray(value)) return value.flatMap((item, i) => fieldsOutside(s.items!, item, `${path}[${i}]`));
  if (!s.properties || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, v]) =>
    s.properties![key] ? fieldsOutside(s.properties![key], v, `${path}.${key}`) : [`${path}.${key}`],
  );
}

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`privacy [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    beforeAll(async () => {
      ({ h } = await createDashHarness(kind));
    });
    afterAll(async () => h.close());

    it("export holds the shop's data and no secrets", async () => {
      const o = await signup(h);
      await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/payees',
        headers: o.auth,
        payload: { bankCode: '004', accountNumber: '1234566609', holder: 'ร้าน' },
      });
      await h.c.shops.setPlan(o.shopId, 'STARTER', 'test');
      const key = (
        await h.app.inject({ method: 'POST', url: '/api/dashboard/api-keys', headers: o.auth, payload: { environment: 'live' } })
      ).json().data.key;
      const r = await h.app.inject({ url: '/api/dashboard/privacy/export', headers: o.auth });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-disposition']).toMatch(/attachment/);
      const d = r.json().data;
      expect(d.shop.id).toBe(o.shopId);
      expect(d.user.email).toBe(o.email);
      expect(d.payeeAccounts[0].accountLast4).toBe('6609');
      expect(d.apiKeys).toHaveLength(1);
      expect(d.auditLog.length).toBeGreaterThan(2);
      for (const secret of ['1234566609', key, '$argon2', 'key_hash', 'password_hash', o.refresh]) expect(r.body).not.toContain(secret);
    });

    it('the export answers its response schema, and the schema names every field the export holds', async () => {
      const o = await signup(h);
      await h.c.shops.setPlan(o.shopId, 'STARTER', 'test');
      const add = (path: string, payload: object) => h.app.inject({ method: 'POST', url: path, headers: o.auth, payload });
      expect((await add('/api/dashboard/payees', { bankCode: '004', accountNumber: '1234566609', holder: 'ร้าน' })).statusCode).toBe(201);
      expect((await add('/api/dashboard/api-keys', { environment: 'live' })).statusCode).toBe(201);
      expect((await add('/api/dashboard/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['slip.verified'] })).statusCode).toBe(201);
      await seedTx(h, o.shopId, new Date('2026-11-09T03:00:00.000Z'), 'SUCCESS');
      await seedTx(h, o.shopId, new Date('2026-11-09T04:00:00.000Z'), 'DUPLICATE');

      const r = await h.app.inject({ url: '/api/dashboard/privacy/export', headers: o.auth });
      expect(r.statusCode).toBe(200);
      const data = r.json().data;
      for (const list of ['payeeAccounts', 'apiKeys', 'webhookEndpoints', 'sessions', 'transactions', 'auditLog'])
        expect(data[list].length, list).toBeGreaterThan(0);
      expect(data.transactions.map((t: { status: string }) => t.status)).toEqual(['SUCCESS', 'DUPLICATE']); // oldest first
      expect([...Value.Errors(PrivacyExportSchema, data)]).toEqual([]);

      // What the service hands the serializer: a field outside the schema would be dropped from the file.
      const produced = await h.c.privacy.exportShop(o.shopId, o.userId, null);
      expect(fieldsOutside(PrivacyExportSchema, produced)).toEqual([]);
      // The check can fail: a missing field and an unnamed field are both reported.
      const { exportedAt: _gone, ...withoutField } = produced;
      expect(Value.Check(PrivacyExportSchema, withoutField)).toBe(false);
      expect(fieldsOutside(PrivacyExportSchema, { ...produced, shop: { ...produced.shop, extra: 1 } })).toEqual(['data.shop.extra']);
    });

    /**
     * A shop with one staff member, one pending invite, a linked LINE official account (group, owner
     * alert recipient), a LINE sign-in link for each person, a result with a customer's name and
     * e-mails of every kind: what the two exports are checked against.
     */
    async function shopWithPeople() {
      const o = await signup(h);
      await h.c.shops.setPlan(o.shopId, 'GROWTH', 'test');
      const tag = o.shopId.slice(-8);
      const staffEmail = `staff-${tag}@example.com`;
      const pendingEmail = `pending-${tag}@example.com`;
      const invite = (email: string) =>
        h.app.inject({ method: 'POST', url: '/api/dashboard/team/invites', headers: o.auth, payload: { email } });
      expect((await invite(staffEmail)).statusCode).toBe(201);
      const [inviteMail] = await h.c.mail.list({ to: staffEmail, limit: 1 });
      const inviteToken = /accept-invite\?token=(inv_[A-Za-z0-9_-]+)/.exec(inviteMail?.text ?? '')![1]!;
      const accepted = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/accept-invite',
        remoteAddress: '10.8.2.1',
        payload: { token: inviteToken, password: 'staff password 1' },
      });
      expect(accepted.statusCode).toBe(201);
      const staff = { id: accepted.json().data.user.id as string, auth: { authorization: `Bearer ${accepted.json().data.accessToken}` } };
      expect((await invite(pendingEmail)).statusCode).toBe(201);
      const [pendingMail] = await h.c.mail.list({ to: pendingEmail, limit: 1 });
      const pendingToken = /accept-invite\?token=(inv_[A-Za-z0-9_-]+)/.exec(pendingMail?.text ?? '')![1]!;

      const at = new Date().toISOString();
      const channelRow = `lch_x_${tag}`;
      const ownerLine = `U${'a'.repeat(24)}${tag}`;
      const staffLine = `U${'b'.repeat(24)}${tag}`;
      const alertLine = `U${'c'.repeat(24)}${tag}`;
      const groupId = `C${'d'.repeat(24)}${tag}`;
      await h.c.db
        .insertInto('line_channels')
        .values({
          id: channelRow,
          shop_id: o.shopId,
          channel_id: `200${tag}`,
          webhook_key: `whkey-${tag}-secretpath`,
          secret_sealed: 'sealed-channel-secret',
          token_sealed: 'sealed-channel-token',
          bot_user_id: `Ubot${tag}`,
          bot_name: 'ร้านทดสอบ bot',
          status: 'active',
          created_at: at,
          updated_at: at,
        })
        .execute();
      await h.c.db
        .insertInto('line_groups')
        .values({
          id: `lgr_${tag}`,
          shop_id: o.shopId,
          line_channel_id: channelRow,
          group_id: groupId,
          linked_by: null,
          silent_non_slip: 0,
          status: 'active',
          created_at: at,
          updated_at: at,
        })
        .execute();
      await h.c.db
        .insertInto('line_owners')
        .values({ id: `low_${tag}`, shop_id: o.shopId, line_channel_id: channelRow, line_user_id: alertLine, created_at: at })
        .execute();
      await h.c.db
        .insertInto('line_logins')
        .values([
          { user_id: o.userId, shop_id: o.shopId, line_user_id: ownerLine, linked_at: at },
          { user_id: staff.id, shop_id: o.shopId, line_user_id: staffLine, linked_at: at },
        ])
        .execute();
      await seedTx(h, o.shopId, new Date('2026-11-09T03:00:00.000Z'), 'SUCCESS', { sender_name: `นาย ลูกค้า ${tag}` });
      // A reset mail to each person (no shop: the request names only an address), its link live.
      const reset = (to: string, token: string) =>
        h.c.mail.send(to, {
          template: 'password_reset',
          subject: 'ตั้งรหัสผ่านใหม่ / Reset your password',
          text: `https://x/reset?token=${token}`,
        });
      await reset(o.email, `rst_owner_${tag}`);
      await reset(staffEmail, `rst_staff_${tag}`);
      // A mail to the owner's address from before the account existed (another holder of the address).
      await h.c.db
        .insertInto('mail_messages')
        .values({
          id: `mail_before_${tag}`,
          to_addr: o.email,
          subject: 'earlier holder',
          template: 'password_reset',
          body_text: null,
          transport: 'sink',
          status: 'stored',
          error: null,
          shop_id: null,
          created_at: '2020-01-01T00:00:00.000Z',
        })
        .execute();
      return { o, staff, staffEmail, pendingEmail, inviteToken, pendingToken, ownerLine, staffLine, alertLine, groupId, channelRow, tag };
    }

    it("the owner's export adds their LINE sign-in, the shop's LINE links, pending invites and the e-mails, without secrets or live links", async () => {
      const s = await shopWithPeople();
      const r = await h.app.inject({ url: '/api/dashboard/privacy/export', headers: s.o.auth });
      expect(r.statusCode).toBe(200);
      const d = r.json().data;
      expect(d.scope).toBe('shop');
      expect(d.lineLogin).toMatchObject({ lineUserId: s.ownerLine });
      expect(d.line.channels).toEqual([expect.objectContaining({ id: s.channelRow, channelId: `200${s.tag}`, botName: 'ร้านทดสอบ bot' })]);
      expect(d.line.groups).toEqual([expect.objectContaining({ lineChannelId: s.channelRow, groupId: s.groupId })]);
      expect(d.line.owners).toEqual([expect.objectContaining({ lineChannelId: s.channelRow, lineUserId: s.alertLine })]);
      expect(d.invites.map((i: { email: string }) => i.email)).toEqual([s.pendingEmail]);
      const mails = d.mails as Array<{ to: string; template: string; subject: string; status: string; createdAt: string }>;
      // Their own mail (sign-up, reset) and the invitations they sent; not the staff member's own mail.
      expect(mails.filter((m) => m.to === s.o.email).map((m) => m.template)).toEqual(expect.arrayContaining(['password_reset']));
      expect(
        mails
          .filter((m) => m.template === 'team_invite')
          .map((m) => m.to)
          .sort(),
      ).toEqual([s.pendingEmail, s.staffEmail].sort());
      expect(mails.every((m) => m.to === s.o.email || m.template === 'team_invite')).toBe(true);
      expect(mails.map((m) => m.subject)).not.toContain('earlier holder');
      for (const m of mails) expect(Object.keys(m).sort()).toEqual(['createdAt', 'status', 'subject', 'template', 'to']);
      // Never: channel secret or token, the webhook path, live invite or reset links, the staff member's LINE id.
      for (const secret of [
        'sealed-channel-secret',
        'sealed-channel-token',
        `whkey-${s.tag}`,
        s.inviteToken,
        s.pendingToken,
        `rst_owner_${s.tag}`,
        `rst_staff_${s.tag}`,
        s.staffLine,
      ])
        expect(r.body, secret).not.toContain(secret);
      expect([...Value.Errors(PrivacyExportSchema, d)]).toEqual([]);
      expect(fieldsOutside(PrivacyExportSchema, await h.c.privacy.exportShop(s.o.shopId, s.o.userId, null))).toEqual([]);
    });

    it('a staff member exports their own data only: account, sessions, LINE sign-in, their own actions and mail', async () => {
      const s = await shopWithPeople();
      const r = await h.app.inject({ url: '/api/dashboard/privacy/export', headers: s.staff.auth });
      expect(r.statusCode).toBe(200);
      const d = r.json().data;
      expect(d.scope).toBe('person');
      expect(d.user).toMatchObject({ id: s.staff.id, email: s.staffEmail, role: 'staff' });
      expect(d.lineLogin).toMatchObject({ lineUserId: s.staffLine });
      expect(d.sessions.length).toBeGreaterThan(0);
      expect(d.auditLog.length).toBeGreaterThan(0);
      expect(d.auditLog.every((e: { actor: string }) => e.actor === `user:${s.staff.id}`)).toBe(true);
      const mails = d.mails as Array<{ to: string; template: string }>;
      expect(mails.map((m) => m.template)).toEqual(expect.arrayContaining(['team_invite', 'password_reset']));
      expect(mails.every((m) => m.to === s.staffEmail)).toBe(true);
      // Nothing of the shop beyond the person: no results, accounts, keys, endpoints, LINE setup or invites.
      for (const field of ['shop', 'payeeAccounts', 'apiKeys', 'webhookEndpoints', 'transactions', 'line', 'invites'])
        expect(d, field).not.toHaveProperty(field);
      // Nor other people's data: the owner, the customer, the invited address, other LINE users; nor live links.
      // (Their own team.accept entry names who invited them by internal id: how their account came to be.)
      for (const other of [
        s.o.email,
        s.ownerLine,
        s.alertLine,
        s.groupId,
        `นาย ลูกค้า ${s.tag}`,
        s.pendingEmail,
        s.inviteToken,
        `rst_staff_${s.tag}`,
      ])
        expect(r.body, other).not.toContain(other);
      expect([...Value.Errors(PrivacyExportSchema, d)]).toEqual([]);
      expect(fieldsOutside(PrivacyExportSchema, await h.c.privacy.exportShop(s.o.shopId, s.staff.id, null))).toEqual([]);
      // The export is audited as the staff member's own action.
      expect((await h.c.audit.list(s.o.shopId)).some((e) => e.action === 'privacy.export' && e.actor === `user:${s.staff.id}`)).toBe(true);
    });

    it('erase needs the password and DELETE; then the owner is signed out everywhere and the e-mail is free', async () => {
      const o = await signup(h);
      const wrong = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/privacy/erase',
        headers: o.auth,
        payload: { password: 'not it at all', confirm: 'DELETE' },
      });
      expect(wrong.json().code).toBe('WRONG_PASSWORD');
      expect(
        (
          await h.app.inject({
            method: 'POST',
            url: '/api/dashboard/privacy/erase',
            headers: o.auth,
            payload: { password: o.password, confirm: 'yes' },
          })
        ).statusCode,
      ).toBe(400);
      const ok = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/privacy/erase',
        headers: o.auth,
        payload: { password: o.password, confirm: 'DELETE' },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().data.erased).toBe(true);
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: o.auth })).statusCode).toBe(401);
      const login = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/login',
        remoteAddress: '10.8.0.1',
        payload: { email: o.email, password: o.password },
      });
      expect(login.statusCode).toBe(401);
      const again = await signup(h, { email: o.email });
      expect(again.shopId).not.toBe(o.shopId);
    });

    it('erases a shop with staff: every person gets a freed address of their own and every session ends', async () => {
      const o = await signup(h);
      await h.c.shops.setPlan(o.shopId, 'GROWTH', 'test');
      const staffEmail = `staff-${Date.now()}@example.com`;
      expect(
        (await h.app.inject({ method: 'POST', url: '/api/dashboard/team/invites', headers: o.auth, payload: { email: staffEmail } }))
          .statusCode,
      ).toBe(201);
      const [mail] = await h.c.mail.list({ to: staffEmail, limit: 1 });
      const token = /accept-invite\?token=(inv_[A-Za-z0-9_-]+)/.exec(mail?.text ?? '')![1];
      const staff = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/auth/accept-invite',
        remoteAddress: '10.8.1.1',
        payload: { token, password: 'staff password 1' },
      });
      expect(staff.statusCode).toBe(201);
      const staffAuth = { authorization: `Bearer ${staff.json().data.accessToken}` };
      const ok = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/privacy/erase',
        headers: o.auth,
        payload: { password: o.password, confirm: 'DELETE' },
      });
      expect(ok.statusCode).toBe(200);
      expect((await h.app.inject({ url: '/api/dashboard/me', headers: staffAuth })).statusCode).toBe(401);
      const rows = await h.c.db.selectFrom('users').select(['id', 'email']).where('shop_id', '=', o.shopId).execute();
      expect(rows).toHaveLength(2);
      for (const r of rows) expect(r.email).toBe(`erased+${r.id}@invalid`);
      expect((await signup(h, { email: staffEmail })).shopId).not.toBe(o.shopId);
    });

    it('24 h after the erasure no row of the shop is left in any table but its audit trail and the tombstone', async () => {
      const o = await signup(h);
      await h.c.shops.setPlan(o.shopId, 'STARTER', 'test');
      const add = (path: string, payload: object) => h.app.inject({ method: 'POST', url: path, headers: o.auth, payload });
      expect((await add('/api/dashboard/payees', { bankCode: '004', accountNumber: '1234566609', holder: 'ร้าน' })).statusCode).toBe(201);
      await seedTx(h, o.shopId, new Date('2026-11-09T03:00:00.000Z'), 'SUCCESS');
      const at = '2026-11-10T03:00:00.000Z';
      const channelId = `lch_erase_${o.shopId}`;
      const lineUser = `U${'e'.repeat(32)}`;
      // Rows the dashboard cannot create without LINE: what the LINE, LINE Login and reports modules keep.
      await h.c.db
        .insertInto('line_channels')
        .values({
          id: channelId,
          shop_id: o.shopId,
          channel_id: `ch-${o.shopId}`,
          webhook_key: `wk-${o.shopId}`,
          secret_sealed: 'sealed',
          token_sealed: 'sealed',
          bot_user_id: null,
          bot_name: 'bot',
          status: 'active',
          created_at: at,
          updated_at: at,
        })
        .execute();
      await h.c.db
        .insertInto('line_events')
        .values({ webhook_event_id: `ev-${o.shopId}`, line_channel_id: channelId, received_at: at })
        .execute();
      await h.c.db
        .insertInto('line_push_usage')
        .values({ line_channel_id: channelId, period: '2026-11', pushes: 3, updated_at: at })
        .execute();
      await h.c.db
        .insertInto('line_logins')
        .values({ user_id: o.userId, shop_id: o.shopId, line_user_id: lineUser, linked_at: at })
        .execute();
      await h.c.db
        .insertInto('line_login_codes')
        .values({ code_hash: `code-${o.shopId}`, user_id: o.userId, shop_id: o.shopId, created_at: at, expires_at: at, used_at: null })
        .execute();
      await h.c.db
        .insertInto('daily_summaries')
        .values({
          shop_id: o.shopId,
          day: '2026-11-09',
          status: 'sent',
          job_id: null,
          sent_line: 0,
          sent_email: 1,
          created_at: at,
          updated_at: at,
        })
        .execute();

      // Every table with a shop_id column, found in the live schema: a table added later is checked too.
      const shopTables = (await h.c.db.introspection.getTables())
        .filter((t) => t.columns.some((c) => c.name === 'shop_id'))
        .map((t) => t.name);
      expect(shopTables).toEqual(expect.arrayContaining(['line_logins', 'daily_summaries', 'transactions', 'audit_log']));
      const rowsOfShop = async () => {
        const counts: Record<string, number> = {};
        for (const table of shopTables) {
          const r = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where shop_id = ${o.shopId}`.execute(
            h.c.db,
          );
          if (Number(r.rows[0]!.n) > 0) counts[table] = Number(r.rows[0]!.n);
        }
        const byChannel = async (table: 'line_events' | 'line_push_usage') =>
          (await h.c.db.selectFrom(table).select('line_channel_id').where('line_channel_id', '=', channelId).execute()).length;
        for (const table of ['line_events', 'line_push_usage'] as const) if (await byChannel(table)) counts[table] = await byChannel(table);
        return counts;
      };
      const before = await rowsOfShop();
      for (const table of [
        'users',
        'transactions',
        'payee_accounts',
        'line_events',
        'line_push_usage',
        'line_logins',
        'line_login_codes',
        'daily_summaries',
      ])
        expect(before[table], table).toBeGreaterThan(0);

      const ok = await add('/api/dashboard/privacy/erase', { password: o.password, confirm: 'DELETE' });
      expect(ok.statusCode).toBe(200);
      await h.c.db
        .updateTable('shops')
        .set({ deleted_at: new Date(Date.parse(at) - 25 * 3_600_000).toISOString() })
        .where('id', '=', o.shopId)
        .execute();
      expect(await h.c.housekeeping.purgeErased()).toBeGreaterThanOrEqual(1);
      // Kept on purpose (privacy README): the audit trail until its 90 days, and the anonymous shop row it points at.
      const { audit_log: auditRows, ...left } = await rowsOfShop();
      expect(left).toEqual({});
      expect(auditRows).toBeGreaterThan(0);
    });
  });
}
