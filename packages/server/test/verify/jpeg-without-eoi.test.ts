import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { screenImage } from '../../src/modules/slip-qr/image-gate.js';
import { decodeSlipImage } from '../../src/modules/slip-qr/slip-qr-decoder.js';
import { DB_KINDS, pgMissing, skipNote } from '../helpers/harness.js';
import { shopVerifyKit } from '../helpers/bank-harness.js';

// A JPEG whose only missing part is its end-of-image marker (FFD9): chat apps and cut downloads make
// them, and libjpeg reads every pixel of one. It is checked like any slip; a JPEG missing more than
// that (part of its picture) keeps the clear refusal, uncharged.
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`a slip JPEG without its end marker [${kind}]${skipNote(kind)}`, () => {
    const k = shopVerifyKit(kind);
    const { verify, used } = k;
    const slipJpeg = async (variant: string, amount: number) => {
      const t = await k.bank.register({ amount });
      const jpg = await k.bank.slip(t.transRef, variant, 'jpg');
      expect(jpg.subarray(-2).toString('hex')).toBe('ffd9'); // the generator writes a whole file
      return { transRef: t.transRef, jpg };
    };

    it.each([
      ['a photo of the screen', 'screenphoto', 2],
      ['a 12 MP camera shot', 'camera12mp', 2],
      ['a quality-70 JPEG', 'jpeg70', 2],
      ['a quality-70 JPEG cut inside the marker (FF kept)', 'jpeg70', 1],
    ])('%s (%s) cut by %s byte(s) is verified and charged like a whole one', async (_name, variant, cut) => {
      const { transRef, jpg } = await slipJpeg(variant, 321.5);
      const before = await used();
      const r = await verify(jpg.subarray(0, jpg.length - cut), '?amount=321.50');
      expect(r.statusCode).toBe(200);
      expect(r.json().data).toMatchObject({ status: 'SUCCESS', verified: true, transRef, amount: 321.5, errorCode: null });
      expect(await used()).toBe(before + 1);
    });

    it('a JPEG missing more than its end marker keeps the refusal: INVALID UNREADABLE_IMAGE, nothing charged', async () => {
      for (const cut of [20, 100, 5000]) {
        const { jpg } = await slipJpeg('screenphoto', 50 + cut);
        const [u0, c0] = [await used(), k.bank.stats().checkerCalls];
        const r = await verify(jpg.subarray(0, jpg.length - cut));
        expect(r.statusCode, `cut ${cut}`).toBe(200);
        expect(r.json().data, `cut ${cut}`).toMatchObject({ status: 'INVALID', errorCode: 'UNREADABLE_IMAGE' });
        expect([await used(), k.bank.stats().checkerCalls], `cut ${cut}`).toEqual([u0, c0]);
      }
    });
  });
}

describe('the gate and the decoder on a JPEG without its end marker', () => {
  const picture = () =>
    sharp({ create: { width: 400, height: 300, channels: 3, background: '#ffffff' } })
      .composite([
        { input: Buffer.from('<svg width="200" height="100"><rect width="200" height="100" fill="#123"/></svg>'), top: 50, left: 50 },
      ])
      .jpeg({ quality: 80 });

  it('the gate lets a sequential JPEG missing only its end marker through, saying so', async () => {
    const jpg = await picture().toBuffer();
    expect(screenImage(jpg)).toMatchObject({ ok: true, format: 'jpeg', width: 400, height: 300 });
    expect(screenImage(jpg).ok && 'eoiMissing' in screenImage(jpg)).toBe(false);
    expect(screenImage(jpg.subarray(0, jpg.length - 2))).toMatchObject({ ok: true, eoiMissing: true, width: 400, height: 300 });
  });

  it('a progressive JPEG without its end marker stays refused: its scans so far need not be all of them', async () => {
    const jpg = await picture().jpeg({ quality: 80, progressive: true }).toBuffer();
    expect(screenImage(jpg).ok).toBe(true);
    expect(screenImage(jpg.subarray(0, jpg.length - 2))).toMatchObject({ ok: false, message: 'image is truncated (no end of image)' });
  });

  it('the decoder refuses a cut JPEG whose pixels are incomplete, named truncated (not just "no QR")', async () => {
    const jpg = await picture().toBuffer();
    const r = await decodeSlipImage(jpg.subarray(0, jpg.length - 200));
    expect(r).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE', message: expect.stringMatching(/truncated/) });
    // Only the marker missing: read like the whole file (no slip QR in this picture, so NO_QR_FOUND).
    expect(await decodeSlipImage(jpg.subarray(0, jpg.length - 2))).toMatchObject({ ok: false, errorCode: 'NO_QR_FOUND' });
  });
});
