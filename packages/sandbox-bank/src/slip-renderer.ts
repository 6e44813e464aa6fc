import { createCanvas, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import sharp, { type OutputInfo, type Sharp } from 'sharp';
import { maskAccount, maskProxy, maskStyleFor } from './account-mask.js';
import { bankInfo } from './bank-info.js';
import { drawQr, ensureFonts, font, formatBaht, namedFont, roundRect, seedOf, thaiDateTime } from './render-support.js';
import { addNoise, cameraShot, encode, screenPhoto, type ImageFormat } from './slip-effects.js';
import { drawLayout, EDIT_FACES, LAYOUTS, type EditFace, type Layout } from './slip-layouts.js';
import { buildPromptPayPayload } from './slip-payload.js';
import type { ProxyType } from './transfer-store.js';

export const SLIP_WIDTH = 1080;
export const SLIP_HEIGHT = 1900;

export const VARIANTS = [
  'clean',
  'jpeg70',
  'w540',
  'smallqr',
  'rot7',
  'rotm7',
  'blurnoise',
  'lowcontrast',
  'screenphoto',
  'camera12mp',
  'twoqr',
  'upsidedown',
] as const;
export type Variant = (typeof VARIANTS)[number];
export type { ImageFormat };

/** What a slip shows; a stored Transfer satisfies it. */
export interface SlipData {
  transRef: string;
  payload: string;
  sendingBank: string;
  receivingBank: string;
  amount: number;
  transDate: Date;
  sender: { name: string; account?: string };
  receiver: { name: string; account?: string; proxy?: { type: ProxyType; value: string } };
}

export { EDIT_FACES, LAYOUTS, type EditFace, type Layout };

/**
 * How an edited slip's printed amount differs from the transfer: one digit changed, a digit added
 * (100.00 -> 1,000.00), or the decimal point shifted two places (35.00 -> 3,500.00).
 */
export const EDITS = ['digit', 'add', 'decimal'] as const;
export type EditKind = (typeof EDITS)[number];

export interface RenderOptions {
  format: ImageFormat;
  variant?: Variant;
  /** Slip layout (default `classic`). */
  layout?: Layout;
  /** Render an edited slip: the picture prints another amount than the transfer's (the QR stays genuine). */
  edit?: EditKind;
  /**
   * With `edit`: the face the new amount is typed in. 'other' (default): an image editor's nearest
   * font; 'same': the layout's own face, as a "slip maker" app types it.
   */
  editFace?: EditFace;
}

interface LayoutOptions {
  qrPx: number;
  paymentQr?: string;
  /** Printed amount in satang when it differs from the transfer (an edited slip). */
  printedSatang?: number;
  editFace?: EditFace;
}

/** The amount an edited slip prints, in satang; always differs from `satang`. Deterministic per seed. */
export function editedSatang(satang: number, kind: EditKind, seed: number): number {
  const baht = Math.floor(satang / 100);
  const cents = satang % 100;
  if (kind === 'decimal') return satang * 100;
  if (kind === 'add') {
    // Repeat the leading digit of the baht part (100 -> 1100) or, for amounts under 1 baht, put a 1 before it.
    const digits = String(baht);
    return Number(baht === 0 ? '1' : digits[0] + digits) * 100 + cents;
  }
  // One digit of the baht part changed: the leading one up (1 -> 2 .. 9 -> 8 so no digit is added).
  const digits = String(baht).split('');
  const i = seed % digits.length;
  const d = Number(digits[i]);
  let next = (d + 1 + (seed % 8)) % 10;
  if (i === 0 && next === 0) next = d === 9 ? 8 : 9;
  if (next === d) next = (d + 1) % 10 || 1;
  digits[i] = String(next);
  return Number(digits.join('')) * 100 + cents;
}

function bankBadge(ctx: SKRSContext2D, code: string, cx: number, cy: number, r: number, inverted = false): void {
  const b = bankInfo(code);
  ctx.beginPath();
  ctx.arc(cx, cy, r, 0, Math.PI * 2);
  ctx.fillStyle = inverted ? '#ffffff' : b.color;
  ctx.fill();
  ctx.fillStyle = inverted ? b.color : '#ffffff';
  const label = (b.badge ?? b.short).slice(0, 5);
  ctx.font = font(Math.round((r * 1.5) / Math.max(2.2, label.length * 0.62)), 'bold');
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(label, cx, cy + 2);
  ctx.textAlign = 'left';
  ctx.textBaseline = 'alphabetic';
}

function accountLine(s: SlipData, role: 'sender' | 'receiver'): string {
  const party = role === 'sender' ? s.sender : s.receiver;
  const bank = bankInfo(role === 'sender' ? s.sendingBank : s.receivingBank);
  if (party.account) return `${bank.short} ${maskAccount(party.account, maskStyleFor(s.sendingBank, s.receivingBank, role))}`;
  const proxy = role === 'receiver' ? s.receiver.proxy : undefined;
  if (proxy) return `พร้อมเพย์ ${maskProxy(proxy.type, proxy.value)}`;
  return bank.short;
}

/** Draws the e-slip layout common to Thai bank apps: brand header, status, parties, amount, mini-QR. */
export function drawSlip(s: SlipData, o: LayoutOptions): Canvas {
  ensureFonts();
  const W = SLIP_WIDTH;
  const H = SLIP_HEIGHT;
  const canvas = createCanvas(W, H);
  const ctx = canvas.getContext('2d');
  const bank = bankInfo(s.sendingBank);

  ctx.fillStyle = '#f3f5f7';
  ctx.fillRect(0, 0, W, H);
  ctx.fillStyle = bank.color;
  ctx.fillRect(0, 0, W, 280);
  bankBadge(ctx, s.sendingBank, 130, 140, 72, true);
  ctx.fillStyle = '#ffffff';
  ctx.font = font(54, 'bold');
  ctx.fillText(bank.nameTh, 230, 130);
  ctx.font = font(34);
  ctx.fillText(s.sendingBank === 'TRUEMONEY' ? 'TrueMoney Wallet' : `${bank.short} Mobile Banking`, 230, 190);

  // Success tick.
  ctx.beginPath();
  ctx.arc(W / 2, 385, 52, 0, Math.PI * 2);
  ctx.fillStyle = '#2eb450';
  ctx.fill();
  ctx.strokeStyle = '#ffffff';
  ctx.lineWidth = 11;
  ctx.lineCap = 'round';
  ctx.beginPath();
  ctx.moveTo(W / 2 - 24, 386);
  ctx.lineTo(W / 2 - 6, 405);
  ctx.lineTo(W / 2 + 26, 366);
  ctx.stroke();
  ctx.textAlign = 'center';
  ctx.fillStyle = '#1d2b36';
  ctx.font = font(66, 'bold');
  ctx.fillText('โอนเงินสำเร็จ', W / 2, 515);
  ctx.fillStyle = '#6b7780';
  ctx.font = font(38);
  ctx.fillText(thaiDateTime(s.transDate), W / 2, 575);
  ctx.textAlign = 'left';

  ctx.fillStyle = '#ffffff';
  roundRect(ctx, 50, 625, W - 100, 860, 28);
  ctx.fill();

  const party = (label: string, code: string, name: string, line: string, y: number) => {
    ctx.fillStyle = '#8a949c';
    ctx.font = font(32);
    ctx.fillText(label, 100, y);
    bankBadge(ctx, code, 150, y + 80, 46);
    ctx.fillStyle = '#1d2b36';
    ctx.font = font(44, 'bold');
    ctx.fillText(name, 225, y + 70);
    ctx.fillStyle = '#56626b';
    ctx.font = font(36);
    ctx.fillText(line, 225, y + 122);
  };
  party('จาก', s.sendingBank, s.sender.name, accountLine(s, 'sender'), 690);
  ctx.strokeStyle = '#c3cad0';
  ctx.lineWidth = 5;
  ctx.beginPath();
  ctx.moveTo(150, 845);
  ctx.lineTo(150, 905);
  ctx.moveTo(130, 885);
  ctx.lineTo(150, 905);
  ctx.lineTo(170, 885);
  ctx.stroke();
  party('ไปยัง', s.receivingBank, s.receiver.name, accountLine(s, 'receiver'), 955);

  ctx.fillStyle = '#e3e7ea';
  ctx.fillRect(100, 1150, W - 200, 3);
  ctx.fillStyle = '#8a949c';
  ctx.font = font(32);
  ctx.fillText('เลขที่รายการ:', 100, 1210);
  ctx.fillText('จำนวน:', 100, 1320);
  ctx.fillText('ค่าธรรมเนียม:', 100, 1420);
  ctx.fillStyle = '#1d2b36';
  ctx.font = font(34);
  ctx.fillText(s.transRef, 100, 1255);
  ctx.textAlign = 'right';
  const printed = o.printedSatang === undefined ? s.amount : o.printedSatang / 100;
  if (o.printedSatang !== undefined) {
    // An editor repaints the old number and types the new one in a close, but different, face; a
    // slip-maker app in the slip's own face on a clean patch.
    const same = o.editFace === 'same';
    ctx.font = same ? font(62, 'bold') : font(62, 'bold', namedFont('Garuda'));
    const w = ctx.measureText(`${formatBaht(printed)} บาท`).width;
    ctx.fillStyle = same ? '#ffffff' : '#fefefe';
    ctx.fillRect(W - 100 - w - 12, 1268, w + 24, 84);
    ctx.fillStyle = '#1d2b36';
  } else {
    ctx.font = font(62, 'bold');
  }
  ctx.fillText(`${formatBaht(printed)} บาท`, W - 100, 1330);
  ctx.font = font(36);
  ctx.fillText('0.00 บาท', W - 100, 1420);
  ctx.textAlign = 'left';

  const qrX = W - 50 - o.qrPx;
  const qrY = H - 50 - o.qrPx;
  drawQr(ctx, s.payload, qrX, qrY, o.qrPx);
  ctx.fillStyle = '#6b7780';
  if (o.paymentQr) {
    ctx.font = font(30);
    ctx.fillText('QR รับเงินร้านค้า', 80, H - 380);
    drawQr(ctx, o.paymentQr, 80, H - 350, 300);
  } else {
    ctx.font = font(32);
    ctx.fillText('สแกนตรวจสอบสลิป', 80, H - 250);
    ctx.font = font(28);
    ctx.fillText('บันทึกช่วยจำ: -', 80, H - 195);
    ctx.fillText(`รหัสอ้างอิง ${s.transRef.slice(-8)}`, 80, H - 145);
  }
  return canvas;
}

function layoutSlip(s: SlipData) {
  return {
    transRef: s.transRef,
    payload: s.payload,
    sendingBank: s.sendingBank,
    receivingBank: s.receivingBank,
    transDate: s.transDate,
    senderName: s.sender.name,
    senderLine: accountLine(s, 'sender'),
    receiverName: s.receiver.name,
    receiverLine: accountLine(s, 'receiver'),
  };
}

function canvasToSharp(c: Canvas): Sharp {
  return sharp(c.data(), { raw: { width: c.width, height: c.height, channels: 4 } });
}

async function raw(img: Sharp): Promise<{ data: Buffer; info: OutputInfo }> {
  return img.removeAlpha().raw().toBuffer({ resolveWithObject: true });
}

export async function renderSlip(s: SlipData, opts: RenderOptions): Promise<Buffer> {
  const variant = opts.variant ?? 'clean';
  const fmt = opts.format;
  const seed = seedOf(s.transRef + variant);
  const paymentQr = variant === 'twoqr' ? buildPromptPayPayload('0812345678', s.amount) : undefined;
  const satang = Math.round(s.amount * 100);
  const printedSatang = opts.edit ? editedSatang(satang, opts.edit, seed) : undefined;
  const layout = opts.layout ?? 'classic';
  const qrPx = variant === 'smallqr' ? 110 : 300;
  const canvas =
    layout === 'classic'
      ? drawSlip(s, { qrPx, paymentQr, printedSatang, editFace: opts.editFace })
      : drawLayout(layout, layoutSlip(s), {
          printedSatang: printedSatang ?? satang,
          edited: printedSatang !== undefined,
          editFace: opts.editFace,
          qrPx: variant === 'smallqr' ? 110 : undefined,
          paymentQr,
        });
  switch (variant) {
    case 'clean':
    case 'smallqr':
    case 'twoqr':
      return encode(canvasToSharp(canvas), fmt);
    case 'jpeg70': {
      const jpg = await canvasToSharp(canvas).removeAlpha().jpeg({ quality: 70 }).toBuffer();
      return fmt === 'jpg' ? jpg : encode(sharp(jpg), fmt);
    }
    case 'w540':
      return encode(canvasToSharp(canvas).resize({ width: 540 }), fmt);
    case 'rot7':
    case 'rotm7':
    case 'upsidedown': {
      const angle = variant === 'rot7' ? 7 : variant === 'rotm7' ? -7 : 180;
      return encode(canvasToSharp(canvas).rotate(angle, { background: '#ffffff' }), fmt);
    }
    case 'blurnoise': {
      const r = await raw(canvasToSharp(canvas).blur(1.4));
      addNoise(r.data, 22, seed);
      return encode(sharp(r.data, { raw: { width: r.info.width, height: r.info.height, channels: 3 } }), fmt);
    }
    case 'lowcontrast':
      // Squeezes black..white into grey 135..215: a dim screenshot or a faded printout.
      return encode(canvasToSharp(canvas).removeAlpha().linear(0.32, 135), fmt);
    case 'screenphoto':
      return encode(screenPhoto(canvas, seed), fmt, 88);
    case 'camera12mp':
      return encode(cameraShot(canvas, seed), fmt, 85);
  }
}

/** Images that must never decode as a slip: a photo-like scene, a shop's PromptPay QR, a blank page. */
export async function renderNonSlip(kind: 'photo' | 'promptpay' | 'blank', format: ImageFormat = 'png'): Promise<Buffer> {
  ensureFonts();
  if (kind === 'blank') {
    return encode(sharp({ create: { width: 800, height: 800, channels: 3, background: '#ffffff' } }), format);
  }
  if (kind === 'promptpay') {
    const c = createCanvas(1080, 1400);
    const ctx = c.getContext('2d');
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, 1080, 1400);
    ctx.fillStyle = '#113566';
    ctx.fillRect(0, 0, 1080, 220);
    ctx.fillStyle = '#ffffff';
    ctx.font = font(72, 'bold');
    ctx.textAlign = 'center';
    ctx.fillText('พร้อมเพย์ PromptPay', 540, 140);
    drawQr(ctx, buildPromptPayPayload('0812345678'), 190, 300, 700);
    ctx.fillStyle = '#1d2b36';
    ctx.font = font(48);
    ctx.fillText('ร้านกาแฟดีดี', 540, 1120);
    ctx.font = font(40);
    ctx.fillText('สแกนเพื่อชำระเงิน', 540, 1190);
    return encode(canvasToSharp(c), format);
  }
  const c = createCanvas(1200, 900);
  const ctx = c.getContext('2d');
  const sky = ctx.createLinearGradient(0, 0, 0, 900);
  sky.addColorStop(0, '#6fa8dc');
  sky.addColorStop(0.6, '#f6d7a7');
  sky.addColorStop(1, '#8c6d46');
  ctx.fillStyle = sky;
  ctx.fillRect(0, 0, 1200, 900);
  ctx.fillStyle = '#ffd966';
  ctx.beginPath();
  ctx.arc(900, 220, 90, 0, Math.PI * 2);
  ctx.fill();
  for (let i = 0; i < 6; i++) {
    ctx.fillStyle = ['#38761d', '#6aa84f', '#274e13'][i % 3];
    ctx.beginPath();
    ctx.moveTo(i * 220 - 100, 900);
    ctx.lineTo(i * 220 + 80, 420 + (i % 2) * 90);
    ctx.lineTo(i * 220 + 260, 900);
    ctx.fill();
  }
  const r = await raw(canvasToSharp(c));
  addNoise(r.data, 12, 7);
  return encode(sharp(r.data, { raw: { width: 1200, height: 900, channels: 3 } }), format);
}
