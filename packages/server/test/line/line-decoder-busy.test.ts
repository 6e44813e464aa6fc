import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../helpers/sandbox.js';
import { imageMessage } from './fake-line-platform.js';
import { chatHelpers, startLineKit, type LineKit } from './line-test-kit.js';

// Found by the chaos soak (issue 22): the worker runs a batch of LINE jobs at once (20 here, up to
// WORKER_CONCURRENCY) against one decoder that queues 16, so a burst of slips met DECODER_BUSY; each
// such job failed into the outbox's backoff and its customer heard nothing until a later run, by push.
// A LINE job now waits for a place in the decoder queue: every slip of the burst is answered in the
// same run, by reply, once.
describe('LINE: a burst of slips larger than the decoder queue', () => {
  let k: LineKit;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  const { ev, user, upload } = chatHelpers(() => k, 'burst', 'Uburst');

  beforeAll(async () => {
    bank = await startSandbox();
    k = await startLineKit('sqlite', { CHECKER_URL: bank.url, DECODE_THREADS: '1' });
  }, 60_000);
  afterAll(async () => {
    await k?.close();
    await bank?.close();
  });

  it('20 slips at once: each answered by reply in the first run, none twice', { timeout: 180_000 }, async () => {
    const s = await k.linkedShop();
    const events = [];
    for (let i = 0; i < 20; i++) {
      const t = await bank.register();
      events.push(ev('message', user(`Uburst${i}`), imageMessage(upload(await bank.slip(t.transRef)))));
    }
    const r = await s.send(events);
    expect(r.status).toBe(200);
    await k.worker.runOnce(); // one batch: the 20 jobs run at the same time
    for (const e of events) expect(k.fake.replies.filter((x) => x.body.replyToken === e.replyToken)).toHaveLength(1);
    expect(k.fake.pushes).toHaveLength(0);
    const failed = await k.h.c.db
      .selectFrom('outbox')
      .select(['id'])
      .where('kind', '=', 'line.event')
      .where('status', '!=', 'done')
      .execute();
    expect(failed).toEqual([]);
  });
});
