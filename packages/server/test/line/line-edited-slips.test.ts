import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, pgMissing, skipNote } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { imageMessage, textMessage, type Sent } from './fake-line-platform.js';
import { chatHelpers, startLineKit, type LineKit } from './line-test-kit.js';

// Issue 20 through LINE: an edited slip (100 THB printed as 1,100.00) in a 1:1 chat (the customer's
// wording) and in a linked group (the staff's wording), with the service reading the picture.
const flexOf = (m: Sent | undefined) => m?.body.messages.find((x) => x.type === 'flex');
const flexText = (f: Record<string, unknown> | undefined): string => JSON.stringify(f ?? {});

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`LINE: edited slips [${kind}]${skipNote(kind)}`, () => {
    let k: LineKit;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    const { ev, user, grp, upload } = chatHelpers(() => k, `edit-${kind}`, 'Ucustomer02');
    const replyFor = (e: { replyToken?: string }) => k.fake.replies.find((r) => r.body.replyToken === e.replyToken);

    beforeAll(async () => {
      bank = await startSandbox();
      k = await startLineKit(kind, { CHECKER_URL: bank.url, DECODE_THREADS: '1', SLIP_EDIT_MODE: 'reject' });
    }, 60_000);
    afterAll(async () => {
      await k?.close();
      await bank?.close();
    });

    it('1:1: the customer is told what the picture says and what the bank says', async () => {
      const s = await k.linkedShop();
      const t = await bank.register({ amount: 100 });
      const e = ev('message', user(), imageMessage(upload(await bank.slip(t.transRef, 'clean', 'png', { edit: 'add' }))));
      await s.post(e);
      const flex = flexOf(replyFor(e));
      expect(flex!.altText).toContain('ยอดเงินในสลิปไม่ตรงกับธนาคาร');
      const body = flexText(flex);
      expect(body).toContain('รูปสลิประบุยอด 1,100.00 บาท แต่ธนาคารแจ้งยอดโอน 100.00 บาท');
      expect(body).toContain('ยอดในรูปสลิป');
      expect(body).not.toContain('อย่าส่งสินค้า');
    });

    it('group: staff read "this slip was edited" with both amounts, in English for an English shop', async () => {
      const s = await k.linkedShop({ language: 'en' });
      const c = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
      await s.post(ev('message', grp('Cedit', 'Ulinker'), textMessage(c.code)));
      const t = await bank.register({ amount: 100 });
      const e = ev('message', grp('Cedit'), imageMessage(upload(await bank.slip(t.transRef, 'clean', 'png', { edit: 'add' }))));
      await s.post(e);
      const flex = flexOf(replyFor(e));
      expect(flex!.altText).toContain('Edited slip');
      expect(flexText(flex)).toContain('The picture says THB 1,100.00, the bank says THB 100.00: this slip was edited.');
    });
  });
}
