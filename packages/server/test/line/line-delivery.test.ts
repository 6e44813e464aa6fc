import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderNonSlip } from '@slipcheck/sandbox-bank';
import { createOutboxWorker } from '../../src/outbox/outbox-worker.js';
import { signup } from '../dashboard/dash-helpers.js';
import { DB_KINDS, pgMissing, skipNote } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { externalImageMessage, imageMessage, lineEvent, textMessage, type Sent } from './fake-line-platform.js';
import { chatHelpers, startLineKit, type LineKit } from './line-test-kit.js';

// Issue 10, LINE: what the chat hears when LINE or our side fails half-way (retries, timeouts after
// LINE accepted, the monthly limit), replays, who reads the bubble, and bank data in the bubble.
// Real parts: the sandbox bank as checker, the fake LINE platform on loopback, the outbox worker.
const flexOf = (m: Sent | undefined) => m?.body.messages.find((x) => x.type === 'flex');
const textOf = (m: Sent | undefined) => (m?.body.messages ?? []).map((x) => x.text ?? x.altText ?? '').join('\n');
const json = (x: unknown) => JSON.stringify(x ?? {});
const MONTHLY = { status: 429, body: { message: 'You have reached your monthly limit.' } };

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`LINE delivery under failures [${kind}]${skipNote(kind)}`, () => {
    let k: LineKit;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    const { ev, user, grp, upload } = chatHelpers(() => k, `d-${kind}`, 'Ucust01');
    const replyFor = (e: { replyToken?: string }) => k.fake.replies.filter((r) => r.body.replyToken === e.replyToken);
    const delivered = (chat: string, e: { replyToken?: string }) => [...replyFor(e), ...k.fake.sentTo(chat)];
    /** Lets the outbox's backoff pass (the event then is too old for its reply token). */
    const later = async () => {
      k.clock.advance(10 * 60_000);
      await k.drain();
    };
    const linkGroup = async (s: Awaited<ReturnType<LineKit['linkedShop']>>, g: string) => {
      const c = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', grp(g, 'Ulinker'), textMessage(c.code)));
    };

    beforeAll(async () => {
      bank = await startSandbox();
      k = await startLineKit(kind, {
        CHECKER_URL: bank.url,
        DECODE_THREADS: '1',
        LINE_HTTP_TIMEOUT_MS: '400',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      });
    });
    afterAll(async () => {
      expect(k.fake.rejected).toEqual([]); // nothing we sent broke LINE's documented limits
      await k.close();
      await bank.close();
    });

    it('reply 500 x3: the re-run answers the genuine first slip as received, not "already sent"; one message in the chat', async () => {
      const s = await k.linkedShop();
      const t = await bank.register({ amount: 320 });
      const e = ev('message', user('Ufirst'), imageMessage(upload(await bank.slip(t.transRef))));
      k.fake.fail('reply', { status: 500 }, { status: 500 }, { status: 500 });
      await s.post(e);
      expect(delivered('Ufirst', e)).toHaveLength(0);
      await later();
      const got = delivered('Ufirst', e);
      expect(got).toHaveLength(1);
      expect(flexOf(got[0])!.altText).toContain('ได้รับยอดโอนแล้ว');
      expect(json(flexOf(got[0]))).not.toContain('เคยส่งแล้ว');
      expect(k.fake.hits.content).toBeGreaterThan(0);
    });

    it('push 500 then success: the re-run pushes the fresh verdict; one retry key per distinct body', async () => {
      const s = await k.linkedShop();
      await linkGroup(s, 'Cpush500');
      const t = await bank.register({ amount: 75 });
      const e = ev('message', grp('Cpush500'), imageMessage(upload(await bank.slip(t.transRef))));
      k.fake.expireReplyToken(e.replyToken);
      k.fake.fail('push', { status: 500 }, { status: 500 }, { status: 500 });
      await s.post(e);
      await later();
      const pushed = k.fake.sentTo('Cpush500');
      expect(pushed).toHaveLength(1);
      expect(flexOf(pushed[0])!.altText).toContain('สลิปถูกต้อง');
      const bodiesByKey = new Map<string, Set<string>>();
      for (const a of k.fake.pushAttempts)
        if (a.retryKey) bodiesByKey.set(a.retryKey, (bodiesByKey.get(a.retryKey) ?? new Set()).add(a.body));
      for (const [key, bodies] of bodiesByKey) expect(bodies.size, `retry key ${key}`).toBe(1);
    });

    it('a reply that timed out after LINE accepted it is not sent again, and not pushed (within the job and on a re-run)', async () => {
      const s = await k.linkedShop();
      const t = await bank.register();
      const e = ev('message', user('Uslow'), imageMessage(upload(await bank.slip(t.transRef))));
      k.fake.fail('reply', { status: 200, acceptThenHangMs: 1500 });
      await s.post(e);
      expect(delivered('Uslow', e)).toHaveLength(1); // the accepted reply, nothing else

      const t2 = await bank.register();
      const e2 = ev('message', user('Uslow2'), imageMessage(upload(await bank.slip(t2.transRef))));
      // Every attempt of the first run hangs (LINE posted the first one): the job fails, the re-run
      // finds the reply token too old and must not push blindly.
      k.fake.fail(
        'reply',
        { status: 200, acceptThenHangMs: 1500 },
        { status: 200, acceptThenHangMs: 1500 },
        { status: 200, acceptThenHangMs: 1500 },
      );
      await s.post(e2);
      await later();
      expect(delivered('Uslow2', e2)).toHaveLength(1);
      expect(k.fake.sentTo('Uslow2')).toHaveLength(0);
    });

    it('the same image again is a replay in warning colours: when and what it was, in both audiences; at the API it is a DUPLICATE', async () => {
      const s = await k.linkedShop({ language: 'en' });
      await linkGroup(s, 'Creplay');
      const t = await bank.register({ amount: 990 });
      const img = await bank.slip(t.transRef);
      const e1 = ev('message', user('Ubuyer'), imageMessage(upload(img)));
      const e2 = ev('message', user('Ubuyer'), imageMessage(upload(img)));
      const e3 = ev('message', grp('Creplay'), imageMessage(upload(img)));
      await s.post(e1);
      await s.post(e2);
      await s.post(e3);
      expect(flexOf(replyFor(e1)[0])!.altText).toContain('Payment received');
      const customer = flexOf(replyFor(e2)[0])!;
      expect(customer.altText).toContain('This slip was already sent');
      expect(customer.contents).toMatchObject({ header: { backgroundColor: '#E67E22' } });
      expect(json(customer)).toContain('(result: Genuine)');
      expect(json(customer)).not.toContain('deliver');
      const staff = flexOf(replyFor(e3)[0])!;
      expect(json(staff)).toMatch(
        /This exact image was already checked at \d{1,2} \w{3} \d{4}, \d{2}:\d{2} \(result: Genuine\); do not deliver twice\./,
      );
      expect(json(staff)).not.toContain('#1DB446');
      const api = await k.h.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        headers: { ...s.auth, 'content-type': 'application/octet-stream' },
        payload: img,
      });
      // Not a replay of the chat's record (SUCCESS, verified): a bot crediting on it would pay a second order.
      if (api.statusCode === 200)
        expect(api.json().data).toMatchObject({ status: 'DUPLICATE', verified: false, duplicate: true, cached: false });
    });

    it('1:1 vs group wording; INVALID is a sentence; DUPLICATE shows the first use; Thai bank names; join prompt says how to link', async () => {
      const s = await k.linkedShop();
      await linkGroup(s, 'Cwords');
      await k.h.c.line.groups.setSilent(s.shop.id, (await k.h.c.line.channels.list(s.shop.id)).groups[0]!.id, false, 'user:test');
      const photo = await renderNonSlip('photo', 'jpg');
      const c1 = ev('message', user('Uwords'), imageMessage(upload(photo)));
      const g1 = ev('message', grp('Cwords'), imageMessage(upload(await renderNonSlip('photo', 'png'))));
      await s.post(c1);
      await s.post(g1);
      const cust = json(flexOf(replyFor(c1)[0]));
      expect(cust).toContain('โปรดส่งรูปสลิปที่เห็นคิวอาร์โค้ดชัดเจน');
      expect(cust).not.toMatch(/ขอให้ลูกค้า|อย่าส่งสินค้า|แดชบอร์ด/);
      expect(cust).not.toContain('"text":"-"');
      expect(json(flexOf(replyFor(g1)[0]))).toContain('ขอให้ลูกค้าส่งรูปสลิป');

      const t = await bank.register({ amount: 1500 });
      const first = ev('message', grp('Cwords'), imageMessage(upload(await bank.slip(t.transRef))));
      await s.post(first);
      expect(json(flexOf(replyFor(first)[0]))).toContain('ธนาคารไทยพาณิชย์'); // sendingBank 014
      expect(json(flexOf(replyFor(first)[0]))).not.toContain('Siam Commercial');
      const again = ev('message', user('Uwords'), imageMessage(upload(await bank.slip(t.transRef, 'jpeg70', 'jpg'))));
      await s.post(again);
      const dup = json(flexOf(replyFor(again)[0]));
      expect(dup).toContain('สลิปนี้เคยใช้ชำระแล้ว');
      expect(dup).toContain('ใช้ครั้งแรกเมื่อ');
      expect(dup).toMatch(/ใช้ครั้งแรกเมื่อ.*1,500\.00 บาท/);
      expect(dup).not.toContain('อย่าส่งสินค้า');

      const join = ev('join', grp('Cnew'));
      await s.post(join);
      const prompt = textOf(replyFor(join)[0]);
      expect(prompt).toContain('สร้างรหัสเชื่อมกลุ่ม');
      expect(prompt).toContain('ยังไม่ได้เชื่อม');
      expect(prompt).not.toContain('พร้อมใช้งาน');
    });

    it('bank names with bidi overrides and control characters reach LINE and the API clean', async () => {
      const s = await k.linkedShop();
      const t = await bank.register({ amount: 10, sender: { name: 'บจก. \u202Eสมชาย\u202C\u0007 ค้าขาย', account: '4081234567' } });
      const e = ev('message', user('Ubidi'), imageMessage(upload(await bank.slip(t.transRef))));
      await s.post(e);
      const bubble = json(flexOf(replyFor(e)[0]));
      expect(bubble).toContain('บจก. สมชาย ค้าขาย');
      expect(bubble).not.toMatch(/\\u202e|\u202E|\\u0007/i);
      const row = await k.h.c.db
        .selectFrom('transactions')
        .select('sender_name')
        .where('shop_id', '=', s.shop.id)
        .executeTakeFirstOrThrow();
      expect(row.sender_name).toBe('บจก. สมชาย ค้าขาย');
    });

    it('LINE 429 "monthly limit" is terminal: no retry, no second download, the owner told once by e-mail and on the LINE page; push usage counted', async () => {
      const owner = await signup(k.h);
      const fc = k.fake.addChannel();
      const view = await k.h.c.line.channels.link(
        owner.shopId,
        { channelId: '1655123456', channelSecret: fc.secret, accessToken: fc.token },
        'test',
      );
      const post = async (...events: unknown[]) => {
        const r = await k.fake.deliver(`${k.base}${view.webhookPath}`, fc.secret, { destination: fc.botUserId, events });
        expect(r.status).toBe(200);
        await k.drain();
      };
      await k.h.c.payees.add(owner.shopId, { bankCode: '004', accountNumber: '1234566609', holder: 'บจก. ร้านกาแฟ ทดสอบ' }, 'test');

      // A push that works is counted (a reply is not).
      const ok = ev('message', user('Ucount'), textMessage('hello'));
      const c = await k.h.c.line.linkCodes.create(owner.shopId, 'test');
      const code = ev('message', user('Ucount'), textMessage(c.code));
      k.fake.expireReplyToken(code.replyToken);
      await post(ok, code);
      expect(k.fake.sentTo('Ucount')).toHaveLength(1);

      const pushHits = k.fake.hits.push;
      const contentHits = k.fake.hits.content;
      const t = await bank.register();
      const img = upload(await bank.slip(t.transRef));
      const old = lineEvent('message', user('Ulate'), imageMessage(img), k.clock.now().getTime() - 120_000);
      k.fake.fail('push', MONTHLY);
      await post(old);
      expect(k.fake.hits.push - pushHits).toBe(1); // not retried
      expect(k.fake.hits.content - contentHits).toBe(1);
      const job = await k.h.c.db
        .selectFrom('outbox')
        .select(['status', 'attempts'])
        .where('kind', '=', 'line.event')
        .where('shop_id', '=', owner.shopId)
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
      expect(job.status).not.toBe('pending');

      // Later events that could only be pushed are not downloaded or checked again this month.
      const old2 = lineEvent(
        'message',
        user('Ulate'),
        imageMessage(upload(await bank.slip((await bank.register()).transRef))),
        k.clock.now().getTime() - 120_000,
      );
      await post(old2);
      expect(k.fake.hits.content - contentHits).toBe(1);
      expect(k.fake.hits.push - pushHits).toBe(1);
      // Other 429s keep Retry-After and are retried.
      const fresh = ev('message', user('Ufresh'), imageMessage(upload(await bank.slip((await bank.register()).transRef))));
      k.fake.fail('reply', { status: 429, retryAfter: '0' });
      await post(fresh);
      expect(replyFor(fresh)).toHaveLength(1);

      const alerts = await k.h.c.db
        .selectFrom('outbox')
        .select('payload')
        .where('kind', '=', 'owner.alert')
        .where('shop_id', '=', owner.shopId)
        .execute();
      expect(alerts.filter((a) => JSON.parse(a.payload).type === 'LINE_MONTHLY_LIMIT')).toHaveLength(1);
      // The kit's worker runs only the LINE module's handlers (its owner.alert side pushes nothing for
      // this type); run the job again through the container's composed LINE + e-mail handler.
      await k.h.c.db
        .updateTable('outbox')
        .set({ status: 'pending' })
        .where('kind', '=', 'owner.alert')
        .where('shop_id', '=', owner.shopId)
        .execute();
      const mailer = createOutboxWorker({
        db: k.h.c.db,
        caps: k.h.c.caps,
        clock: k.h.c.clock,
        handlers: { 'owner.alert': k.h.c.outboxHandlers['owner.alert']! },
        maxAttempts: 3,
      });
      await mailer.runOnce();
      await mailer.stop({ timeoutMs: 1000 });
      const mails = (await k.h.c.mail.list({ to: owner.email })).filter((m) => m.template === 'owner_alert_line_monthly_limit');
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).toContain('monthly limit');
      // The subject names the alert in words, never the internal code.
      expect(mails[0]!.subject).toContain('LINE monthly message limit reached');
      expect(mails[0]!.subject).not.toContain('LINE_MONTHLY_LIMIT');

      const page = await k.h.app.inject({ url: '/api/dashboard/line', headers: owner.auth });
      const usage = page.json().data.pushUsage[0];
      expect(usage).toMatchObject({ lineChannelId: view.id, pushes: 1 });
      expect(usage.monthlyLimitReachedAt).toEqual(expect.any(String));
    });

    // The owner e-mail and the LINE page say raising the message plan lifts the limit, but the mark held
    // every push until the month turned: an owner who paid LINE still got no answers pushed, no alerts.
    it('the monthly limit lifts once LINE lets the OA push again (the owner raised the plan): the mark goes and pushes resume', async () => {
      const owner = await signup(k.h);
      const fc = k.fake.addChannel({ monthlyLimit: 0 }); // LINE's allowance used up: every push is refused
      const view = await k.h.c.line.channels.link(
        owner.shopId,
        { channelId: '1655123457', channelSecret: fc.secret, accessToken: fc.token },
        'test',
      );
      await k.h.c.payees.add(owner.shopId, { bankCode: '004', accountNumber: '1234566609', holder: 'บจก. ร้านกาแฟ ทดสอบ' }, 'test');
      const pushOnly = async (chat: string) => {
        const img = upload(await bank.slip((await bank.register()).transRef));
        const e = lineEvent('message', user(chat), imageMessage(img), k.clock.now().getTime() - 120_000);
        const r = await k.fake.deliver(`${k.base}${view.webhookPath}`, fc.secret, { destination: fc.botUserId, events: [e] });
        expect(r.status).toBe(200);
        await k.drain();
      };
      // The mark the LINE page shows (read from its table: the dashboard session ends as the clock moves on).
      const marked = async () =>
        (await k.h.c.db.selectFrom('line_notices').select('notice').where('shop_id', '=', owner.shopId).execute()).some((n) =>
          n.notice.startsWith('LINE_MONTHLY_LIMIT:'),
        );

      await pushOnly('Umonth1');
      expect(await marked()).toBe(true);
      const page = await k.h.app.inject({ url: '/api/dashboard/line', headers: owner.auth });
      expect(page.json().data.pushUsage[0].monthlyLimitReachedAt).toEqual(expect.any(String));
      const contentHits = k.fake.hits.content;
      // Still at the limit ten minutes on: LINE is asked (no message is sent), the mark stays, nothing is downloaded.
      k.clock.advance(11 * 60_000);
      await pushOnly('Umonth2');
      expect(k.fake.hits.content).toBe(contentHits);
      expect(await marked()).toBe(true);

      k.fake.channel(fc.channelId)!.monthlyLimit = null; // the owner raised the plan in LINE Official Account Manager
      k.clock.advance(11 * 60_000);
      await pushOnly('Umonth3');
      expect(k.fake.hits.content).toBe(contentHits + 1);
      expect(flexOf(k.fake.sentTo('Umonth3')[0])!.altText).toContain('ได้รับยอดโอนแล้ว');
      expect(await marked()).toBe(false);
    });

    it('an image shared from outside LINE (contentProvider external) is downloaded from its URL and answered in 1:1', async () => {
      const s = await k.linkedShop();
      const t = await bank.register({ amount: 42 });
      const id = upload(await bank.slip(t.transRef));
      const before = k.fake.externalHits;
      const e = ev('message', user('Uext'), externalImageMessage(id, `${k.fake.url}/external/${id}`));
      await s.post(e);
      expect(k.fake.externalHits - before).toBe(1);
      expect(flexOf(replyFor(e)[0])!.altText).toContain('ได้รับยอดโอนแล้ว');
    });

    it('a signed event whose id or type holds NUL or bidi controls is ignored with 200 (LINE would redeliver a 500 forever)', async () => {
      const s = await k.linkedShop();
      const bad = [
        { ...ev('message', user(), textMessage('hi')), webhookEventId: '01BAD\u0000ID' },
        { ...ev('message', user(), textMessage('hi')), type: 'mess\u0000age' },
        { ...ev('message', user('U\u202Eevil')), message: { id: 'x\u0000', type: 'image' } },
      ];
      const r = await s.send(bad);
      expect(r.status).toBe(200);
      expect(r.body.data.received).toBe(1); // the third event is kept, without its poisoned fields
      const text = ev('message', user(), { message: { id: 'mt1', type: 'text', text: 'AB\u0000CD' } });
      expect((await s.send([text])).status).toBe(200);
      await k.drain();
    });
  });
}
