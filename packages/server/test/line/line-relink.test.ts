import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeLineLinksOfShop } from '../../src/modules/line/line-repo.js';
import { DB_KINDS, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { imageMessage, lineEvent, textMessage } from './fake-line-platform.js';
import { chatHelpers, startLineKit, type LineKit } from './line-test-kit.js';

// A LINE official account unlinked by one shop and linked by another (the same channel id and
// secret) is the same `line_channels` row. Events LINE delivered while the first shop held it, whose
// jobs are still waiting, belong to that shop: never checked, charged, recorded or answered as the
// new shop's; and nothing the first shop left behind on the channel (group links and their settings,
// this month's push count) carries over to the new one.

/** A logger whose lines the test reads (what an operator would see). */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`LINE channel linked again by another shop [${kind}]${skipNote(kind)}`, () => {
    let k: LineKit;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    const log = capturedLogger();
    const { ev, user, grp, upload } = chatHelpers(() => k, `relink-${kind}`, 'UcustomerOfA');
    const sentTo = (e: { replyToken?: string }, chat: string) => [
      ...k.fake.replies.filter((r) => r.body.replyToken === e.replyToken),
      ...k.fake.pushes.filter((p) => p.body.to === chat),
    ];
    const quotaUsed = async (auth: Record<string, string>) =>
      (await k.h.app.inject({ url: '/api/v1/quota', headers: auth })).json().data.used as number;
    const records = async (auth: Record<string, string>) => {
      const r = await k.h.app.inject({ url: '/api/v1/transactions', headers: auth });
      expect(r.statusCode).toBe(200);
      return (r.json().data.items ?? r.json().data) as Array<{ transRef: string | null }>;
    };
    const jobOf = (webhookEventId: string) =>
      k.h.c.db
        .selectFrom('outbox')
        .select(['status', 'shop_id', 'payload'])
        .where('kind', '=', 'line.event')
        .execute()
        .then((rows) => rows.filter((j) => JSON.parse(j.payload).event.webhookEventId === webhookEventId));
    const linkAgain = (shopId: string, s: Awaited<ReturnType<LineKit['linkedShop']>>) =>
      k.h.c.line.channels.link(shopId, { channelId: s.view.channelId, channelSecret: s.fc.secret, accessToken: s.fc.token }, 'test');

    beforeAll(async () => {
      bank = await startSandbox();
      k = await startLineKit(kind, { CHECKER_URL: bank.url, DECODE_THREADS: '1' }, { logger: log.logger });
    });
    afterAll(async () => {
      expect(k.fake.rejected).toEqual([]);
      await k.close();
      await bank.close();
    });

    it("a slip LINE delivered for shop A, still queued when shop B links the channel, is dropped: B is not charged, recorded or heard in A's chat", async () => {
      const a = await k.linkedShop();
      const t = await bank.register({ amount: 420 });
      const e = ev('message', user('UcustomerOfA'), imageMessage(upload(await bank.slip(t.transRef))));
      expect((await a.send([e])).body.data.received).toBe(1); // queued, not yet run

      await k.h.c.line.channels.unlink(a.shop.id, a.view.id, 'test');
      const b = await seedShop(k.h);
      const bView = await linkAgain(b.shop.id, a);
      expect(bView.shopId).toBe(b.shop.id);
      await k.drain();

      expect(await quotaUsed(b.auth)).toBe(0);
      expect(await records(b.auth)).toEqual([]);
      // A no longer holds the account either: nothing is checked for it on a channel it gave up.
      expect(await quotaUsed(a.auth)).toBe(0);
      expect(await records(a.auth)).toEqual([]);
      expect(sentTo(e, 'UcustomerOfA')).toEqual([]);
      // Settled, not left to retry, and said in the log (with the shop it was delivered for).
      expect((await jobOf(e.webhookEventId)).map((j) => [j.status, j.shop_id])).toEqual([['done', a.shop.id]]);
      expect(log.lines).toContainEqual(
        expect.objectContaining({
          lineChannelId: a.view.id,
          shopId: a.shop.id,
          webhookEventId: e.webhookEventId,
          msg: expect.stringContaining('linked to another shop'),
        }),
      );

      // B's own events on the channel (its new webhook URL) are B's.
      const mine = ev(
        'message',
        user('UcustomerOfB'),
        imageMessage(upload(await bank.slip((await bank.register({ amount: 75 })).transRef))),
      );
      const r = await k.fake.deliver(`${k.base}${bView.webhookPath}`, a.fc.secret, { destination: a.fc.botUserId, events: [mine] });
      expect(r.status).toBe(200);
      await k.drain();
      expect(await quotaUsed(b.auth)).toBe(1);
      expect(sentTo(mine, 'UcustomerOfB')).toHaveLength(1);
      expect(await quotaUsed(a.auth)).toBe(0);
    });

    it('a queued event still runs for the shop that unlinked and linked the same account again', async () => {
      const a = await k.linkedShop();
      const t = await bank.register({ amount: 130 });
      const e = ev('message', user('UcustomerOfA2'), imageMessage(upload(await bank.slip(t.transRef))));
      expect((await a.send([e])).body.data.received).toBe(1);
      await k.h.c.line.channels.unlink(a.shop.id, a.view.id, 'test');
      await linkAgain(a.shop.id, a);
      await k.drain();
      expect(await quotaUsed(a.auth)).toBe(1);
      expect((await records(a.auth)).map((x) => x.transRef)).toEqual([t.transRef]);
      expect(sentTo(e, 'UcustomerOfA2')).toHaveLength(1);
    });

    it("another shop's link starts clean: none of A's group links, group settings or push count", async () => {
      const a = await k.linkedShop();
      const g1 = `Cgrp-relink-1-${kind}`;
      const g2 = `Cgrp-relink-2-${kind}`;
      for (const g of [g1, g2]) {
        const c = await k.h.c.line.linkCodes.create(a.shop.id, 'test');
        await a.post(ev('message', grp(g, 'UstaffOfA'), textMessage(c.code)));
      }
      const aGroups = (await k.h.c.line.channels.list(a.shop.id)).groups;
      expect(aGroups.map((g) => g.groupId).sort()).toEqual([g1, g2]);
      const aG1 = aGroups.find((g) => g.groupId === g1)!;
      await k.h.c.line.groups.setSilent(a.shop.id, aG1.id, false, 'test');
      // An event older than the reply token's life is answered by push: A's push count this month.
      await a.post(lineEvent('join', { type: 'group', groupId: 'Cgrp-relink-push' }, {}, k.clock.now().getTime() - 120_000));
      expect((await k.h.c.line.channels.pushUsage(a.shop.id, [a.view.id]))[0].pushes).toBe(1);

      await k.h.c.line.channels.unlink(a.shop.id, a.view.id, 'test');
      const b = await seedShop(k.h);
      const bView = await linkAgain(b.shop.id, a);
      expect((await k.h.c.line.channels.pushUsage(b.shop.id, [bView.id]))[0].pushes).toBe(0);
      expect((await k.h.c.line.channels.list(b.shop.id)).groups).toEqual([]);

      // B links one of A's old groups: a group of B's, with the default setting, not A's row and choice.
      k.clock.advance(60_000);
      const c = await k.h.c.line.linkCodes.create(b.shop.id, 'test');
      const linkMsg = ev('message', grp(g1, 'UstaffOfB'), textMessage(c.code));
      const r = await k.fake.deliver(`${k.base}${bView.webhookPath}`, a.fc.secret, { destination: a.fc.botUserId, events: [linkMsg] });
      expect(r.status).toBe(200);
      await k.drain();
      const [bG1] = (await k.h.c.line.channels.list(b.shop.id)).groups;
      expect(bG1).toMatchObject({ groupId: g1, silentNonSlip: true, linkedBy: 'UstaffOfB', createdAt: k.clock.now().toISOString() });
      expect(bG1.id).not.toBe(aG1.id);

      // Erasing B removes B's LINE links; no row A left on the channel holds that up.
      await k.h.c.db.transaction().execute((trx) => purgeLineLinksOfShop(trx, b.shop.id));
      expect(await k.h.c.db.selectFrom('line_channels').select('id').where('shop_id', '=', b.shop.id).execute()).toEqual([]);
    });
  });
}
