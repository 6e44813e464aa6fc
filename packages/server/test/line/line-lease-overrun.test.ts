import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboxWorker } from '../../src/outbox/outbox-worker.js';
import { startSandbox } from '../helpers/sandbox.js';
import { imageMessage } from './fake-line-platform.js';
import { chatHelpers, startLineKit, type LineKit } from './line-test-kit.js';

// Found by the chaos soak (issue 22): on a loaded machine a LINE job outran its outbox lease (the bank
// slow, the decoder queue long). The worker took the job back and ran it again while the first run,
// told to stop, went on: both reached "answer" before either stored it, so the chat got a reply and
// then a push. A run whose lease ran out no longer answers; the run that took the job back does.
describe('LINE: a job that runs past its lease', () => {
  let k: LineKit;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  const { ev, user, upload } = chatHelpers(() => k, 'lease', 'Ulease');
  const faults = (body: unknown) =>
    fetch(`${bank.url}/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    bank = await startSandbox();
    k = await startLineKit('sqlite', { CHECKER_URL: bank.url, DECODE_THREADS: '1' });
  }, 60_000);
  afterAll(async () => {
    await faults({ reset: true }).catch(() => undefined);
    await k?.close();
    await bank?.close();
  });

  it('is answered once, by the run that took it back', { timeout: 120_000 }, async () => {
    const s = await k.linkedShop();
    const t = await bank.register();
    const e = ev('message', user('Ulease1'), imageMessage(upload(await bank.slip(t.transRef))));
    expect((await s.send([e])).status).toBe(200);
    const worker = (leaseMs: number) =>
      createOutboxWorker({ db: k.h.c.db, caps: k.h.c.caps, clock: k.h.c.clock, handlers: k.h.c.line.outboxHandlers, leaseMs });
    const [first, second] = [worker(1500), worker(60_000)];
    await faults({ latencyMs: 3000 }); // the bank answers after the first claim's lease has run out
    // LINE takes the first reply at once and answers it late: while it hangs, a second run that reaches
    // "answer" sees nothing stored yet.
    k.fake.fail('reply', { status: 200, acceptThenHangMs: 1500 });
    await first.runOnce(); // returns at the lease: that run is told to stop, and goes on
    k.clock.advance(2000); // the lease has run out in the database too
    await faults({ reset: true });
    await second.runOnce(); // takes the job back; waits for the first run's check of the same image
    await new Promise((r) => setTimeout(r, 3000)); // the first run's late answer, if it still gave one
    const answers = [...k.fake.replies.filter((x) => x.body.replyToken === e.replyToken), ...k.fake.sentTo('Ulease1')];
    expect(answers).toHaveLength(1);
    await first.stop({ timeoutMs: 1000 });
    await second.stop({ timeoutMs: 1000 });
  });
});
