import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import sharp from 'sharp';
import { AppError } from '../../src/errors.js';
import { renderNonSlip } from '@slipcheck/sandbox-bank';
import { DB_KINDS, pgMissing, skipNote } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { imageMessage, lineEvent, textMessage, type Sent } from './fake-line-platform.js';
import { chatHelpers, startLineKit, type LineKit } from './line-test-kit.js';

// End to end: LINE image message -> content download -> the shared verify pipeline (sandbox bank as
// checker) -> Flex reply; results land in the API's transaction list with source LINE.
const flexOf = (m: Sent | undefined) => m?.body.messages.find((x) => x.type === 'flex');
const textOf = (m: Sent | undefined) => (m?.body.messages ?? []).map((x) => x.text ?? x.altText ?? '').join('\n');
const flexText = (f: unknown): string => JSON.stringify(f ?? {});

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`LINE slips through the pipeline [${kind}]${skipNote(kind)}`, () => {
    let k: LineKit;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    const { ev, user, grp, upload } = chatHelpers(() => k, `m-${kind}`, 'Ucustomer01');
    const replyFor = (e: { replyToken?: string }) => k.fake.replies.find((r) => r.body.replyToken === e.replyToken);
    const linkGroup = async (s: Awaited<ReturnType<LineKit['linkedShop']>>, g: string) => {
      const c = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', grp(g, 'Ulinker'), textMessage(c.code)));
    };

    beforeAll(async () => {
      bank = await startSandbox();
      k = await startLineKit(kind, { CHECKER_URL: bank.url, DECODE_THREADS: '1' });
    });
    afterAll(async () => {
      expect(k.fake.rejected).toEqual([]);
      await k.close();
      await bank.close();
    });

    it('1:1 chat: a slip gets a Thai Flex reply; the result is in GET /api/v1/transactions with source LINE and uses the shared pool', async () => {
      const s = await k.linkedShop();
      const t = await bank.register({ amount: 1250.5 });
      const e = ev('message', user(), imageMessage(upload(await bank.slip(t.transRef))));
      await s.post(e);
      const flex = flexOf(replyFor(e));
      expect(flex).toBeTruthy();
      // 1:1: the customer reads it (customer wording); the sender's bank in Thai in a Thai message.
      expect(flex!.altText).toContain('ได้รับยอดโอนแล้ว');
      expect(flexText(flex)).toContain('1,250.50 บาท');
      expect(flexText(flex)).toMatch(/ธนาคาร[ก-๙]+/);
      expect(flexText(flex)).toContain('สมชาย');
      expect(flexText(flex)).toContain(t.transRef);
      const list = await k.h.app.inject({ url: '/api/v1/transactions', headers: s.auth });
      expect(list.statusCode).toBe(200);
      const items = list.json().data.items ?? list.json().data;
      expect(items).toEqual(expect.arrayContaining([expect.objectContaining({ source: 'LINE', status: 'SUCCESS', transRef: t.transRef })]));
      const q = await k.h.app.inject({ url: '/api/v1/quota', headers: s.auth });
      expect(q.json().data.used).toBe(1);
      const resultJobs = await k.h.c.db
        .selectFrom('outbox')
        .select('payload')
        .where('kind', '=', 'result.created')
        .where('shop_id', '=', s.shop.id)
        .execute();
      expect(resultJobs.map((j) => JSON.parse(j.payload).source)).toEqual(['LINE']);
    });

    it('English shops get English; a non-slip picture in 1:1 is always answered', async () => {
      const s = await k.linkedShop({ language: 'en' });
      const t = await bank.register({ amount: 99 });
      const e1 = ev('message', user(), imageMessage(upload(await bank.slip(t.transRef))));
      await s.post(e1);
      expect(flexOf(replyFor(e1))!.altText).toContain('Payment received');
      expect(flexText(flexOf(replyFor(e1)))).not.toMatch(/ธนาคาร/);
      const e2 = ev('message', user(), imageMessage(upload(await renderNonSlip('photo', 'jpg'))));
      await s.post(e2);
      expect(flexOf(replyFor(e2))!.altText).toContain('This slip could not be checked');
    });

    it('a TrueMoney wallet slip: a Thai message names the wallet in Thai, an English one "TrueMoney Wallet"', async () => {
      for (const lang of ['th', 'en'] as const) {
        const s = await k.linkedShop({ language: lang });
        const t = await bank.register({ sendingBank: 'TRUEMONEY', amount: 150 });
        const e = ev('message', user(), imageMessage(upload(await bank.slip(t.transRef))));
        await s.post(e);
        const flex = flexOf(replyFor(e));
        expect(flex!.altText).toContain(lang === 'th' ? 'ได้รับยอดโอนแล้ว' : 'Payment received');
        const senderRow = flexText(flex);
        if (lang === 'th') {
          expect(senderRow).toContain('ทรูมันนี่ วอลเล็ท');
          expect(senderRow).not.toMatch(/TrueMoney/i);
        } else {
          expect(senderRow).toContain('TrueMoney Wallet');
          expect(senderRow).not.toContain('ทรูมันนี่');
        }
      }
    });

    it('groups: silent on pictures without a slip QR (no record), unless the group opts out of silence', async () => {
      const s = await k.linkedShop();
      await linkGroup(s, 'Cquiet');
      const before = k.fake.replies.length + k.fake.pushes.length;
      const e = ev('message', grp('Cquiet'), imageMessage(upload(await renderNonSlip('promptpay', 'png'))));
      await s.post(e);
      expect(k.fake.replies.length + k.fake.pushes.length).toBe(before);
      expect(await k.h.c.db.selectFrom('transactions').select('id').where('shop_id', '=', s.shop.id).execute()).toHaveLength(0);
      const g = (await k.h.c.line.channels.list(s.shop.id)).groups[0]!;
      await k.h.c.line.groups.setSilent(s.shop.id, g.id, false, 'user:test');
      const e2 = ev('message', grp('Cquiet'), imageMessage(upload(await renderNonSlip('photo', 'png'))));
      await s.post(e2);
      expect(flexOf(replyFor(e2))!.altText).toContain('สลิปไม่ถูกต้อง');
      // An unlinked group hears nothing and costs nothing.
      const t = await bank.register();
      const e3 = ev('message', grp('Cnot-linked'), imageMessage(upload(await bank.slip(t.transRef))));
      await s.post(e3);
      expect(replyFor(e3)).toBeUndefined();
    });

    it('an old slip (stale, alert mode) in 1:1: the customer is not told "payment received", and gets no staff instruction', async () => {
      const transDate = new Date(k.clock.now().getTime() - 3 * 86_400_000).toISOString();
      for (const lang of ['th', 'en'] as const) {
        const s = await k.linkedShop({ language: lang });
        const t = await bank.register({ amount: 410, transDate });
        const e = ev('message', user(), imageMessage(upload(await bank.slip(t.transRef))));
        await s.post(e);
        const rec = await k.h.c.db
          .selectFrom('transactions')
          .select(['status', 'stale'])
          .where('shop_id', '=', s.shop.id)
          .executeTakeFirstOrThrow();
        expect([rec.status, !!rec.stale]).toEqual(['SUCCESS', true]);
        const flex = flexOf(replyFor(e))! as unknown as { altText: string; contents: { header: { backgroundColor: string } } };
        // Staff read the official account's 1:1 chat too: a green "payment received" was what they saw.
        expect(flex.contents.header.backgroundColor).toBe('#E67E22');
        expect(flex.altText).not.toMatch(/ได้รับยอดโอนแล้ว|Payment received/);
        expect(flexText(flex)).not.toMatch(/ร้านได้รับยอดโอนของคุณแล้ว|the shop has received your transfer/);
        // "Make sure it is a recent transfer" is the shop's to do, not the customer's.
        expect(flexText(flex)).not.toMatch(/โปรดตรวจสอบว่าเป็นการโอนล่าสุด|make sure it is a recent transfer/);
        expect(flexText(flex)).toContain(lang === 'th' ? 'ทางร้านจะตรวจสอบ' : 'The shop will check it');
        expect(flexText(flex)).toContain('410.00');
      }
    });

    it('a receiver the bank data cannot confirm (RECEIVER_UNVERIFIED) is not called "paid to another account"', async () => {
      for (const lang of ['th', 'en'] as const) {
        const s = await k.linkedShop({ language: lang });
        await linkGroup(s, `Cunverified-${lang}`);
        // A wallet transfer: the slip shows only the wallet's last digits and part of a name.
        const t = await bank.register({
          amount: 35,
          receiver: { name: 'ร้านกาแฟ', bankCode: '004', proxy: { type: 'EWALLET', value: '123456789012345' } },
        });
        const e1 = ev('message', user(), imageMessage(upload(await bank.slip(t.transRef))));
        const e2 = ev('message', grp(`Cunverified-${lang}`), imageMessage(upload(await bank.slip(t.transRef, 'jpeg70', 'jpg'))));
        await s.post(e1, e2);
        const recs = await k.h.c.db.selectFrom('transactions').select(['status', 'error_code']).where('shop_id', '=', s.shop.id).execute();
        expect(recs).toEqual([
          { status: 'RECEIVER_MISMATCH', error_code: 'RECEIVER_UNVERIFIED' },
          { status: 'RECEIVER_MISMATCH', error_code: 'RECEIVER_UNVERIFIED' },
        ]);
        for (const e of [e1, e2]) {
          const flex = flexOf(replyFor(e))! as unknown as { altText: string; contents: { header: { backgroundColor: string } } };
          // Not known to be another account: "look again" orange, not the red of money gone elsewhere.
          expect(flex.contents.header.backgroundColor).toBe('#E67E22');
          expect(flexText(flex)).not.toMatch(
            /ไม่ใช่ของร้าน|ไม่ได้โอนเข้าบัญชีของร้าน|different account|another account|not the shop's|did not go to the shop's account/,
          );
          expect(flexText(flex)).toContain(lang === 'th' ? 'ยืนยัน' : 'confirm');
        }
      }
    });

    it('a duplicate slip posted twice in one group: the second answer warns, one record, one quota unit', async () => {
      const s = await k.linkedShop();
      await linkGroup(s, 'Cdup');
      const t = await bank.register({ amount: 500 });
      const img = await bank.slip(t.transRef);
      const e1 = ev('message', grp('Cdup'), imageMessage(upload(img)));
      const e2 = ev('message', grp('Cdup', 'Uother'), imageMessage(upload(img)));
      await s.post(e1);
      await s.post(e2);
      expect(flexOf(replyFor(e1))!.altText).toContain('สลิปถูกต้อง');
      expect(flexOf(replyFor(e2))!.altText).toContain('เคยตรวจแล้ว');
      // Another picture of the same transfer (a re-render) is a DUPLICATE.
      const e3 = ev('message', grp('Cdup'), imageMessage(upload(await bank.slip(t.transRef, 'jpeg70', 'jpg'))));
      await s.post(e3);
      expect(flexOf(replyFor(e3))!.altText).toContain('สลิปซ้ำ');
      const rows = await k.h.c.db.selectFrom('transactions').select(['status', 'charged']).where('shop_id', '=', s.shop.id).execute();
      expect(rows.map((r) => r.status).sort()).toEqual(['DUPLICATE', 'SUCCESS']);
      const q = await k.h.app.inject({ url: '/api/v1/quota', headers: s.auth });
      expect(q.json().data.used).toBe(1);
    });

    it('reply token expired or used: falls back to push to the group; an old event goes straight to push', async () => {
      const s = await k.linkedShop();
      await linkGroup(s, 'Cpush');
      const t = await bank.register();
      const e = ev('message', grp('Cpush'), imageMessage(upload(await bank.slip(t.transRef))));
      k.fake.expireReplyToken(e.replyToken);
      await s.post(e);
      const pushed = k.fake.sentTo('Cpush');
      expect(pushed).toHaveLength(1);
      expect(flexOf(pushed[0])!.altText).toContain('สลิปถูกต้อง');
      expect(pushed[0]!.retryKey).toMatch(/^[0-9a-f-]{36}$/);

      const replyHits = k.fake.hits.reply;
      const t2 = await bank.register();
      const old = lineEvent('message', grp('Cpush'), imageMessage(upload(await bank.slip(t2.transRef))), k.clock.now().getTime() - 120_000);
      await s.post(old);
      expect(k.fake.hits.reply).toBe(replyHits);
      expect(k.fake.sentTo('Cpush')).toHaveLength(2);
    });

    it('content download: expired content gets a polite reply; 5xx is retried then answered; 429 honours Retry-After', async () => {
      const s = await k.linkedShop();
      k.fake.setContentStatus('gone-1', 410);
      const gone = ev('message', user(), imageMessage('gone-1'));
      await s.post(gone);
      expect(textOf(replyFor(gone))).toContain('หมดอายุ');

      const t = await bank.register();
      const id = upload(await bank.slip(t.transRef));
      const hits = k.fake.hits.content;
      k.fake.fail('content', { status: 503 }, { status: 502 }, { status: 500 });
      const failing = ev('message', user(), imageMessage(id));
      await s.post(failing);
      expect(k.fake.hits.content - hits).toBe(3);
      expect(textOf(replyFor(failing))).toContain('ดาวน์โหลดรูปจาก LINE ไม่สำเร็จ');

      k.fake.fail('content', { status: 429, retryAfter: '1' });
      const started = Date.now();
      const limited = ev('message', user(), imageMessage(id));
      await s.post(limited);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(flexOf(replyFor(limited))!.altText).toContain('ได้รับยอดโอนแล้ว');
    });

    it('quota exhausted: a polite reply each time, the owner alerted once', async () => {
      const s = await k.linkedShop({ plan: 'STARTER' });
      const c = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', user('Uboss'), textMessage(c.code)));
      await k.h.c.quota.adjust(s.shop.id, { used: 510 }, 'test');
      for (let i = 0; i < 2; i++) {
        const t = await bank.register();
        const e = ev('message', user('Ubuyer'), imageMessage(upload(await bank.slip(t.transRef))));
        await s.post(e);
        expect(textOf(replyFor(e))).toContain('ใช้สิทธิ์ตรวจสลิปของเดือนนี้ครบแล้ว');
      }
      const alerts = k.fake.sentTo('Uboss');
      expect(alerts).toHaveLength(1);
      expect(textOf(alerts[0])).toContain('ครบแล้ว');
      expect(await k.h.c.db.selectFrom('transactions').select('id').where('shop_id', '=', s.shop.id).execute()).toHaveLength(0);
    });

    it('quota exhausted: another picture of a transfer the shop already credited is still called a duplicate, never "confirm manually"', async () => {
      // The quota wall stands before the decoder, so a re-used slip got "the shop will confirm your payment
      // manually" (customer) / "confirm the payment manually" (staff): staff then found the money of the
      // first payment in the bank app and handed over the goods a second time.
      const s = await k.linkedShop({ plan: 'STARTER' });
      await linkGroup(s, 'Cwall');
      const t = await bank.register({ amount: 420 });
      const first = ev('message', user('Upayer'), imageMessage(upload(await bank.slip(t.transRef))));
      await s.post(first);
      expect(flexOf(replyFor(first))!.altText).toContain('ได้รับยอดโอนแล้ว');
      await k.h.c.quota.adjust(s.shop.id, { used: 510 }, 'test');

      const again = ev('message', user('Upayer'), imageMessage(upload(await bank.slip(t.transRef, 'jpeg70', 'jpg'))));
      await s.post(again);
      expect(textOf(replyFor(again))).not.toContain('ครบแล้ว');
      expect(flexOf(replyFor(again))!.altText).toContain('สลิปนี้เคยใช้ชำระแล้ว');
      expect(flexText(flexOf(replyFor(again)))).toContain('420.00 บาท');
      expect(flexText(flexOf(replyFor(again)))).toContain('ใช้ครั้งแรกเมื่อ');

      const inGroup = ev('message', grp('Cwall'), imageMessage(upload(await bank.slip(t.transRef, 'camera12mp', 'jpg'))));
      await s.post(inGroup);
      expect(flexOf(replyFor(inGroup))!.altText).toContain('สลิปซ้ำ');

      // A transfer the shop has not seen still meets the wall, and nothing was charged or recorded past it.
      const t2 = await bank.register();
      const fresh = ev('message', user('Upayer'), imageMessage(upload(await bank.slip(t2.transRef))));
      await s.post(fresh);
      expect(textOf(replyFor(fresh))).toContain('ใช้สิทธิ์ตรวจสลิปของเดือนนี้ครบแล้ว');
      const rows = await k.h.c.db.selectFrom('transactions').select('status').where('shop_id', '=', s.shop.id).execute();
      expect(rows.map((r) => r.status)).toEqual(['SUCCESS']);
      const shop = await k.h.c.shops.get(s.shop.id);
      expect((await k.h.c.quota.snapshot(shop, await k.h.c.plans.get('STARTER'))).used).toBe(510);
    });

    it('quota exhausted: a picture without a slip is told so, not "the shop will confirm your payment manually"', async () => {
      // The wall stands before the decoder: a customer's photo of a product (or anything not a slip) in 1:1
      // was answered "the shop used up its checks; it will confirm your payment manually", as if a payment
      // had been sent. Below the wall the same photo is told "no slip in this picture".
      const s = await k.linkedShop({ plan: 'STARTER' });
      const c = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', user('Uboss-nonslip'), textMessage(c.code)));
      await linkGroup(s, 'Cwall-nonslip');
      const g = (await k.h.c.line.channels.list(s.shop.id)).groups[0]!;
      await k.h.c.line.groups.setSilent(s.shop.id, g.id, false, 'user:test');
      await k.h.c.quota.adjust(s.shop.id, { used: 510 }, 'test');

      const photo = ev('message', user('Ubrowser'), imageMessage(upload(await renderNonSlip('photo', 'jpg'))));
      await s.post(photo);
      expect(textOf(replyFor(photo))).not.toContain('ครบแล้ว');
      expect(flexText(flexOf(replyFor(photo)))).toContain('ไม่พบสลิปโอนเงินในรูปนี้');
      const inGroup = ev('message', grp('Cwall-nonslip'), imageMessage(upload(await renderNonSlip('photo', 'png'))));
      await s.post(inGroup);
      expect(textOf(replyFor(inGroup))).not.toContain('ครบแล้ว');
      expect(flexText(flexOf(replyFor(inGroup)))).toContain('รูปนี้ไม่ใช่สลิป');
      // A photo is not a slip that met the wall: the owner is not told slips go unchecked.
      expect(k.fake.sentTo('Uboss-nonslip')).toHaveLength(0);
      // A real slip still meets the wall.
      const t = await bank.register();
      const slip = ev('message', user('Ubrowser'), imageMessage(upload(await bank.slip(t.transRef))));
      await s.post(slip);
      expect(textOf(replyFor(slip))).toContain('ใช้สิทธิ์ตรวจสลิปของเดือนนี้ครบแล้ว');
      expect(await k.h.c.db.selectFrom('transactions').select('id').where('shop_id', '=', s.shop.id).execute()).toHaveLength(0);
    });

    it('a picture with the slips of two transfers: "one slip per picture", not charged, heard in a silent group too', async () => {
      // Before, one of the two was checked and the printed amount was read off the other slip: a genuine
      // 555-baht payment beside a 77-baht slip was answered FRAUD "edited slip".
      const s = await k.linkedShop();
      await linkGroup(s, 'Ctwo');
      const a = await bank.register({ amount: 77 });
      const b = await bank.register({ amount: 555 });
      const [left, right] = [await bank.slip(a.transRef), await bank.slip(b.transRef)];
      const m = await sharp(left).metadata();
      const both = await sharp({ create: { width: m.width! * 2, height: m.height!, channels: 3, background: '#ffffff' } })
        .composite([
          { input: left, left: 0, top: 0 },
          { input: right, left: m.width!, top: 0 },
        ])
        .png()
        .toBuffer();
      const e = ev('message', user('Utwo'), imageMessage(upload(both)));
      await s.post(e);
      expect(flexOf(replyFor(e))!.altText).toContain('รูปนี้มีสลิปมากกว่าหนึ่งรายการ');
      expect(flexText(flexOf(replyFor(e)))).toContain('โปรดส่งสลิปทีละรูป');
      const g = ev('message', grp('Ctwo'), imageMessage(upload(both)));
      await s.post(g);
      expect(flexOf(replyFor(g))!.altText).toContain('มีสลิปหลายรายการในรูปเดียว'); // not "invalid slip": nothing was checked
      expect(flexText(flexOf(replyFor(g)))).toContain('ขอให้ลูกค้าส่งสลิปทีละรูป');
      const rows = await k.h.c.db
        .selectFrom('transactions')
        .select(['status', 'error_code', 'charged'])
        .where('shop_id', '=', s.shop.id)
        .execute();
      expect(rows).toEqual([{ status: 'INVALID', error_code: 'MULTIPLE_SLIPS', charged: 0 }]);
      // Each slip alone is then checked as usual.
      const alone = ev('message', user('Utwo'), imageMessage(upload(right)));
      await s.post(alone);
      expect(flexOf(replyFor(alone))!.altText).toContain('ได้รับยอดโอนแล้ว');
    });

    it('a TRIAL that has ended: the customer is told so, no record', async () => {
      const s = await k.linkedShop({ plan: 'TRIAL' });
      await k.h.c.db
        .updateTable('shops')
        .set({ trial_ends_at: new Date(k.clock.now().getTime() - 60_000).toISOString() })
        .where('id', '=', s.shop.id)
        .execute();
      const t = await bank.register();
      const e = ev('message', user('Ulate'), imageMessage(upload(await bank.slip(t.transRef))));
      await s.post(e);
      expect(textOf(replyFor(e))).toContain('ช่วงทดลองใช้ของร้านสิ้นสุดแล้ว');
      expect(await k.h.c.db.selectFrom('transactions').select('id').where('shop_id', '=', s.shop.id).execute()).toHaveLength(0);
    });

    it("the reply follows the 402's reason (the quota service decides the trial rule once, the handler reads it)", async () => {
      // A trial that has not ended, answered TRIAL_ENDED: the handler says what the quota service decided.
      const s = await k.linkedShop({ plan: 'TRIAL' });
      const owner = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', user('Uowner402'), textMessage(owner.code)));
      const refuse = (reason: string) =>
        vi
          .spyOn(k.h.c.quota, 'reserve')
          .mockRejectedValueOnce(new AppError('QUOTA_EXCEEDED', 402, 'refused', { quota: { used: 1, limit: 50, remaining: 0 }, reason }));
      const spy = refuse('TRIAL_ENDED');
      const t = await bank.register();
      const ended = ev('message', user('Ureason1'), imageMessage(upload(await bank.slip(t.transRef))));
      await s.post(ended);
      expect(spy).toHaveBeenCalledTimes(1);
      expect(textOf(replyFor(ended))).toContain('ช่วงทดลองใช้ของร้านสิ้นสุดแล้ว');
      expect(k.fake.sentTo('Uowner402')).toHaveLength(0);
      spy.mockRestore();

      // A trial whose end date has passed, answered MONTHLY_QUOTA: the quota reply and the owner's alert.
      await k.h.c.db
        .updateTable('shops')
        .set({ trial_ends_at: new Date(k.clock.now().getTime() - 60_000).toISOString() })
        .where('id', '=', s.shop.id)
        .execute();
      const spy2 = refuse('MONTHLY_QUOTA');
      const monthly = ev('message', user('Ureason2'), imageMessage(upload(await bank.slip(t.transRef))));
      await s.post(monthly);
      expect(spy2).toHaveBeenCalledTimes(1);
      expect(textOf(replyFor(monthly))).toContain('ใช้สิทธิ์ตรวจสลิปของเดือนนี้ครบแล้ว');
      expect(k.fake.sentTo('Uowner402')).toHaveLength(1);
      spy2.mockRestore();
    });

    it("a trial whose 50 slips are used up: the customer hears the trial's checks are used (not 'this month'), the owner that they do not start again next month", async () => {
      const s = await k.linkedShop({ plan: 'TRIAL' });
      const owner = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', user('UownerTrial'), textMessage(owner.code)));
      await k.h.c.quota.adjust(s.shop.id, { used: 49 }, 'test');
      // The 50th slip is checked; its charge reaches the limit and the owner is told (the verify's alert).
      const last = ev('message', user('UtrialQuota'), imageMessage(upload(await bank.slip((await bank.register()).transRef))));
      await s.post(last);
      expect(flexOf(replyFor(last))!.altText).toContain('ได้รับยอดโอนแล้ว');
      const alert = k.fake
        .sentTo('UownerTrial')
        .map((m) => JSON.stringify(m))
        .join('\n');
      expect(alert).toContain('ใช้สิทธิ์ตรวจสลิปของช่วงทดลองใช้ครบแล้ว');
      expect(alert).not.toContain('เดือน');
      // The 51st is refused, in words that do not promise next month.
      const e = ev('message', user('UtrialQuota'), imageMessage(upload(await bank.slip((await bank.register()).transRef))));
      await s.post(e);
      expect(textOf(replyFor(e))).toContain('ร้านใช้สิทธิ์ตรวจสลิปของช่วงทดลองใช้ครบแล้ว');
      expect(textOf(replyFor(e))).not.toContain('เดือน');
      expect(await k.h.c.db.selectFrom('transactions').select('id').where('shop_id', '=', s.shop.id).execute()).toHaveLength(1);
    });

    it('a shop without a payee account: staff in a group are told to add one, a customer in 1:1 only that the shop checks by hand', async () => {
      const s = await k.linkedShop({ payee: false });
      const t = await bank.register();
      const e = ev('message', user(), imageMessage(upload(await bank.slip(t.transRef))));
      await s.post(e);
      expect(textOf(replyFor(e))).toContain('ทางร้านจะตรวจสอบยอดโอนให้ด้วยตนเอง');
      expect(textOf(replyFor(e))).not.toContain('แดชบอร์ด');
      await linkGroup(s, 'Cnopayee');
      const g = ev('message', grp('Cnopayee'), imageMessage(upload(await bank.slip(t.transRef))));
      await s.post(g);
      expect(textOf(replyFor(g))).toContain('บัญชีรับเงิน');
    });
  });
}
