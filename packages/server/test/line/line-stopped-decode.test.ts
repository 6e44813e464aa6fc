import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderNonSlip } from '@slipcheck/sandbox-bank';
import type { DecodeResult } from '../../src/modules/slip-qr/slip-qr-decoder.js';
import { DB_KINDS, pgMissing, skipNote } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { sharedDecoderPool } from '../helpers/shared-decoders.js';
import { imageMessage, textMessage, type Sent } from './fake-line-platform.js';
import { chatHelpers, startLineKit, type LineKit } from './line-test-kit.js';

// Seen on the sandbox under load (load average 11 on 2 cores): a genuine slip posted in a linked group
// (silent for non-slips, the default) got no answer and left no record. The group's pre-decode was
// stopped past the decoder's time limit (answered UNREADABLE_IMAGE, `stopped`), and the handler took
// that for "no slip in this picture". A stopped decode is no verdict on the image (the pipeline does
// not even cache it): the slip goes on to the pipeline, and staff hear what it says.
const textOf = (m: Sent | undefined) => JSON.stringify(m?.body.messages ?? []);
const STOPPED: DecodeResult = {
  ok: false,
  errorCode: 'UNREADABLE_IMAGE',
  message: 'image took longer than 2000 ms to decode (stopped after 2105 ms)',
  stopped: true,
};

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(
    `LINE group: a decode stopped past its time limit is not "not a slip" [${kind}]${skipNote(kind)}`,
    () => {
      let k: LineKit;
      let bank: Awaited<ReturnType<typeof startSandbox>>;
      /** How many of the next decodes are stopped (as the pool answers a decoder it killed). */
      let stopNext = 0;
      const real = sharedDecoderPool({});
      const { ev, grp, upload } = chatHelpers(() => k, `stopped-${kind}`, 'Ustaff01');
      const replyFor = (e: { replyToken?: string }) => k.fake.replies.find((r) => r.body.replyToken === e.replyToken);

      beforeAll(async () => {
        bank = await startSandbox();
        k = await startLineKit(
          kind,
          { CHECKER_URL: bank.url },
          {
            decode: async (image: Buffer, shopId?: string) => {
              if (stopNext > 0) {
                stopNext--;
                return STOPPED;
              }
              return real.decode(image, { key: shopId, keep: true });
            },
          },
        );
      }, 60_000);
      afterAll(async () => {
        expect(k.fake.rejected).toEqual([]);
        await k?.close();
        await bank?.close();
      });

      const linkedGroup = async (g: string) => {
        const s = await k.linkedShop();
        const c = await k.h.c.line.linkCodes.create(s.shop.id, 'test');
        await s.post(ev('message', grp(g, 'Ulinker'), textMessage(c.code)));
        return s;
      };

      it('the pre-decode stopped: the slip is still checked and answered', async () => {
        const s = await linkedGroup('Cstopped1');
        const t = await bank.register({ amount: 310.25 });
        stopNext = 1;
        const e = ev('message', grp('Cstopped1'), imageMessage(upload(await bank.slip(t.transRef))));
        await s.post(e);
        expect(textOf(replyFor(e))).toContain('สลิปถูกต้อง');
        expect(textOf(replyFor(e))).toContain('310.25 บาท');
      });

      it('the pre-decode stopped on a photo: the pipeline finds no slip, and the group stays silent', async () => {
        const s = await linkedGroup('Cstopped3');
        stopNext = 1;
        const e = ev('message', grp('Cstopped3'), imageMessage(upload(await renderNonSlip('photo', 'jpg'))));
        await s.post(e);
        expect(replyFor(e)).toBeUndefined();
      });

      it('at the quota wall a stopped decode is no "no slip in this picture" either: the quota answer stands', async () => {
        const s = await k.linkedShop({ plan: 'STARTER' });
        await k.h.c.quota.adjust(s.shop.id, { used: 510 }, 'test');
        const t = await bank.register();
        stopNext = 1;
        const e = ev('message', { type: 'user', userId: 'Ubuyer-stopped' }, imageMessage(upload(await bank.slip(t.transRef))));
        await s.post(e);
        expect(textOf(replyFor(e))).toContain('ใช้สิทธิ์ตรวจสลิปของเดือนนี้ครบแล้ว');
      });

      it('every decode stopped: staff are told the slip could not be read, not left in silence', async () => {
        const s = await linkedGroup('Cstopped2');
        const t = await bank.register({ amount: 99 });
        stopNext = 2;
        const e = ev('message', grp('Cstopped2'), imageMessage(upload(await bank.slip(t.transRef))));
        await s.post(e);
        expect(replyFor(e)).toBeDefined();
        expect(textOf(replyFor(e))).toContain('อ่านคิวอาร์โค้ด');
        // Sent again once the machine is less busy, the same picture is checked (a stopped decode is not kept).
        const again = ev('message', grp('Cstopped2'), imageMessage(upload(await bank.slip(t.transRef))));
        await s.post(again);
        expect(textOf(replyFor(again))).toContain('สลิปถูกต้อง');
      });
    },
  );
}
