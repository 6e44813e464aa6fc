import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { generateSlip } from '../src/slip-generator.js';
import { parseSlipPayload, randomTransRef } from '../src/slip-payload.js';
import { prng } from '../src/render-support.js';
import { renderNonSlip, renderSlip, VARIANTS, type Variant } from '../src/slip-renderer.js';
import { makeTransfer } from '../src/transfer-store.js';
import { readQrTexts } from './qr-reader.js';

// A fixed transfer keeps the rendered pixels (and so the decode results) reproducible.
const transfer = makeTransfer({
  sendingBank: '006',
  amount: 1250,
  transRef: '016325143022BPM04571',
  transDate: new Date('2025-11-21T07:30:00Z'),
  sender: { name: 'นาย สมชาย ใจดี', nameEn: 'MR. SOMCHAI JAIDEE', account: '9876543210' },
  receiver: { name: 'บจก. ร้านกาแฟดีดี', account: '1234566609', bankCode: '004' },
});

const EXPECTED: Record<Variant, [number, number]> = {
  clean: [1080, 1900],
  jpeg70: [1080, 1900],
  w540: [540, 950],
  smallqr: [1080, 1900],
  rot7: [1304, 2017],
  rotm7: [1304, 2017],
  blurnoise: [1080, 1900],
  lowcontrast: [1080, 1900],
  screenphoto: [1536, 2048],
  camera12mp: [4000, 3000],
  twoqr: [1080, 1900],
  upsidedown: [1080, 1900],
};

describe('renderSlip', () => {
  it('renders a clean PNG whose QR decodes back to the payload', async () => {
    const png = await renderSlip(transfer, { format: 'png' });
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(await readQrTexts(png)).toEqual([transfer.payload]);
  });

  it('renders a clean PNG quickly', async () => {
    await renderSlip(transfer, { format: 'png' });
    const c = process.cpuUsage();
    await renderSlip(transfer, { format: 'png' });
    const used = process.cpuUsage(c);
    // Target is < 150 ms. CPU time of this process (libvips' threads included), not wall time, which a
    // loaded full run stretches; the bound is loose so a busy CI machine does not flake.
    expect((used.user + used.system) / 1000).toBeLessThan(600);
  });

  it.each(VARIANTS.map((v) => [v]))(
    'variant %s: right format and size, slip QR still decodable',
    async (variant) => {
      const format = variant === 'camera12mp' || variant === 'screenphoto' ? 'jpg' : 'png';
      const img = await renderSlip(transfer, { format, variant });
      const meta = await sharp(img).metadata();
      expect(meta.format).toBe(format === 'png' ? 'png' : 'jpeg');
      const [w, h] = EXPECTED[variant];
      expect(meta.width).toBeGreaterThanOrEqual(w - 2);
      expect(meta.width).toBeLessThanOrEqual(w + 2);
      expect(meta.height).toBeGreaterThanOrEqual(h - 2);
      expect(meta.height).toBeLessThanOrEqual(h + 2);
      const texts = await readQrTexts(img);
      expect(texts).toContain(transfer.payload);
      if (variant === 'twoqr') expect(texts.some((t) => t.startsWith('000201'))).toBe(true);
    },
    20_000,
  );

  it('honours the requested container format', async () => {
    const jpg = await renderSlip(transfer, { format: 'jpg', variant: 'w540' });
    expect(jpg.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    const png = await renderSlip(transfer, { format: 'png', variant: 'jpeg70' });
    expect((await sharp(png).metadata()).format).toBe('png');
  });
});

describe('renderNonSlip', () => {
  it('never yields a slip payload', async () => {
    expect(await readQrTexts(await renderNonSlip('photo'))).toEqual([]);
    expect(await readQrTexts(await renderNonSlip('blank', 'jpg'))).toEqual([]);
    const pp = await readQrTexts(await renderNonSlip('promptpay'));
    expect(pp).toHaveLength(1);
    expect(pp[0]).toMatch(/^000201/);
    expect(parseSlipPayload(pp[0])).toBe('MALFORMED');
  });
});

describe('generateSlip', () => {
  it('returns a transfer, its payload and a decodable image', async () => {
    const g = await generateSlip({ bankCode: '014', amount: 99.5 });
    expect(g.transfer.sendingBank).toBe('014');
    expect(g.transfer.amount).toBe(99.5);
    expect(parseSlipPayload(g.payload)).toMatchObject({ kind: 'bank', sendingBank: '014', transRef: g.transfer.transRef });
    expect(await readQrTexts(g.image)).toEqual([g.payload]);
  });

  it('renders TrueMoney wallet slips with the wallet payload', async () => {
    const g = await generateSlip({ bankCode: 'TRUEMONEY', variant: 'jpeg70' });
    expect(g.format).toBe('jpg');
    expect(parseSlipPayload(g.payload)).toMatchObject({ kind: 'truemoney', transRef: g.transfer.transRef });
    expect(await readQrTexts(g.image)).toEqual([g.payload]);
  });

  // The benchmarks' corpus (packages/server/bench/slip-corpus.ts) must be the same images in every run.
  it('makes the same slip, pixel for pixel, from the same seed and date, and a new one without a seed', async () => {
    const transDate = new Date('2026-11-20T02:00:00Z');
    for (const bankCode of [undefined, 'TRUEMONEY']) {
      const a = await generateSlip({ bankCode, random: prng(7), transDate, format: 'jpg' });
      const b = await generateSlip({ bankCode, random: prng(7), transDate, format: 'jpg' });
      expect(b.payload).toBe(a.payload);
      expect(b.transfer.amount).toBe(a.transfer.amount);
      expect(b.transfer.sender).toEqual(a.transfer.sender);
      expect(b.image.equals(a.image)).toBe(true);
      expect(await readQrTexts(a.image)).toEqual([a.payload]);
      const other = await generateSlip({ bankCode, random: prng(8), transDate, format: 'jpg' });
      expect(other.payload).not.toBe(a.payload);
      const unseeded = await Promise.all([generateSlip({ bankCode, transDate }), generateSlip({ bankCode, transDate })]);
      expect(unseeded[0].payload).not.toBe(unseeded[1].payload);
    }
  });
});

describe('randomTransRef with a seeded generator', () => {
  it('draws the same transRefs from the same seed, in the styles of unseeded ones', () => {
    const now = new Date('2026-11-20T02:00:00Z');
    const a = prng(3);
    const b = prng(3);
    for (let i = 0; i < 200; i++) {
      const ref = randomTransRef(now, a);
      expect(randomTransRef(now, b)).toBe(ref);
      expect(ref).toMatch(/^[0-9A-Za-z]{12,25}$/);
    }
  });
});
