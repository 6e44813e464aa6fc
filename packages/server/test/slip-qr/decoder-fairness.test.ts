import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';

/**
 * Slow images the limits still accept: a blank 4000x3000 PNG (a 12 MP photo's size, a few KB of
 * bytes) runs the whole decode cascade up to the time budget. Bytes after IEND (ignored by PNG
 * readers) make each copy different, so none is answered from the same-image replay cache.
 */
export async function slowBlankPngs(n: number): Promise<Buffer[]> {
  const png = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#ffffff' } })
    .png({ compressionLevel: 9 })
    .toBuffer();
  return Array.from({ length: n }, (_, i) => Buffer.concat([png, Buffer.from(`#${i}`)]));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// One shop flooding the decoder with slow images must not make another shop's check wait for the
// flood, nor answer it 503 DECODER_BUSY. Before the fair queue, 40 such images from one shop filled
// the shared queue (2 threads x 16) and the other shop's verify was refused.
//
// The bound, relative to figures measured in this test on this machine: with the flood running,
// each of the other shop's verifies takes at most 2 x its own median alone + 3 x one slow image's
// verify alone (it waits for at most one flood job to finish; its own decode and the main thread
// share the two cores with the other decoder thread and the flood's 40 uploads). Without fairness it
// waited behind the whole queue (16 slow images per thread) or was refused.
describe('decoder fairness between shops over real HTTP', () => {
  let h: Harness;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let base: string;
  beforeAll(async () => {
    bank = await startSandbox();
    h = await createHarness('sqlite', {
      CHECKER_URL: bank.url,
      DECODE_THREADS: '2',
      RATE_LIMIT_PER_KEY: '100000',
      RATE_LIMIT_VERIFY_PER_SHOP: '100000',
    });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = h.app.server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });
  afterAll(async () => {
    await h.close();
    await bank.close();
  });

  const verify = async (auth: Record<string, string>, image: Buffer) => {
    const t = performance.now();
    const r = await fetch(`${base}/api/v1/verify`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(image),
    });
    const body = (await r.json()) as { code?: string; data?: { status: string; errorCode?: string | null } };
    return { status: r.status, body, ms: performance.now() - t };
  };
  const used = async (shopId: string) =>
    (await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', shopId).executeTakeFirst())?.used ?? 0;

  it('a flood of 40 slow images from one shop neither delays another shop past the bound nor gets it DECODER_BUSY', async () => {
    const flooder = await seedShop(h, { name: 'flood' });
    const payer = await seedShop(h, { name: 'payer' });
    const slips: Buffer[] = [];
    for (let i = 0; i < 10; i++) slips.push(await bank.slip((await bank.register()).transRef, 'jpeg70', 'jpg'));
    const flood = await slowBlankPngs(41);

    // Baselines, alone: the other shop's verify of a real slip, and one slow image.
    await verify(payer.auth, slips[9]!); // warm-up: workers, wasm, first connection
    const alone: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await verify(payer.auth, slips[i]!);
      expect(r.body.data?.status).toBe('SUCCESS');
      alone.push(r.ms);
    }
    const slow = await verify(flooder.auth, flood[40]!);
    expect(slow.body.data).toMatchObject({ status: 'INVALID', errorCode: 'NO_QR_FOUND' });
    const bound = 2 * median(alone) + 3 * slow.ms;

    // The flood: 40 at once. Then the other shop checks 5 slips one after the other.
    // When each flooded image was answered after a decode (not refused 503 at once): a fair queue lets
    // the other shop's check wait for the decodes already running, not for the flood's queue.
    const decodedAt: number[] = [];
    const flooding = Promise.all(
      flood.slice(0, 40).map(async (img) => {
        const r = await verify(flooder.auth, img);
        if (r.status === 200) decodedAt.push(performance.now());
        return r;
      }),
    );
    await new Promise((r) => setTimeout(r, 300)); // the flood's bodies are in and queued
    const during: { status: number; ms: number; state?: string; floodDecodes: number }[] = [];
    for (let i = 4; i < 9; i++) {
      const sent = performance.now();
      const r = await verify(payer.auth, slips[i]!);
      const answered = performance.now();
      const floodDecodes = decodedAt.filter((t) => t > sent && t <= answered).length;
      during.push({ status: r.status, ms: r.ms, state: r.body.data?.status ?? r.body.code, floodDecodes });
    }
    const floodAnswers = await flooding;

    expect(during.map((d) => d.state)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS']);
    // Within the time bound of docs/benchmarks.md, or, when a loaded full run stretches every decode
    // alike, behind at most the two decodes running when it came plus two more on the other decoder
    // while its own ran (a queue in arrival order puts it behind the whole flood, dozens).
    for (const d of during)
      expect(
        d.ms <= bound || d.floodDecodes <= 4,
        `verify during the flood took ${d.ms.toFixed(0)} ms (bound ${bound.toFixed(0)}: alone median ${median(alone).toFixed(0)} ms, slow image ${slow.ms.toFixed(0)} ms) and waited for ${d.floodDecodes} of the flood's decodes`,
      ).toBe(true);
    // The flood itself: INVALID (free) or refused with 503 once past its share; never anything else.
    for (const a of floodAnswers)
      expect([a.status, a.body.data?.status ?? a.body.code]).toSatisfy(
        ([s, c]: [number, string]) => (s === 200 && c === 'INVALID') || (s === 503 && c === 'DECODER_BUSY'),
      );
    expect(await used(flooder.shop.id)).toBe(0);
    expect(await used(payer.shop.id)).toBe(10);
  }, 120_000);
});
