import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, pgMissing, skipNote } from '../helpers/harness.js';
import { lineEvent, sign } from './fake-line-platform.js';
import { startLineKit, type LineKit } from './line-test-kit.js';

/** Bodies that carry a valid signature but odd content: LINE (or a leaked secret) must not break anything. */
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`LINE webhook: hostile but signed input [${kind}]${skipNote(kind)}`, () => {
    let k: LineKit;
    beforeAll(async () => {
      k = await startLineKit(kind);
    });
    afterAll(async () => k.close());

    const jobs = () => k.h.c.db.selectFrom('outbox').selectAll().where('kind', '=', 'line.event').execute();
    const postRaw = async (url: string, secret: string, raw: string, signature = sign(secret, raw)) => {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-line-signature': signature },
        body: raw,
      });
      return { status: r.status, body: (await r.json().catch(() => null)) as unknown };
    };

    it('non-object bodies, non-list events and non-events answer 200 with nothing stored', async () => {
      const s = await k.linkedShop();
      const before = (await jobs()).length;
      for (const raw of [
        'null',
        '42',
        '"text"',
        '[]',
        '{"events":"x"}',
        '{"events":{"0":{}}}',
        '{"destination":{"x":1},"events":[null,1,"s",[],{},{"type":"message"},{"webhookEventId":7,"type":"message"}]}',
      ]) {
        const r = await postRaw(s.hookUrl, s.fc.secret, raw);
        expect(r.status, raw).toBe(200);
        expect(r.body, raw).toEqual({ success: true, data: { received: 0 } });
      }
      expect((await jobs()).length).toBe(before);
      const ch = await k.h.c.db.selectFrom('line_channels').select('bot_user_id').where('id', '=', s.view.id).executeTakeFirstOrThrow();
      expect(ch.bot_user_id).toBe(s.fc.botUserId);
    });

    it('stores only the fields it reads (an image is its message id, never bytes); wrong types do not poison the job', async () => {
      const s = await k.linkedShop();
      const t = k.clock.now().getTime();
      const junk = 'x'.repeat(300_000);
      const image = {
        ...lineEvent('message', { type: 'user', userId: 'Uhostile01' }, { message: { id: 'm-hostile-img', type: 'image', data: junk } }, t),
        junk,
      };
      const badText = lineEvent(
        'message',
        { type: 'group', groupId: 'Cgrp-hostile', userId: 12 as never },
        { message: { id: 'm-hostile-txt', type: 'text', text: { code: 'ABCD-EFGH' } } },
        t,
      );
      const unknown = lineEvent('beacon', { type: 'user', userId: 'Uhostile01' }, { beacon: { hwid: junk } }, t);
      const r = await s.send([image, badText, unknown]);
      expect(r.body).toEqual({ success: true, data: { received: 3 } });

      const mine = (await jobs()).filter((j) => j.payload.includes(s.view.id));
      expect(mine).toHaveLength(3);
      for (const j of mine) expect(j.payload.length).toBeLessThan(1000);
      const payloads = mine.map((j) => JSON.parse(j.payload).event);
      const img = payloads.find((e) => e.message?.type === 'image');
      expect(img.message).toEqual({ id: 'm-hostile-img', type: 'image' });
      const txt = payloads.find((e) => e.message?.type === 'text');
      expect(txt.message).toEqual({ id: 'm-hostile-txt', type: 'text' });
      expect(txt.source).toEqual({ type: 'group', groupId: 'Cgrp-hostile' });

      k.fake.fail('content', { status: 404 }); // whatever the image turns into, the run must finish cleanly
      await k.drain();
      const after = await k.h.c.db
        .selectFrom('outbox')
        .selectAll()
        .where(
          'id',
          'in',
          mine.map((j) => j.id),
        )
        .execute();
      expect(after.map((j) => [j.status, j.last_error])).toEqual(mine.map(() => ['done', null]));
    });

    it('an oversized body is refused before any work, signed or not', async () => {
      const s = await k.linkedShop();
      const before = (await jobs()).length;
      const raw = JSON.stringify({ events: [], pad: 'x'.repeat(1_100_000) });
      const r = await postRaw(s.hookUrl, s.fc.secret, raw);
      expect(r.status).toBe(413);
      expect((await jobs()).length).toBe(before);
    });
  });
}
