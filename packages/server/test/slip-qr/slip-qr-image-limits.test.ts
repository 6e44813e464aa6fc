import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { decodeSlipImage } from '../../src/modules/slip-qr/index.js';
import { MAX_SLIP_ASPECT, MAX_SLIP_PIXELS } from '../../src/modules/slip-qr/slip-qr-decoder.js';
import { bankPayload, slipImage } from './qr-images.js';

/** A blank PNG: a few KB of bytes that a decoder must still expand to width x height pixels. */
const blankPng = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#ffffff' } })
    .png({ compressionLevel: 9 })
    .toBuffer();

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t = performance.now();
  const value = await f();
  return { value, ms: performance.now() - t };
}

// Images no phone produces as a slip are refused from their header, before any pixel is decoded:
// a 190 KB 7000x7000 PNG passed the old 50 MP guard and cost ~1.3 s of decoder time.
describe('slip image limits', () => {
  it('refuses a 7000x7000 PNG from its header, faster than decoding one real slip', async () => {
    const slip = await slipImage([{ text: bankPayload('014', 'LIMITS000000001'), size: 260, left: 780, top: 1500 }]);
    await decodeSlipImage(slip); // warm-up (wasm, sharp)
    const baseline = await timed(() => decodeSlipImage(slip));
    expect(baseline.value).toMatchObject({ ok: true });
    const bomb = await blankPng(7000, 7000);
    const refused = await timed(() => decodeSlipImage(bomb));
    expect(refused.value).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE' });
    expect((refused.value as { message: string }).message).toContain('7000x7000');
    // Header only: cheaper than the fast pass of a 1080x1900 slip.
    expect(refused.ms).toBeLessThan(baseline.ms);
  });

  it('refuses images over the pixel limit and thinner than the aspect limit, keeps every phone shape', async () => {
    expect(MAX_SLIP_PIXELS).toBe(24_000_000);
    expect(MAX_SLIP_ASPECT).toBe(4);
    const over = await decodeSlipImage(await blankPng(6000, 4001)); // 24.006 MP
    expect(over).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE' });
    expect((over as { message: string }).message).toContain('MP');
    for (const [w, h] of [
      [1000, 4100],
      [4100, 1000],
      [200, 900],
    ]) {
      const r = await decodeSlipImage(await blankPng(w, h));
      expect(r, `${w}x${h}`).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE' });
      expect((r as { message: string }).message, `${w}x${h}`).toContain('thin');
    }
    // Shapes phones do produce are decoded, not refused: 21:9 screenshot, a 4:1 long screenshot, a 12 MP photo.
    const cases: [number, number, number][] = [
      [1080, 2520, 1900],
      [1000, 4000, 3500],
      [4000, 3000, 2500],
    ];
    for (const [width, height, top] of cases) {
      const ref = `SHAPE${width}X${height}`.padEnd(15, '0');
      const img = await slipImage([{ text: bankPayload('004', ref), size: 300, left: 300, top }], { width, height });
      expect(await decodeSlipImage(img), `${width}x${height}`).toMatchObject({ ok: true, transRef: ref });
    }
  });

  it('stops the cascade when the decode-time budget is spent', async () => {
    // 12 MP of nothing: accepted by the limits, and the full cascade tries every pass on it.
    const img = await blankPng(4000, 3000);
    await decodeSlipImage(img, { passes: ['fast'] });
    // Which passes ran, not how long they took: a timing ratio failed a full run on a busy machine
    // (204 ms budgeted against 282 ms unbounded), though the budget had stopped the cascade.
    const run = async (budgetMs: number) => {
      const stages: string[] = [];
      const value = await decodeSlipImage(img, { budgetMs, onStage: (stage) => stages.push(stage) });
      return { value, passes: stages.filter((s) => s !== 'open' && s !== 'luma') };
    };
    const full = await run(60_000);
    const budgeted = await run(0);
    expect(full.value).toMatchObject({ ok: false, errorCode: 'NO_QR_FOUND' });
    expect(budgeted.value).toMatchObject({ ok: false, errorCode: 'NO_QR_FOUND' });
    // Budget 0 runs the fast pass only; the unbounded cascade runs the others too.
    expect(budgeted.passes).toEqual(['fast']);
    expect(full.passes[0]).toBe('fast');
    expect(full.passes.length).toBeGreaterThanOrEqual(5);
    // A real slip needs only the first pass, so a zero budget still decodes it.
    const slip = await slipImage([{ text: bankPayload('014', 'BUDGET000000001'), size: 260, left: 780, top: 1500 }]);
    expect(await decodeSlipImage(slip, { budgetMs: 0 })).toMatchObject({ ok: true, pass: 'fast' });
  });
});
