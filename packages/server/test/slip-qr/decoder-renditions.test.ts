import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { decodeSlipImage, shrinkLuma, upscaleLuma2x } from '../../src/modules/slip-qr/slip-qr-decoder.js';
import { bankPayload, qrPng, slipImage } from './qr-images.js';

const luma = (width: number, height: number, f: (x: number, y: number) => number) => {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = f(x, y);
  return { data, width, height };
};

describe('decoder renditions (issue 24)', () => {
  it('box-shrinks by an integer factor: each output pixel is the rounded mean of its block, odd edges dropped', () => {
    const img = luma(5, 3, (x, y) => x * 10 + y * 100);
    const two = shrinkLuma(img, 2);
    expect([two.width, two.height]).toEqual([2, 1]);
    expect([...two.data]).toEqual([55, 75]); // (0+10+100+110)/4, (20+30+120+130)/4
    const three = shrinkLuma(
      luma(6, 3, (x) => (x < 3 ? 0 : 200)),
      3,
    );
    expect([...three.data]).toEqual([0, 200]);
    expect(shrinkLuma(img, 1)).toBe(img);
  });

  it('upscales 2x bilinearly: flat areas stay flat, an edge gets one intermediate step on each side', () => {
    const flat = upscaleLuma2x(luma(3, 2, () => 77));
    expect([flat.width, flat.height]).toEqual([6, 4]);
    expect(flat.data.every((v) => v === 77)).toBe(true);
    const edge = upscaleLuma2x(luma(2, 1, (x) => (x === 0 ? 0 : 200)));
    expect([...edge.data.subarray(0, 4)]).toEqual([0, 50, 150, 200]);
  });

  it('reads a QR on a transparent-black PNG: transparency is composed over white, not dropped', async () => {
    const payload = bankPayload('014', 'ALPHA0000000001');
    const { data, info } = await sharp(await qrPng(payload, 300))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    // Light pixels become fully transparent black: without the alpha the whole image reads as black.
    for (let i = 0; i < data.length; i += 4) if (data[i]! > 128) data.fill(0, i, i + 4);
    const png = await sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } })
      .png()
      .toBuffer();
    expect(await decodeSlipImage(png)).toMatchObject({ ok: true, payload });
  });

  it('reads a chat-sized JPEG and a 1080x1900 PNG in the first pass (native size; box shrink)', async () => {
    const payload = bankPayload('004', 'NATIVE000000001');
    const png = await slipImage([{ text: payload, size: 260, left: 780, top: 1500 }], { format: 'png' });
    expect(await decodeSlipImage(png)).toMatchObject({ ok: true, payload, pass: 'fast' });
    const chat = await sharp(png).resize({ height: 1024 }).jpeg({ quality: 70, chromaSubsampling: '4:2:0' }).toBuffer();
    expect(await decodeSlipImage(chat)).toMatchObject({ ok: true, payload, pass: 'fast' });
  });
});
