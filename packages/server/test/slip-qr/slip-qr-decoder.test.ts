import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { anyId, trueMoneySlipVerify } from 'promptparse/generate';
import { generateSlip, renderNonSlip, VARIANTS } from '@slipcheck/sandbox-bank';
import { decodeSlipImage } from '../../src/modules/slip-qr/index.js';
import { bankPayload, qrPng, slipImage } from './qr-images.js';

const PROMPTPAY = anyId({ type: 'MSISDN', target: '0812345678', amount: 250 });

describe('decodeSlipImage on generated images', () => {
  it('decodes a slip QR on a 1080x1900 JPEG in the fast pass', async () => {
    const payload = bankPayload('014', '2024091815201234567Ab');
    const r = await decodeSlipImage(await slipImage([{ text: payload, size: 260, left: 780, top: 1500 }]));
    expect(r).toMatchObject({ ok: true, kind: 'BANK', bankCode: '014', transRef: '2024091815201234567Ab', payload, pass: 'fast' });
  });

  it('decodes a TrueMoney wallet slip', async () => {
    const payload = trueMoneySlipVerify({ eventType: 'P2P', transactionId: '50012345678901', date: '18092024' });
    const r = await decodeSlipImage(await slipImage([{ text: payload, size: 260, left: 100, top: 1400 }], { format: 'png' }));
    expect(r).toMatchObject({ ok: true, kind: 'TRUEMONEY', transRef: '50012345678901' });
  });

  it('picks the slip QR when a bigger PromptPay QR is beside it', async () => {
    const payload = bankPayload('004', 'KB0151421552CTF07587');
    const img = await slipImage([
      { text: PROMPTPAY, size: 600, left: 60, top: 1000 },
      { text: payload, size: 200, left: 800, top: 1600 },
    ]);
    expect(await decodeSlipImage(img)).toMatchObject({ ok: true, bankCode: '004', transRef: 'KB0151421552CTF07587' });
  });

  it('says MULTIPLE_SLIPS for a picture of two different transfers, and reads one slip shown twice', async () => {
    // "First valid slip wins" checked one transfer of the two, and the printed amount read beside it
    // could be the other slip's: a genuine payment was then answered FRAUD EDITED_SLIP.
    const a = bankPayload('004', 'KB0151421552CTF07587');
    const b = bankPayload('014', '2024091815201234567Ab');
    const two = await slipImage([
      { text: a, size: 240, left: 60, top: 1500 },
      { text: b, size: 240, left: 760, top: 1500 },
    ]);
    expect(await decodeSlipImage(two)).toMatchObject({ ok: false, errorCode: 'MULTIPLE_SLIPS' });
    const same = await slipImage([
      { text: a, size: 240, left: 60, top: 1500 },
      { text: a, size: 240, left: 760, top: 1500 },
    ]);
    expect(await decodeSlipImage(same)).toMatchObject({ ok: true, transRef: 'KB0151421552CTF07587' });
    // The same reference written another way (case, leading zeros) is still the same transfer, not two.
    const respelled = await slipImage([
      { text: a, size: 240, left: 60, top: 1500 },
      { text: bankPayload('004', '00kb0151421552ctf07587'), size: 240, left: 760, top: 1500 },
    ]);
    expect(await decodeSlipImage(respelled)).toMatchObject({ ok: true, bankCode: '004' });
  });

  it('finds slips turned 90 and 180 degrees and slightly skewed', async () => {
    const payload = bankPayload('006', 'KTB20240918ABCDEF12');
    for (const rotate of [90, 180, 8]) {
      const img = await slipImage([{ text: payload, size: 260, left: 780, top: 1500 }], { rotate });
      expect(await decodeSlipImage(img), `rotate ${rotate}`).toMatchObject({ ok: true, payload });
    }
  });

  it('reads a small thumbnail, a one-channel PNG and a transparent PNG', async () => {
    const payload = bankPayload('025', 'BAYxyz0123456789');
    const thumb = await sharp(await slipImage([{ text: payload, size: 260, left: 780, top: 1500 }]))
      .resize({ width: 360 })
      .jpeg()
      .toBuffer();
    expect(await decodeSlipImage(thumb)).toMatchObject({ ok: true, payload });
    const grey = await sharp(await qrPng(payload, 300))
      .flatten()
      .greyscale()
      .toColourspace('b-w')
      .png()
      .toBuffer();
    expect((await sharp(grey).metadata()).channels).toBe(1);
    expect(await decodeSlipImage(grey)).toMatchObject({ ok: true, payload });
    const rgba = await sharp(await qrPng(payload, 300))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    for (let i = 0; i < rgba.data.length; i += 4) if (rgba.data[i] > 128) rgba.data[i + 3] = 0; // white -> transparent
    const transparent = await sharp(rgba.data, { raw: { width: rgba.info.width, height: rgba.info.height, channels: 4 } })
      .png()
      .toBuffer();
    expect(await decodeSlipImage(transparent)).toMatchObject({ ok: true, payload });
  });

  it('says NOT_SLIP_QR for a PromptPay payment QR alone', async () => {
    const r = await decodeSlipImage(await slipImage([{ text: PROMPTPAY, size: 500, left: 290, top: 700 }]));
    expect(r).toMatchObject({ ok: false, errorCode: 'NOT_SLIP_QR' });
  });

  it('says BAD_CHECKSUM for a slip QR whose CRC is wrong, UNKNOWN_BANK for an unknown bank', async () => {
    const bad = bankPayload('014', 'ABCDEFGHIJKL1234', { badCrc: true });
    expect(await decodeSlipImage(await slipImage([{ text: bad, size: 260, left: 780, top: 1500 }]))).toMatchObject({
      ok: false,
      errorCode: 'BAD_CHECKSUM',
    });
    const unknown = bankPayload('999', 'ABCDEFGHIJKL1234');
    expect(await decodeSlipImage(await slipImage([{ text: unknown, size: 260, left: 780, top: 1500 }]))).toMatchObject({
      ok: false,
      errorCode: 'UNKNOWN_BANK',
    });
  });

  it('says NO_QR_FOUND for an image without a QR and UNREADABLE_IMAGE for non-images', async () => {
    expect(await decodeSlipImage(await slipImage([]))).toMatchObject({ ok: false, errorCode: 'NO_QR_FOUND' });
    expect(await decodeSlipImage(Buffer.from('not an image at all'))).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE' });
    expect(await decodeSlipImage(Buffer.alloc(0))).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE' });
    const jpg = await slipImage([{ text: bankPayload('014', 'ABCDEFGHIJKL'), size: 260, left: 780, top: 1500 }]);
    const truncated = jpg.subarray(0, 300);
    const r = await decodeSlipImage(truncated);
    expect(r.ok).toBe(false);
  });

  it('refuses decompression bombs without decoding them', async () => {
    // 10000x10000 solid PNG: tiny file, 100 MP of pixels.
    const bomb = await sharp({ create: { width: 10000, height: 10000, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    expect(bomb.length).toBeLessThan(1_000_000);
    expect(await decodeSlipImage(bomb)).toMatchObject({ ok: false, errorCode: 'UNREADABLE_IMAGE' });
  });
});

describe('decodeSlipImage on sandbox-bank slips', () => {
  it.each(VARIANTS.map((v) => [v]))('variant %s decodes to the exact payload', async (variant) => {
    const slip = await generateSlip({ variant });
    const r = await decodeSlipImage(slip.image);
    expect(r).toMatchObject({ ok: true, payload: slip.payload, transRef: slip.transfer.transRef });
  });

  it('non-slip images never decode as a slip', async () => {
    for (const kind of ['photo', 'promptpay', 'blank'] as const) {
      for (const format of ['png', 'jpg'] as const) {
        const r = await decodeSlipImage(await renderNonSlip(kind, format));
        expect(r.ok, `${kind} ${format}`).toBe(false);
        if (!r.ok) expect(['NO_QR_FOUND', 'NOT_SLIP_QR']).toContain(r.errorCode);
      }
    }
  });
});
