/**
 * An edited slip checked on an overloaded node (issue 20 under load): the decoder process gets a
 * twentieth of a core, as a container held to its CPU quota or a machine full of other work gives it.
 * While the decoder's budgets were wall time, the printed amount went unread and the edited slip
 * answered SUCCESS (or the decode was killed and the slip answered INVALID). Through POST
 * /api/v1/verify, a real decoder pool and the sandbox bank; the limits scaled down from the
 * production 1.7 s / 2 s so the test stays short (test/slip-qr/decoder-starved.test.ts has the pool's side).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { throttle } from '../helpers/throttle.js';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';

describe('edited slips on an overloaded node (SLIP_EDIT_MODE=reject, SQLite)', () => {
  let h: Harness;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let shop: Awaited<ReturnType<typeof seedShop>>;
  beforeAll(async () => {
    bank = await startSandbox();
    h = await createHarness(
      'sqlite',
      { CHECKER: 'sandbox', CHECKER_URL: bank.url, DECODE_THREADS: '1', SLIP_EDIT_MODE: 'reject' },
      // The grace of a starved decoder raised: the load beside the test is not its to bound.
      { decoderPool: { imageBudgetMs: 1000, jobTimeoutMs: 1200, starvedGraceMs: 60_000 } },
    );
    shop = await seedShop(h);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await bank?.close();
  });

  async function verify(image: Buffer) {
    const t0 = performance.now();
    const r = await h.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      headers: { ...shop.auth, 'content-type': 'application/octet-stream' },
      payload: image,
    });
    expect(r.statusCode).toBe(200);
    return { data: r.json().data, ms: performance.now() - t0 };
  }

  it('answers FRAUD EDITED_SLIP, and a genuine slip SUCCESS with its amount read, while the decoder waits for a CPU', async () => {
    // Unthrottled first: the decoder is up and warm, and the edit is caught.
    const warm = await bank.register({ amount: 100 });
    expect((await verify(await bank.slip(warm.transRef, 'clean', 'png', { edit: 'add' }))).data).toMatchObject({
      errorCode: 'EDITED_SLIP',
    });
    const [pid] = h.c.decoderHealth()!.pids;
    const edited = await bank.register({ amount: 100 });
    const genuine = await bank.register({ amount: 250.75 });
    const editedImage = await bank.slip(edited.transRef, 'clean', 'png', { edit: 'add' });
    const genuineImage = await bank.slip(genuine.transRef, 'clean', 'png');
    const release = throttle(pid!, 5, 95);
    try {
      const e = await verify(editedImage);
      // It waited past both limits (else this proves nothing) and the printed amount was still read.
      expect(e.ms).toBeGreaterThan(1200);
      expect(e.data).toMatchObject({ status: 'FRAUD', errorCode: 'EDITED_SLIP', amount: 100, printedAmount: 1100, edited: true });
      const g = await verify(genuineImage);
      expect(g.ms).toBeGreaterThan(1200);
      expect(g.data).toMatchObject({ status: 'SUCCESS', amount: 250.75, printedAmount: 250.75, edited: false });
    } finally {
      release();
    }
    expect(h.c.decoderHealth()!.pids).toEqual([pid]); // never killed
  }, 120_000);
});
