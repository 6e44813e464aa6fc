import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { amountText, LAYOUTS } from '../src/slip-layouts.js';
import { EDITS, editedSatang, renderSlip } from '../src/slip-renderer.js';
import { makeTransfer } from '../src/transfer-store.js';
import { readQrTexts } from './qr-reader.js';

const transfer = makeTransfer({
  sendingBank: '014',
  amount: 1250.5,
  transRef: '016325143022BPM04572',
  transDate: new Date('2025-11-21T07:30:00Z'),
  sender: { name: 'นาย สมชาย ใจดี', account: '9876543210' },
  receiver: { name: 'บจก. ร้านกาแฟดีดี', account: '1234566609', bankCode: '004' },
});

async function meanDiff(a: Buffer, b: Buffer): Promise<number> {
  const [x, y] = await Promise.all([a, b].map((i) => sharp(i).greyscale().raw().toBuffer()));
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.abs(x[i] - y[i]);
  return sum / x.length;
}

describe('slip layouts', () => {
  it.each(LAYOUTS)('layout %s renders 1080x1900 with a decodable genuine QR', async (layout) => {
    const png = await renderSlip(transfer, { format: 'png', layout });
    const meta = await sharp(png).metadata();
    expect([meta.width, meta.height]).toEqual([1080, 1900]);
    expect(await readQrTexts(png)).toEqual([transfer.payload]);
  });

  it('layouts differ from each other (not one picture under eight names)', async () => {
    const images = await Promise.all(LAYOUTS.map((layout) => renderSlip(transfer, { format: 'png', layout })));
    for (let i = 1; i < images.length; i++) expect(await meanDiff(images[0], images[i])).toBeGreaterThan(5);
  });

  it('an edited render keeps the QR and changes only the printed amount area', async () => {
    for (const layout of ['classic', 'scb', 'dark'] as const) {
      const genuine = await renderSlip(transfer, { format: 'png', layout });
      const edited = await renderSlip(transfer, { format: 'png', layout, edit: 'digit' });
      expect(await readQrTexts(edited)).toEqual([transfer.payload]);
      const d = await meanDiff(genuine, edited);
      expect(d).toBeGreaterThan(0);
      expect(d).toBeLessThan(3);
    }
  });

  it('edited amounts always differ, in the way their name says', () => {
    expect(editedSatang(10_000, 'add', 1)).toBe(110_000);
    expect(editedSatang(3_500, 'decimal', 1)).toBe(350_000);
    for (let seed = 0; seed < 200; seed++) {
      for (const satang of [1, 99, 100, 3_500, 10_000, 125_050, 999_999, 4_321_000]) {
        for (const kind of EDITS) {
          const e = editedSatang(satang, kind, seed);
          expect(Number.isInteger(e)).toBe(true);
          expect(e).not.toBe(satang);
          if (kind === 'digit') expect(String(Math.floor(e / 100)).length).toBe(String(Math.floor(satang / 100)).length);
        }
      }
    }
  });

  it('prints the amount with a baht prefix or a บาท/THB suffix and thousands separators', () => {
    expect(amountText(100_000, 'prefix')).toBe('฿1,000.00');
    expect(amountText(100_000, 'baht')).toBe('1,000.00 บาท');
    expect(amountText(123_456_789, 'thb')).toBe('1,234,567.89 THB');
    expect(amountText(5, 'bare')).toBe('0.05');
  });
});
