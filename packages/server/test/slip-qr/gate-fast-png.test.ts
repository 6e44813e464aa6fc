// A PNG written with fast compression (zlib-ng level 1, as libvips/sharp and other zlib-ng builds write
// it: static Huffman codes only) of a noisy picture, a photo of a slip, is up to 12.5% larger than its
// raw pixels. The image gate's "no more compressed data than the pixels need" cap allowed 1% and
// answered such a slip INVALID UNREADABLE_IMAGE.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { buildPng, pngChunks } from './hostile-images.js';

/**
 * The slip as a dim photo (contrast 0.75, nothing clipped) with sensor noise (+-24 per channel),
 * written as a PNG at compression level 1.
 */
async function noisyFastPng(slip: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(slip).removeAlpha().linear(0.75, 32).raw().toBuffer({ resolveWithObject: true });
  let seed = 7;
  const rand = () => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) & 0x7fffffff) / 0x7fffffff - 0.5) * 48;
  for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, Math.round(data[i]! + rand())));
  return sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

describe('image gate: a noisy PNG written with fast compression is a slip like any other (real HTTP, SQLite)', () => {
  let h: Harness;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let base = '';
  beforeAll(async () => {
    bank = await startSandbox();
    h = await createHarness('sqlite', { CHECKER_URL: bank.url, RATE_LIMIT_PER_KEY: '100000', RATE_LIMIT_VERIFY_PER_SHOP: '100000' });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = h.app.server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });
  afterAll(async () => {
    await h.close();
    await bank.close();
  });

  it('answers SUCCESS for the slip, and padding past what any deflate encoder writes is still refused', async () => {
    const shop = await seedShop(h, { name: 'fast png' });
    const png = await noisyFastPng(await bank.slip((await bank.register()).transRef, 'clean', 'png'));
    const meta = await sharp(png).metadata();
    const raw = meta.height! * (1 + meta.width! * 3);
    // The premise: larger than the raw pixels (static Huffman spends 9 bits on half the byte values).
    expect(png.length / raw).toBeGreaterThan(1.05);
    const verify = async (image: Buffer) => {
      const r = await fetch(`${base}/api/v1/verify`, {
        method: 'POST',
        headers: { ...shop.auth, 'content-type': 'image/png' },
        body: new Uint8Array(image),
      });
      const body = (await r.json()) as { data?: { status: string; errorCode: string | null } };
      return [r.status, body.data?.status, body.data?.errorCode];
    };
    expect(await verify(png)).toEqual([200, 'SUCCESS', null]);
    // 20% more data chunk bytes than the pixels need: no encoder writes that (padding to carry something else).
    const chunks = pngChunks(png);
    const padded = buildPng([...chunks.slice(0, -1), { type: 'IDAT', data: Buffer.alloc(Math.ceil(raw * 0.2)) }, chunks.at(-1)!]);
    expect(await verify(padded)).toEqual([200, 'INVALID', 'UNREADABLE_IMAGE']);
    // Nothing charged for the refused one.
    const used = await h.c.db.selectFrom('quota_usage').select('used').where('shop_id', '=', shop.shop.id).executeTakeFirst();
    expect(used?.used).toBe(1);
  });
});
