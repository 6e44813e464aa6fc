import { createCanvas, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import { bankInfo } from './bank-info.js';
import { drawQr, ensureFonts, font, formatBaht, namedFont, roundRect, thaiDateTime } from './render-support.js';

/**
 * Slip layouts modelled on how the big Thai bank apps and wallets arrange their e-slips: where the
 * amount sits and how large, "฿" before it or "บาท"/"THB" after it, typeface, light or dark page.
 * They are drawn by us, so they are caricatures: the reader in the server must not depend on any one
 * of them (see docs/benchmarks.md "Edited slips" for the hold-out split).
 */
export const LAYOUTS = ['classic', 'kplus', 'scb', 'ktb', 'bbl', 'krungsri', 'truemoney', 'dark', 'gsb', 'ttb'] as const;
export type Layout = (typeof LAYOUTS)[number];

/** The bank (or wallet) whose app each layout is modelled on: a layout's default sending bank. */
export const LAYOUT_BANK: Record<Layout, string | undefined> = {
  classic: undefined,
  kplus: '004',
  scb: '014',
  ktb: '006',
  bbl: '002',
  krungsri: '025',
  truemoney: 'TRUEMONEY',
  dark: '004',
  gsb: '030',
  ttb: '011',
};

/** The face an edited amount is typed in: another one than the layout's, or the layout's own. */
export const EDIT_FACES = ['other', 'same'] as const;
export type EditFace = (typeof EDIT_FACES)[number];

type AmountStyle = 'baht' | 'thb' | 'prefix' | 'prefix-space' | 'bare';
interface LayoutSpec {
  /** tlwg family (fonts-thai-tlwg), or a Latin family of the Debian fonts (Thai falls back to SlipSans) */
  face: string;
  /** The face an image editor types the new amount in (default Loma, or Garuda on Loma layouts). */
  editFace?: string;
  page: string;
  ink: string;
  muted: string;
  card: string | null;
  /** header band height (0 = none) and whether its colour is the bank's or fixed */
  header: number;
  headerColor?: string;
  amountPx: number;
  amountAlign: 'left' | 'center' | 'right';
  amountColor?: string;
  amountStyle: AmountStyle;
  label: string;
  /** label on the amount's row (left) or on its own row above */
  labelAbove: boolean;
  /** amount right under the status line (wallets) or after the parties (banks) */
  amountFirst: boolean;
  qrAt: 'right' | 'center' | 'left';
  qrPx: number;
}

const SPECS: Record<Layout, LayoutSpec> = {
  // The service's original generic slip: label left, amount right with "บาท".
  classic: {
    face: 'Loma',
    page: '#f3f5f7',
    ink: '#1d2b36',
    muted: '#8a949c',
    card: '#ffffff',
    header: 280,
    amountPx: 62,
    amountAlign: 'right',
    amountStyle: 'baht',
    label: 'จำนวน:',
    labelAbove: false,
    amountFirst: false,
    qrAt: 'right',
    qrPx: 300,
  },
  // K PLUS: light page, no card, "จำนวน:" above a big left-aligned "1,000.00 บาท".
  kplus: {
    face: 'Waree',
    page: '#ffffff',
    ink: '#212121',
    muted: '#7a7a7a',
    card: null,
    header: 150,
    headerColor: '#e9f6ec',
    amountPx: 70,
    amountAlign: 'left',
    amountColor: '#138f2d',
    amountStyle: 'baht',
    label: 'จำนวน:',
    labelAbove: true,
    amountFirst: false,
    qrAt: 'right',
    qrPx: 280,
  },
  // SCB EASY: purple header, amount centred in the card, bare number under "จำนวนเงิน".
  scb: {
    face: 'Garuda',
    page: '#f4f1f8',
    ink: '#2b1d40',
    muted: '#8c82a0',
    card: '#ffffff',
    header: 320,
    amountPx: 74,
    amountAlign: 'center',
    amountColor: '#4e2e7f',
    amountStyle: 'bare',
    label: 'จำนวนเงิน',
    labelAbove: true,
    amountFirst: true,
    qrAt: 'center',
    qrPx: 260,
  },
  // Krungthai NEXT: light blue band, "จำนวนเงิน" left, amount right with "บาท", smaller type.
  ktb: {
    face: 'Umpush',
    page: '#eef7fc',
    ink: '#0d3550',
    muted: '#6a8596',
    card: '#ffffff',
    header: 240,
    headerColor: '#1ba5e1',
    amountPx: 54,
    amountAlign: 'right',
    amountStyle: 'baht',
    label: 'จำนวนเงิน',
    labelAbove: false,
    amountFirst: false,
    qrAt: 'right',
    qrPx: 300,
  },
  // Bualuang mBanking: navy header, English labels, "1,000.00 THB", serif face.
  bbl: {
    face: 'Norasi',
    page: '#ffffff',
    ink: '#10224a',
    muted: '#6d7a93',
    card: null,
    header: 260,
    headerColor: '#1e4598',
    amountPx: 60,
    amountAlign: 'right',
    amountStyle: 'thb',
    label: 'Amount',
    labelAbove: false,
    amountFirst: false,
    qrAt: 'left',
    qrPx: 300,
  },
  // Krungsri (KMA): grey-brown header with a yellow rule, amount centred "1,000.00 THB".
  krungsri: {
    face: 'Laksaman',
    page: '#faf8f2',
    ink: '#4a3c33',
    muted: '#8f8277',
    card: '#ffffff',
    header: 260,
    headerColor: '#6d5a4f',
    amountPx: 66,
    amountAlign: 'center',
    amountStyle: 'thb',
    label: 'จำนวนเงิน (Amount)',
    labelAbove: true,
    amountFirst: false,
    qrAt: 'right',
    qrPx: 300,
  },
  // TrueMoney Wallet: orange header, huge "฿1,000.00" right under the status.
  truemoney: {
    face: 'Sawasdee',
    page: '#ffffff',
    ink: '#333333',
    muted: '#909090',
    card: null,
    header: 200,
    headerColor: '#f7941d',
    amountPx: 88,
    amountAlign: 'center',
    amountStyle: 'prefix',
    label: 'จำนวนเงิน',
    labelAbove: true,
    amountFirst: true,
    qrAt: 'center',
    qrPx: 280,
  },
  // A dark-mode app (MAKE by KBank, dark themes): white and neon text on near-black, "฿ 1,000.00".
  dark: {
    face: 'Kinnari',
    page: '#121417',
    ink: '#f2f2f2',
    muted: '#9aa3ab',
    card: '#1d2126',
    header: 220,
    headerColor: '#1d2126',
    amountPx: 64,
    amountAlign: 'left',
    amountColor: '#5ef2a2',
    amountStyle: 'prefix-space',
    label: 'ยอดเงิน',
    labelAbove: true,
    amountFirst: true,
    qrAt: 'right',
    qrPx: 300,
  },
  // Added after the reader was tuned and never looked at while tuning it (docs/benchmarks.md "held
  // out"): Latin faces from other Debian font packages, not the tlwg ones the reader was developed on.
  // GSB MyMo: pink header, "จำนวนเงิน" above a left-aligned amount with "บาท", Liberation Sans digits.
  gsb: {
    face: 'Liberation Sans',
    editFace: 'DejaVu Sans',
    page: '#ffffff',
    ink: '#2d2d2d',
    muted: '#8b8b8b',
    card: '#fdf3f8',
    header: 230,
    headerColor: '#e3197b',
    amountPx: 60,
    amountAlign: 'left',
    amountStyle: 'baht',
    label: 'จำนวนเงิน',
    labelAbove: true,
    amountFirst: false,
    qrAt: 'right',
    qrPx: 290,
  },
  // ttb touch: deep blue header, amount right-aligned "฿1,000.00" beside its label, DejaVu Sans.
  ttb: {
    face: 'DejaVu Sans',
    editFace: 'Liberation Sans',
    page: '#f2f5fb',
    ink: '#0a1f44',
    muted: '#6b7a99',
    card: '#ffffff',
    header: 250,
    headerColor: '#0a2c6e',
    amountPx: 56,
    amountAlign: 'right',
    amountColor: '#0a2c6e',
    amountStyle: 'prefix',
    label: 'จำนวนเงิน',
    labelAbove: false,
    amountFirst: true,
    qrAt: 'left',
    qrPx: 300,
  },
};

export function amountText(amountSatang: number, style: AmountStyle): string {
  const n = formatBaht(amountSatang / 100);
  switch (style) {
    case 'baht':
      return `${n} บาท`;
    case 'thb':
      return `${n} THB`;
    case 'prefix':
      return `฿${n}`;
    case 'prefix-space':
      return `฿ ${n}`;
    case 'bare':
      return n;
  }
}

export interface LayoutSlip {
  transRef: string;
  payload: string;
  sendingBank: string;
  receivingBank: string;
  transDate: Date;
  senderName: string;
  senderLine: string;
  receiverName: string;
  receiverLine: string;
}

export interface LayoutDrawOptions {
  /** What the picture says, in satang (an edited slip prints something else than the transfer). */
  printedSatang: number;
  /** Drawn as an image editor leaves it: a repainted patch, the digits in another face. */
  edited: boolean;
  /**
   * The face the edited amount is typed in: 'other' (an image editor's nearest font, the default)
   * or 'same' (the layout's own face, weight and colour, as a "slip maker" app types it: nothing in
   * the glyphs betrays the edit, only the number does).
   */
  editFace?: EditFace;
  qrPx?: number;
  paymentQr?: string;
}

function badge(ctx: SKRSContext2D, code: string, cx: number, cy: number, r: number, face: string, inverted = false): void {
  const b = bankInfo(code);
  ctx.beginPath();
  ctx.arc(cx, cy, r, 0, Math.PI * 2);
  ctx.fillStyle = inverted ? '#ffffff' : b.color;
  ctx.fill();
  ctx.fillStyle = inverted ? b.color : '#ffffff';
  const label = (b.badge ?? b.short).slice(0, 5);
  ctx.font = font(Math.round((r * 1.5) / Math.max(2.2, label.length * 0.62)), 'bold', face);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(label, cx, cy + 2);
  ctx.textAlign = 'left';
  ctx.textBaseline = 'alphabetic';
}

/** Draws one of the layouts at 1080x1900. `drawSlip` in slip-renderer.ts keeps the classic one. */
export function drawLayout(layout: Exclude<Layout, 'classic'>, s: LayoutSlip, o: LayoutDrawOptions): Canvas {
  ensureFonts();
  const spec = SPECS[layout];
  const face = namedFont(spec.face);
  const W = 1080;
  const H = 1900;
  const canvas = createCanvas(W, H);
  const ctx = canvas.getContext('2d');
  const bank = bankInfo(s.sendingBank);
  const english = spec.label === 'Amount';

  ctx.fillStyle = spec.page;
  ctx.fillRect(0, 0, W, H);
  const headerColor = spec.headerColor ?? bank.color;
  const lightHeader = headerColor === '#e9f6ec';
  if (spec.header > 0) {
    ctx.fillStyle = headerColor;
    ctx.fillRect(0, 0, W, spec.header);
    if (layout === 'krungsri') {
      ctx.fillStyle = '#ffd400';
      ctx.fillRect(0, spec.header - 14, W, 14);
    }
    badge(ctx, s.sendingBank, 120, spec.header / 2, Math.min(64, spec.header / 3), face, !lightHeader);
    ctx.fillStyle = lightHeader ? '#138f2d' : '#ffffff';
    ctx.font = font(48, 'bold', face);
    ctx.fillText(english ? 'Bangkok Bank' : bank.nameTh, 215, spec.header / 2 + 4);
    ctx.font = font(30, 'normal', face);
    ctx.fillText(s.sendingBank === 'TRUEMONEY' ? 'TrueMoney Wallet' : `${bank.short} Mobile Banking`, 215, spec.header / 2 + 50);
  }

  let y = spec.header + 90;
  ctx.textAlign = 'center';
  ctx.fillStyle = layout === 'dark' ? '#5ef2a2' : '#2eb450';
  ctx.font = font(58, 'bold', face);
  ctx.fillText(english ? 'Transfer Successful' : 'โอนเงินสำเร็จ', W / 2, y);
  y += 60;
  ctx.fillStyle = spec.muted;
  ctx.font = font(34, 'normal', face);
  ctx.fillText(thaiDateTime(s.transDate), W / 2, y);
  ctx.textAlign = 'left';
  y += 50;

  if (spec.card) {
    ctx.fillStyle = spec.card;
    roundRect(ctx, 50, y, W - 100, H - y - 420, 26);
    ctx.fill();
  }
  y += 50;

  const drawAmount = () => {
    const text = amountText(o.printedSatang, spec.amountStyle);
    const left = 100;
    const right = W - 100;
    ctx.fillStyle = spec.muted;
    ctx.font = font(32, 'normal', face);
    if (spec.labelAbove) {
      ctx.textAlign = spec.amountAlign === 'center' ? 'center' : 'left';
      ctx.fillText(spec.label, spec.amountAlign === 'center' ? W / 2 : left, y + 20);
      y += 40 + spec.amountPx;
    } else {
      y += spec.amountPx;
      ctx.fillText(spec.label, left, y - 8);
    }
    const x = spec.amountAlign === 'left' ? left : spec.amountAlign === 'center' ? W / 2 : right;
    ctx.textAlign = spec.amountAlign;
    // An editor repaints the old number's box and types the new one: a patch of nearly the
    // background colour and a face that is close to, but not, the app's. A slip-maker app types it
    // in the app's own face on a clean patch: only the number differs from a genuine slip.
    const amountFont =
      o.edited && o.editFace !== 'same'
        ? font(spec.amountPx, 'bold', namedFont(spec.editFace ?? (spec.face === 'Loma' ? 'Garuda' : 'Loma')))
        : font(spec.amountPx, 'bold', face);
    ctx.font = amountFont;
    if (o.edited) {
      const w = ctx.measureText(text).width;
      const x0 = spec.amountAlign === 'left' ? x : spec.amountAlign === 'center' ? x - w / 2 : x - w;
      ctx.fillStyle = spec.card ?? spec.page;
      ctx.globalAlpha = o.editFace === 'same' ? 1 : 0.97;
      ctx.fillRect(x0 - 12, y - spec.amountPx, w + 24, spec.amountPx * 1.3);
      ctx.globalAlpha = 1;
    }
    ctx.fillStyle = spec.amountColor ?? spec.ink;
    ctx.fillText(text, x, y);
    ctx.textAlign = 'left';
    y += 70;
    // A fee line in the same number format: a second two-decimal number the reader must not take.
    ctx.fillStyle = spec.muted;
    ctx.font = font(32, 'normal', face);
    ctx.fillText(english ? 'Fee' : 'ค่าธรรมเนียม', left, y);
    ctx.textAlign = 'right';
    ctx.fillText(amountText(0, spec.amountStyle === 'bare' ? 'baht' : spec.amountStyle), right, y);
    ctx.textAlign = 'left';
    y += 70;
  };

  const party = (label: string, code: string, name: string, line: string) => {
    ctx.fillStyle = spec.muted;
    ctx.font = font(30, 'normal', face);
    ctx.fillText(label, 100, y);
    badge(ctx, code, 150, y + 72, 42, face);
    ctx.fillStyle = spec.ink;
    ctx.font = font(42, 'bold', face);
    ctx.fillText(name, 220, y + 62);
    ctx.fillStyle = spec.muted;
    ctx.font = font(34, 'normal', face);
    ctx.fillText(line, 220, y + 110);
    y += 170;
  };

  if (spec.amountFirst) drawAmount();
  party(english ? 'From' : 'จาก', s.sendingBank, s.senderName, s.senderLine);
  party(english ? 'To' : 'ไปยัง', s.receivingBank, s.receiverName, s.receiverLine);
  ctx.fillStyle = spec.muted;
  ctx.globalAlpha = 0.35;
  ctx.fillRect(100, y - 20, W - 200, 3);
  ctx.globalAlpha = 1;
  y += 30;
  if (!spec.amountFirst) drawAmount();
  ctx.fillStyle = spec.muted;
  ctx.font = font(30, 'normal', face);
  ctx.fillText(english ? 'Transaction ID' : 'เลขที่รายการ', 100, y);
  ctx.fillStyle = spec.ink;
  ctx.font = font(32, 'normal', face);
  ctx.fillText(s.transRef, 100, y + 45);

  const qrPx = o.qrPx ?? spec.qrPx;
  const qrX = spec.qrAt === 'right' ? W - 60 - qrPx : spec.qrAt === 'center' ? (W - qrPx) / 2 : 60;
  const qrY = H - 60 - qrPx;
  // The QR keeps a white quiet zone even on a dark page, as dark-mode apps draw it.
  drawQr(ctx, s.payload, Math.round(qrX), qrY, qrPx);
  ctx.fillStyle = spec.muted;
  ctx.font = font(28, 'normal', face);
  const noteX = spec.qrAt === 'left' ? W - 100 : 90;
  ctx.textAlign = spec.qrAt === 'left' ? 'right' : 'left';
  if (o.paymentQr) {
    drawQr(ctx, o.paymentQr, spec.qrAt === 'left' ? W - 360 : 80, H - 360, 300);
  } else if (spec.qrAt !== 'center') {
    ctx.fillText(english ? 'Scan to verify' : 'สแกนตรวจสอบสลิป', noteX, H - 230);
    ctx.fillText(`Ref ${s.transRef.slice(-8)}`, noteX, H - 180);
  }
  ctx.textAlign = 'left';
  return canvas;
}
