// Test helpers: slip-like images drawn with qrcode + sharp, all in memory (never written to the repo).
import QRCode from 'qrcode';
import sharp from 'sharp';
import { crc16ccittFalse } from '../../src/modules/slip-qr/index.js';

export function bankPayload(bank: string, transRef: string, { badCrc = false } = {}): string {
  const body =
    `00${String(21 + transRef.length).padStart(2, '0')}0006000001` +
    `0103${bank}02${String(transRef.length).padStart(2, '0')}${transRef}5102TH9104`;
  const crc = crc16ccittFalse(body);
  return body + (badCrc ? (crc === '0000' ? '0001' : '0000') : crc);
}

export async function qrPng(text: string, width: number): Promise<Buffer> {
  return QRCode.toBuffer(text, { width, margin: 2, errorCorrectionLevel: 'M' });
}

export interface Placed {
  text: string;
  size: number;
  left: number;
  top: number;
}

/** A light "slip" canvas with a few dark bars standing in for text, and QR codes placed on it. */
export async function slipImage(
  qrs: Placed[],
  opts: { width?: number; height?: number; format?: 'png' | 'jpg'; rotate?: number } = {},
): Promise<Buffer> {
  const width = opts.width ?? 1080;
  const height = opts.height ?? 1900;
  const bars = await Promise.all(
    [0, 1, 2, 3, 4, 5].map(async (i) => ({
      input: await sharp({ create: { width: 500 - i * 40, height: 28, channels: 3, background: '#333844' } })
        .png()
        .toBuffer(),
      left: 80,
      top: 300 + i * 110,
    })),
  );
  const codes = await Promise.all(qrs.map(async (q) => ({ input: await qrPng(q.text, q.size), left: q.left, top: q.top })));
  let img = sharp({ create: { width, height, channels: 3, background: '#f4f7fb' } }).composite([...bars, ...codes]);
  if (opts.rotate) img = sharp(await img.png().toBuffer()).rotate(opts.rotate, { background: '#ffffff' });
  return opts.format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 85 }).toBuffer();
}
