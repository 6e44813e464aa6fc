import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { DB_KINDS, pgMissing, skipNote } from '../helpers/harness.js';
import { lineEvent, sign, textMessage } from './fake-line-platform.js';
import { startLineKit, type LineKit } from './line-test-kit.js';

const texts = (m: { body: { messages: Array<Record<string, unknown>> } } | undefined) =>
  (m?.body.messages ?? []).map((x) => x.text ?? x.altText).join('\n');

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`LINE linking and webhooks [${kind}]${skipNote(kind)}`, () => {
    let k: LineKit;
    const ev = (type: string, source: Parameters<typeof lineEvent>[1], extra: Record<string, unknown> = {}) =>
      lineEvent(type, source, extra, k.clock.now().getTime());
    const group = (g: string, u = 'Uowner0001') => ({ type: 'group' as const, groupId: g, userId: u });
    const countJobs = async (kindName = 'line.event') =>
      Number(
        (
          await k.h.c.db
            .selectFrom('outbox')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('kind', '=', kindName)
            .executeTakeFirstOrThrow()
        ).n,
      );

    beforeAll(async () => {
      k = await startLineKit(kind);
    });
    /** A staff member of the shop (their id starts with `prefix`). */
    const addStaff = async (shopId: string, prefix: string) => {
      const id = `${prefix}${Math.random().toString(36).slice(2, 10)}`;
      await k.h.c.accounts.insertStaff({ id, shopId, email: `${id}@example.com`, passwordHash: 'x', at: k.clock.now().toISOString() });
      return id;
    };
    afterAll(async () => k.close());

    it('links an official account: webhook path returned, secrets sealed at rest and never shown again, audited', async () => {
      const s = await k.linkedShop();
      expect(s.view.webhookPath).toMatch(/^\/api\/line\/webhook\/[A-Za-z0-9_-]{32}$/);
      expect(s.view.webhookPath).not.toContain(s.view.channelId);
      expect(s.view.botUserId).toBe(s.fc.botUserId);
      const listed = JSON.stringify(await k.h.c.line.channels.list(s.shop.id));
      expect(listed).not.toContain(s.fc.secret);
      expect(listed).not.toContain(s.fc.token);
      const row = await k.h.c.db.selectFrom('line_channels').selectAll().where('id', '=', s.view.id).executeTakeFirstOrThrow();
      expect(row.secret_sealed).toMatch(/^sb1\./);
      expect(row.secret_sealed).not.toContain(s.fc.secret);
      expect(row.token_sealed).not.toContain(s.fc.token);
      const audit = await k.h.c.audit.list(s.shop.id);
      expect(audit.map((a) => a.action)).toContain('line.channel.link');
      expect(JSON.stringify(audit)).not.toContain(s.fc.secret);
    });

    it('rejects a token LINE refuses, a channel of another shop, and a second account on TRIAL', async () => {
      const s = await k.linkedShop({ plan: 'TRIAL' });
      const other = k.fake.addChannel();
      await expect(
        k.h.c.line.channels.link(
          s.shop.id,
          { channelId: '1999999999', channelSecret: other.secret, accessToken: 'not-a-known-token-0123456789' },
          'test',
        ),
      ).rejects.toMatchObject({ code: 'LINE_TOKEN_INVALID' });
      await expect(
        k.h.c.line.channels.link(s.shop.id, { channelId: '1999999998', channelSecret: other.secret, accessToken: other.token }, 'test'),
      ).rejects.toMatchObject({ code: 'PLAN_LIMIT_MESSAGING_ACCOUNTS', statusCode: 403 });
      const t = await k.linkedShop();
      await expect(
        k.h.c.line.channels.link(t.shop.id, { channelId: s.view.channelId, channelSecret: other.secret, accessToken: other.token }, 'test'),
      ).rejects.toMatchObject({ code: 'LINE_CHANNEL_IN_USE', statusCode: 409 });
    });

    it('verifies the signature over the raw body before anything else', async () => {
      const s = await k.linkedShop();
      const before = await countJobs();
      const e = ev('message', { type: 'user', userId: 'Ucust01' }, textMessage('hello'));
      const forged = await s.send([e], {
        signature: sign('another-secret-of-32-characters!', JSON.stringify({ destination: s.fc.botUserId, events: [e] })),
      });
      expect(forged.status).toBe(401);
      expect(forged.body).toMatchObject({ success: false, code: 'UNAUTHORIZED', statusCode: 401 });
      const missing = await s.send([e], { signature: null });
      expect(missing.status).toBe(401);
      const garbage = await s.send([e], { signature: 'AAAA' });
      expect(garbage.status).toBe(401);
      expect(await countJobs()).toBe(before);
      expect(
        await k.h.c.db
          .selectFrom('line_events')
          .select('webhook_event_id')
          .where('webhook_event_id', '=', e.webhookEventId)
          .executeTakeFirst(),
      ).toBeUndefined();
      // Re-serialised JSON (same meaning, other bytes) does not pass: the HMAC covers the raw body.
      const raw = JSON.stringify({ destination: s.fc.botUserId, events: [e] });
      const r = await fetch(s.hookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-line-signature': sign(s.fc.secret, raw) },
        body: JSON.stringify(JSON.parse(raw), null, 1),
      });
      expect(r.status).toBe(401);
      const ok = await s.send([e]);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ success: true, data: { received: 1 } });
      expect(await countJobs()).toBe(before + 1);
      const unknown = await k.fake.deliver(`${k.base}/api/line/webhook/${'x'.repeat(32)}`, s.fc.secret, { events: [] });
      expect(unknown.status).toBe(404);
    });

    it('answers the console "verify" call (empty events) and the dashboard webhook check', async () => {
      const s = await k.linkedShop();
      expect((await s.send([])).status).toBe(200);
      const check = await k.h.c.line.channels.verifyWebhook(s.shop.id, s.view.id);
      expect(check).toMatchObject({ success: true, statusCode: 200, webhookUrl: s.hookUrl });
    });

    it('deduplicates redelivered events by webhookEventId', async () => {
      const s = await k.linkedShop();
      const before = await countJobs();
      const e = ev('join', group('Cgrp-redeliver'));
      expect((await s.send([e])).body.data.received).toBe(1);
      const again = await s.send([{ ...e, deliveryContext: { isRedelivery: true } }]);
      expect(again.status).toBe(200);
      expect(again.body.data.received).toBe(0);
      expect(await countJobs()).toBe(before + 1);
      await k.drain();
      expect(k.fake.replies.filter((r) => r.body.replyToken === e.replyToken)).toHaveLength(1);
    });

    it('group flow: join prompt, link code, unlink only by the linker, audit events', async () => {
      const s = await k.linkedShop();
      const g = 'Cgroup-flow-1';
      const join = ev('join', { type: 'group', groupId: g });
      await s.post(join);
      expect(texts(k.fake.replies.find((r) => r.body.replyToken === join.replyToken))).toContain('สร้างรหัสเชื่อมกลุ่ม');

      const { code, expiresAt } = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
      expect(Date.parse(expiresAt) - k.clock.now().getTime()).toBe(30 * 60_000);
      const typed = ev('message', group(g, 'Ulinker01'), textMessage(code.toLowerCase().replace('-', ' ')));
      await s.post(typed);
      expect(texts(k.fake.replies.find((r) => r.body.replyToken === typed.replyToken))).toContain(s.shop.name);
      // The command it teaches is the one that works, and is not an everyday word.
      expect(texts(k.fake.replies.find((r) => r.body.replyToken === typed.replyToken))).toContain('พิมพ์ "ยกเลิกการเชื่อมต่อ"');
      const listed = await k.h.c.line.channels.list(s.shop.id);
      expect(listed.groups).toEqual([expect.objectContaining({ groupId: g, linkedBy: 'Ulinker01', silentNonSlip: true })]);

      const chatter = ev('message', group(g, 'Ustaff'), textMessage('โอนแล้วนะคะ'));
      await s.post(chatter);
      expect(k.fake.replies.find((r) => r.body.replyToken === chatter.replyToken)).toBeUndefined();

      // "ยกเลิก" alone is how a Thai shop chat cancels an order: it must neither unlink the group nor
      // draw a reply, not even from the person who linked it.
      for (const who of ['Ustaff', 'Ulinker01']) {
        const cancel = ev('message', group(g, who), textMessage('ยกเลิก'));
        await s.post(cancel);
        expect(k.fake.replies.find((r) => r.body.replyToken === cancel.replyToken)).toBeUndefined();
        expect((await k.h.c.line.channels.list(s.shop.id)).groups).toHaveLength(1);
      }

      const byOther = ev('message', group(g, 'Ustaff'), textMessage('ยกเลิกการเชื่อมต่อ'));
      await s.post(byOther);
      expect(texts(k.fake.replies.find((r) => r.body.replyToken === byOther.replyToken))).toContain('เฉพาะผู้ที่เชื่อม');
      expect((await k.h.c.line.channels.list(s.shop.id)).groups).toHaveLength(1);

      const byLinker = ev('message', group(g, 'Ulinker01'), textMessage('unlink'));
      await s.post(byLinker);
      expect(texts(k.fake.replies.find((r) => r.body.replyToken === byLinker.replyToken))).toContain('ยกเลิกการเชื่อม');
      expect((await k.h.c.line.channels.list(s.shop.id)).groups).toHaveLength(0);
      const actions = (await k.h.c.audit.list(s.shop.id)).map((a) => a.action);
      expect(actions).toEqual(expect.arrayContaining(['line.group.link', 'line.group.unlink', 'line.link_code.create']));
    });

    it('link codes: expired, reused and of another shop are refused; a refused code stays usable by its shop', async () => {
      const a = await k.linkedShop();
      const b = await k.linkedShop({ language: 'en' });
      const say = async (s: typeof a, g: string, t: string) => {
        const e = ev('message', group(g, 'Uowner9'), textMessage(t));
        await s.post(e);
        return texts(k.fake.replies.find((r) => r.body.replyToken === e.replyToken));
      };
      const expired = await k.h.c.line.linkCodes.create(a.shop.id, 'test');
      k.clock.advance(31 * 60_000);
      expect(await say(a, 'Cexp', expired.code)).toContain('หมดอายุ');

      const bCode = await k.h.c.line.linkCodes.create(b.shop.id, 'test');
      expect(await say(a, 'Cwrong', bCode.code)).toContain('ไม่ถูกต้อง');
      expect(await say(b, 'Cright', bCode.code)).toContain('now linked');
      expect(await say(b, 'Cright2', bCode.code)).toContain('already used');
      expect(await say(a, 'Cnothing', 'ABCD-EFGH')).toContain('ไม่ถูกต้อง');
      // An ordinary 8-letter word is not answered as a wrong code, in a group or in 1:1.
      expect(await say(a, 'Cnothing', 'THANKYOU')).toBe('');
      const word = ev('message', { type: 'user', userId: 'Ucust77' }, textMessage('Thankyou'));
      await a.post(word);
      expect(k.fake.replies.find((r) => r.body.replyToken === word.replyToken)).toBeUndefined();
      // Nor is an order number of the code's shape that no code can be (codes have no 0, O, 1 or I, and
      // letters): a customer who typed "SO24-0001" in 1:1 was told "the link code is not valid, check the
      // code in the dashboard"; staff typing an order number in the group got the same.
      for (const orderNo of ['SO24-0001', '2411-0032', 'inv1-2345']) {
        const typed = ev('message', { type: 'user', userId: 'Ucust77' }, textMessage(orderNo));
        await a.post(typed);
        expect(
          k.fake.replies.find((r) => r.body.replyToken === typed.replyToken),
          orderNo,
        ).toBeUndefined();
        expect(await say(a, 'Cnothing', orderNo), orderNo).toBe('');
      }
      const groupsA = await k.h.c.line.channels.list(a.shop.id);
      expect(groupsA.groups).toHaveLength(0);
    });

    it('TRIAL allows one group: the second gets a clear refusal and keeps its code', async () => {
      const s = await k.linkedShop({ plan: 'TRIAL' });
      const c1 = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      const c2 = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', group('Ctrial1'), textMessage(c1.code)));
      const e2 = ev('message', group('Ctrial2'), textMessage(c2.code));
      await s.post(e2);
      expect(texts(k.fake.replies.find((r) => r.body.replyToken === e2.replyToken))).toContain('สูงสุด 1 กลุ่ม');
      expect((await k.h.c.line.channels.list(s.shop.id)).groups.map((g) => g.groupId)).toEqual(['Ctrial1']);
      // After an unlink from the dashboard the same code links the second group.
      const g1 = (await k.h.c.line.channels.list(s.shop.id)).groups[0]!;
      await k.h.c.line.groups.unlink(s.shop.id, g1.id, 'user:test');
      await s.post(ev('message', group('Ctrial2'), textMessage(c2.code)));
      expect((await k.h.c.line.channels.list(s.shop.id)).groups.map((g) => g.groupId)).toEqual(['Ctrial2']);
    });

    it('two codes redeemed at the same instant cannot both pass the plan limit', async () => {
      const s = await k.linkedShop({ plan: 'TRIAL' });
      const channel = await k.h.c.db.selectFrom('line_channels').selectAll().where('shop_id', '=', s.shop.id).executeTakeFirstOrThrow();
      const codes = await Promise.all([1, 2, 3, 4].map(() => k.h.c.line.linkCodes.create(s.shop.id, 'test')));
      const results = await Promise.all(
        codes.map((c, i) => k.h.c.line.linkCodes.redeem(channel, c.code, { kind: 'group', groupId: `Crace${i}`, userId: 'Uowner' })),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok && r.reason === 'GROUP_LIMIT')).toHaveLength(3);
      expect((await k.h.c.line.channels.list(s.shop.id)).groups).toHaveLength(1);
    });

    it('the bot leaving a group unlinks it', async () => {
      const s = await k.linkedShop();
      const c = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', group('Cleave'), textMessage(c.code)));
      expect((await k.h.c.line.channels.list(s.shop.id)).groups).toHaveLength(1);
      await s.post(ev('leave', { type: 'group', groupId: 'Cleave' }, { replyToken: undefined }));
      expect((await k.h.c.line.channels.list(s.shop.id)).groups).toHaveLength(0);
    });

    it('a leave LINE delivers late (redelivery) does not unlink a group the bot has joined or been linked in since', async () => {
      const s = await k.linkedShop();
      const now = k.clock.now().getTime();
      const leave = (g: string, at: number) =>
        ev('leave', { type: 'group', groupId: g }, { replyToken: undefined, timestamp: at, deliveryContext: { isRedelivery: true } });
      const linked = async () => (await k.h.c.line.channels.list(s.shop.id)).groups.map((x) => x.groupId).sort();

      // Removed by mistake and added back at once: the leave's delivery failed, the join came through
      // (answered "already linked"), then LINE redelivers the leave.
      const c1 = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', group('Crejoin'), { ...textMessage(c1.code), timestamp: now - 120_000 }));
      const join = ev('join', { type: 'group', groupId: 'Crejoin' });
      await s.post(join);
      expect(texts(k.fake.replies.find((r) => r.body.replyToken === join.replyToken))).toContain('เชื่อมกับร้านอยู่แล้ว');
      await s.post(leave('Crejoin', now - 30_000));
      expect(await linked()).toEqual(['Crejoin']);

      // Unlinked, the bot removed (that leave delayed), added back and linked again with a new code.
      const c2 = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', group('Crelink', 'Ulinker02'), { ...textMessage(c2.code), timestamp: now - 120_000 }));
      await s.post(ev('message', group('Crelink', 'Ulinker02'), { ...textMessage('unlink'), timestamp: now - 90_000 }));
      const c3 = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', group('Crelink'), textMessage(c3.code)));
      await s.post(leave('Crelink', now - 60_000));
      expect(await linked()).toEqual(['Crejoin', 'Crelink']);

      // A leave after the last join or link still unlinks.
      await s.post(leave('Crelink', now + 1000));
      expect(await linked()).toEqual(['Crejoin']);
    });

    it('owner links their LINE user in 1:1 chat and receives owner alerts once per period', async () => {
      const s = await k.linkedShop();
      const c = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      const e = ev('message', { type: 'user', userId: 'Uowner-alerts' }, textMessage(c.code));
      await s.post(e);
      expect(texts(k.fake.replies.find((r) => r.body.replyToken === e.replyToken))).toContain('แจ้งเตือน');
      expect((await k.h.c.line.channels.list(s.shop.id)).owners).toEqual([expect.objectContaining({ lineUserId: 'Uowner-alerts' })]);

      const { enqueueOutbox } = await import('../../src/outbox/outbox-repo.js');
      for (let i = 0; i < 2; i++) {
        await enqueueOutbox(
          k.h.c.db,
          { kind: 'owner.alert', shopId: s.shop.id, payload: { type: 'QUOTA_80', shopId: s.shop.id, detail: { used: 400, limit: 500 } } },
          k.clock.now(),
        );
      }
      await enqueueOutbox(
        k.h.c.db,
        { kind: 'owner.alert', shopId: s.shop.id, payload: { type: 'TRIAL_ENDING', shopId: s.shop.id } },
        k.clock.now(),
      );
      await k.drain();
      const got = k.fake.sentTo('Uowner-alerts');
      expect(got.filter((p) => texts(p).includes('80%'))).toHaveLength(1);
      expect(got.filter((p) => texts(p).includes('ทดลองใช้'))).toHaveLength(1);
      expect(got.every((p) => p.token === s.fc.token && p.retryKey)).toBe(true);
    });

    it("a staff member's code links a group but not their own LINE as a recipient of the owner's alerts", async () => {
      // Staff may create link codes (for the shop's groups); typed in a 1:1 chat the same code made the
      // typist an owner recipient: quota, trial, edited-slip alerts and the daily money summary, and
      // removing them from the team left the link in place.
      const s = await k.linkedShop();
      const staffId = await addStaff(s.shop.id, 'usr_staff_');
      const c = await k.h.c.line.linkCodes.create(s.shop.id, `user:${staffId}`);
      const e = ev('message', { type: 'user', userId: 'Ustaff-self' }, textMessage(c.code));
      await s.post(e);
      expect((await k.h.c.line.channels.list(s.shop.id)).owners).toEqual([]);
      expect(texts(k.fake.replies.find((r) => r.body.replyToken === e.replyToken))).toContain('เจ้าของร้าน');
      // The code is not spent: it still links a group.
      const g = ev('message', group('Gstaff-code', 'Ustaff-self'), textMessage(c.code));
      await s.post(g);
      expect((await k.h.c.line.channels.list(s.shop.id)).groups.map((x: { groupId: string }) => x.groupId)).toContain('Gstaff-code');
    });

    it('a code made by a staff member who was removed from the team links nothing', async () => {
      // Removal "bites at once" (sessions end, the owner guard refuses): a code the person made while on
      // the team (30 minutes) linked a group of their choosing to the shop after they were removed, so
      // they kept checking slips on the shop's quota and reading its payments in that group.
      const s = await k.linkedShop();
      const staffId = await addStaff(s.shop.id, 'usr_gone_');
      const c = await k.h.c.line.linkCodes.create(s.shop.id, `user:${staffId}`);
      await k.h.c.team.removeMember(s.shop.id, 'usr_the_owner', staffId, null);
      const g = ev('message', group('Gremoved-staff', 'Uformer-staff'), textMessage(c.code));
      await s.post(g);
      expect((await k.h.c.line.channels.list(s.shop.id)).groups).toEqual([]);
      expect(texts(k.fake.replies.find((r) => r.body.replyToken === g.replyToken))).toContain('รหัสเชื่อมต่อไม่ถูกต้อง');
      // The same in a 1:1 chat: not an owner recipient, and told the code is not valid (not "ask the owner").
      const e = ev('message', { type: 'user', userId: 'Uformer-staff' }, textMessage(c.code));
      await s.post(e);
      expect((await k.h.c.line.channels.list(s.shop.id)).owners).toEqual([]);
      expect(texts(k.fake.replies.find((r) => r.body.replyToken === e.replyToken))).toContain('รหัสเชื่อมต่อไม่ถูกต้อง');
    });

    it('removing a staff member unlinks the alert link they made in their own chat before staff codes stopped making them', async () => {
      // Until 2026-11-27 a staff member's code typed in a 1:1 chat made the typist a recipient of the
      // owner's alerts and daily money summary. Those links stayed after the person left the team, with
      // the shop's payments still arriving in their LINE. Written here as that code left them.
      const s = await k.linkedShop();
      const staffId = await addStaff(s.shop.id, 'usr_legacy_');
      const at = k.clock.now().toISOString();
      await k.h.c.db
        .insertInto('line_link_codes')
        .values({
          code_hash: `legacy-${staffId}`,
          shop_id: s.shop.id,
          created_by: `user:${staffId}`,
          expires_at: at,
          used_at: at,
          used_for: 'owner:Ulegacy-staff',
          created_at: at,
        })
        .execute();
      await k.h.c.db
        .insertInto('line_owners')
        .values({
          id: `lown_legacy_${staffId}`,
          shop_id: s.shop.id,
          line_channel_id: s.view.id,
          line_user_id: 'Ulegacy-staff',
          created_at: at,
        })
        .execute();
      // The owner's own link, made with the owner's code, stays.
      const mine = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', { type: 'user', userId: 'Uthe-owner' }, textMessage(mine.code)));
      const recipients = async () =>
        (await k.h.c.line.channels.list(s.shop.id)).owners.map((o: { lineUserId: string }) => o.lineUserId).sort();
      expect(await recipients()).toEqual(['Ulegacy-staff', 'Uthe-owner']);

      await k.h.c.team.removeMember(s.shop.id, 'usr_the_owner', staffId, null);
      expect(await recipients()).toEqual(['Uthe-owner']);
      const unlinked = (await k.h.c.audit.list(s.shop.id)).filter((a) => a.action === 'line.owner.unlink');
      expect(unlinked).toHaveLength(1);
      expect(unlinked[0]).toMatchObject({ target: `lown_legacy_${staffId}` });
      expect(JSON.stringify(unlinked[0])).toContain('team member removed');
    });

    it('unlinking the channel stops its webhook, unlinks its groups and is audited', async () => {
      const s = await k.linkedShop();
      const c = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', group('Cunl'), textMessage(c.code)));
      await k.h.c.line.channels.unlink(s.shop.id, s.view.id, 'user:test');
      expect((await s.send([])).status).toBe(404);
      const listed = await k.h.c.line.channels.list(s.shop.id);
      expect(listed.channels).toHaveLength(0);
      expect(listed.groups).toHaveLength(0);
      expect((await k.h.c.audit.list(s.shop.id)).map((a) => a.action)).toEqual(
        expect.arrayContaining(['line.channel.unlink', 'line.group.unlink']),
      );
    });

    if (kind === 'sqlite') {
      it('CLI: line link / list / link-code / unlink print JSON and never the secrets', async () => {
        const shop = await k.h.c.shops.create({ name: 'CLI shop', planCode: 'STARTER' }, 'test');
        const fc = k.fake.addChannel();
        const env = {
          ...process.env,
          DATA_DIR: k.h.dataDir,
          LINE_API_BASE_URL: k.fake.url,
          LINE_DATA_API_BASE_URL: k.fake.url,
          LOG_LEVEL: 'silent',
          SANDBOX_AUTOSTART: 'false',
          NODE_ENV: 'test',
        };
        const run = async (...argv: string[]) => {
          const out: string[] = [];
          const err: string[] = [];
          const code = await runCli(argv, { stdout: (x) => out.push(x), stderr: (x) => err.push(x) }, env);
          return { code, out: out.join('\n'), err: err.join('\n') };
        };
        const linked = await run(
          'line',
          'link',
          '--shop',
          shop.id,
          '--channel-id',
          '1234567890',
          '--channel-secret',
          fc.secret,
          '--access-token',
          fc.token,
        );
        expect(linked.err).toBe('');
        expect(linked.code).toBe(0);
        const view = JSON.parse(linked.out);
        expect(view.webhookPath).toMatch(/^\/api\/line\/webhook\//);
        expect(linked.out).not.toContain(fc.secret);
        expect(linked.out).not.toContain(fc.token);
        const list = await run('line', 'list', '--shop', shop.id);
        expect(JSON.parse(list.out).channels[0].id).toBe(view.id);
        const code = await run('line', 'link-code', '--shop', shop.id);
        expect(JSON.parse(code.out).code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
        const unl = await run('line', 'unlink', '--shop', shop.id, '--channel', view.id);
        expect(JSON.parse(unl.out).status).toBe('unlinked');
        expect((await run('line', 'link', '--shop', shop.id)).code).toBe(2);
      });
    }
  });
}
