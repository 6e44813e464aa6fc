/**
 * Decode-bench corpus shaped like the slips shops really receive (issue 24): few 1080x1900 originals,
 * mostly images that went through a chat app (downscaled, JPEG 60-85, 4:2:0 chroma), thumbnails,
 * screenshots with a phone's status bar and app chrome, tight crops, photos of a screen and slips sent
 * beside a shop's own PromptPay QR; plus the sandbox bank's original variants and a non-slip set.
 *
 * Everything is rendered by the sandbox bank's slip renderer and transformed with sharp, in memory.
 * Everything comes from seeded generators and a fixed date: sizes and qualities, and the transfers
 * (bank, amount, sender, transRef), so every run decodes the same images. Until 2026-11-27 the
 * transfers were new each run; their QR codes then differed, and so did which borderline thumbnails
 * each reader read. Over five such corpora the cascade read 10 slips zxing missed and zxing none the
 * cascade missed: about two a corpus, so a run could draw none, and one did ("reads more than zxing"
 * failed 309 to 309; docs/benchmarks.md).
 */
import sharp, { type Sharp } from 'sharp';
import { generateSlip, LAYOUTS, prng, renderNonSlip, VARIANTS, type Layout, type Variant } from '@slipcheck/sandbox-bank';

export interface CorpusImage {
  /** Corpus variant (one row of the bench table). */
  variant: string;
  image: Buffer;
  /** The slip QR's payload; null for a non-slip image (nothing may decode as a slip). */
  payload: string | null;
  width: number;
  height: number;
}

/** What real traffic is made of: images per variant at scale 1 (see docs/benchmarks.md, "Decoding"). */
export const TRAFFIC_MIX: Record<string, number> = {
  // Chat-app recompression of a screenshot or saved slip: long side, JPEG 60-85, 4:2:0.
  chat1280: 30,
  chat1024: 20,
  chat800: 16,
  chat640: 14,
  chat480: 12,
  // Thumbnails and previews, 200-400 px wide.
  thumb: 52,
  // The bank app's screen captured whole: status bar, app bar, buttons; then through a chat app.
  appshot: 20,
  // A chat app's screen with the slip as a received picture among messages.
  chatshot: 12,
  // Cropped tightly around the slip (header cut, QR close to the edge), then through a chat app.
  crop: 36,
  // A photo of the phone's screen (the sandbox's screenphoto effect), then through a chat app.
  screenphotochat: 14,
  // The shop's own PromptPay QR beside the slip (a collage or a chat with both pictures).
  shopqr: 16,
};

/** One traffic slip in this many is drawn with the small (110 px) QR some bank apps print. */
const SMALL_QR_EVERY = 8;

/** The sandbox bank's own variants (mostly 1080x1900 originals) and a 1080x1900 JPEG, per variant at scale 1. */
export const ORIGINALS_PER_VARIANT = 6;
export const ORIGINAL_VARIANTS = ['clean-jpg', ...VARIANTS] as const;

export interface CorpusOptions {
  /** Multiplies every count (rounded, at least 1 per variant). */
  scale?: number;
  /** Only these variants (slip and non-slip names). */
  only?: readonly string[];
  seed?: number;
  log?: (line: string) => void;
}

/** The corpus' transfers are made a minute apart from this instant (a slip prints its date). */
const CORPUS_DATE = Date.parse('2026-11-20T09:00:00+07:00');

const SCREEN_W = 1080;
const SCREEN_H = 2340;

type Rnd = () => number;
const pick = <T>(rnd: Rnd, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const between = (rnd: Rnd, lo: number, hi: number) => Math.round(lo + rnd() * (hi - lo));

/** What a chat app does to a picture: fit the long side, re-encode as a baseline JPEG with 4:2:0 chroma. */
export function chatJpeg(input: Buffer | Sharp, longSide: number, quality: number): Promise<Buffer> {
  const img = Buffer.isBuffer(input) ? sharp(input) : input;
  return img
    .resize({ width: longSide, height: longSide, fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality, chromaSubsampling: '4:2:0' })
    .toBuffer();
}

async function png(img: Sharp): Promise<Buffer> {
  return img.png({ compressionLevel: 1 }).toBuffer();
}

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A phone status bar (clock, signal, battery) as an SVG strip. */
function statusBar(width: number, dark: boolean, clock: string): string {
  const ink = dark ? '#ffffff' : '#111111';
  const bg = dark ? '#111111' : '#ffffff';
  return `<rect width="${width}" height="96" fill="${bg}"/>
    <text x="60" y="66" font-family="sans-serif" font-size="40" font-weight="bold" fill="${ink}">${clock}</text>
    <rect x="${width - 250}" y="34" width="10" height="30" fill="${ink}"/><rect x="${width - 234}" y="26" width="10" height="38" fill="${ink}"/>
    <rect x="${width - 218}" y="18" width="10" height="46" fill="${ink}"/><rect x="${width - 160}" y="30" width="74" height="36" rx="8" fill="none" stroke="${ink}" stroke-width="4"/>
    <rect x="${width - 154}" y="36" width="52" height="24" rx="4" fill="${ink}"/><rect x="${width - 82}" y="40" width="6" height="16" fill="${ink}"/>`;
}

function svg(width: number, height: number, body: string): Buffer {
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${body}</svg>`);
}

/** The bank app's result screen captured whole: status bar, app bar, the slip, share/done buttons. */
async function appScreenshot(slipPng: Buffer, rnd: Rnd): Promise<Sharp> {
  const dark = rnd() < 0.3;
  const slipW = between(rnd, 960, 1080);
  const { data: slip, info } = await sharp(slipPng)
    .resize({ width: slipW })
    .png({ compressionLevel: 1 })
    .toBuffer({ resolveWithObject: true });
  const slipH = info.height;
  const top = 96 + 150;
  const chrome = svg(
    SCREEN_W,
    SCREEN_H,
    `<rect width="${SCREEN_W}" height="${SCREEN_H}" fill="${dark ? '#1c1c1e' : '#f2f2f7'}"/>${statusBar(SCREEN_W, dark, `${between(rnd, 10, 23)}:${String(between(rnd, 0, 59)).padStart(2, '0')}`)}
     <rect y="96" width="${SCREEN_W}" height="150" fill="${dark ? '#2c2c2e' : '#ffffff'}"/>
     <path d="M70 171 l40 -40 M70 171 l40 40" stroke="${dark ? '#fff' : '#333'}" stroke-width="10"/>
     <text x="540" y="190" text-anchor="middle" font-family="sans-serif" font-size="52" fill="${dark ? '#fff' : '#222'}">${escapeXml('Transfer result')}</text>
     <rect x="60" y="${SCREEN_H - 230}" width="450" height="120" rx="60" fill="#ffffff" stroke="#1aa260" stroke-width="5"/>
     <rect x="570" y="${SCREEN_H - 230}" width="450" height="120" rx="60" fill="#1aa260"/>
     <text x="285" y="${SCREEN_H - 150}" text-anchor="middle" font-family="sans-serif" font-size="46" fill="#1aa260">Share</text>
     <text x="795" y="${SCREEN_H - 150}" text-anchor="middle" font-family="sans-serif" font-size="46" fill="#ffffff">Done</text>
     <rect x="390" y="${SCREEN_H - 40}" width="300" height="12" rx="6" fill="${dark ? '#fff' : '#000'}"/>`,
  );
  const shown = Math.min(slipH, SCREEN_H - top - 260);
  const slipCut =
    shown < slipH
      ? await sharp(slip)
          .extract({ left: 0, top: slipH - shown, width: slipW, height: shown })
          .toBuffer()
      : slip;
  return sharp(chrome).composite([{ input: slipCut, left: Math.round((SCREEN_W - slipW) / 2), top }]);
}

/** A chat app's screen: the slip arrives as a picture among message bubbles. */
async function chatScreenshot(picture: Buffer | null, rnd: Rnd): Promise<Sharp> {
  const bubbles: string[] = [];
  let y = 300;
  const lines = ['โอนแล้วนะคะ', 'ได้รับแล้วครับ ขอบคุณครับ', 'Sent the payment just now', 'ส่งสลิปให้แล้ว', 'OK'];
  for (let i = 0; i < 3 + Math.floor(rnd() * 3); i++) {
    const mine = rnd() < 0.5;
    const w = between(rnd, 300, 700);
    const x = mine ? SCREEN_W - 40 - w : 150;
    bubbles.push(
      `<rect x="${x}" y="${y}" width="${w}" height="110" rx="40" fill="${mine ? '#85e249' : '#ffffff'}"/>` +
        `<text x="${x + 40}" y="${y + 70}" font-family="sans-serif" font-size="40" fill="#111">${escapeXml(pick(rnd, lines))}</text>`,
    );
    y += 150;
  }
  const body = `<rect width="${SCREEN_W}" height="${SCREEN_H}" fill="#8cabd8"/>${statusBar(SCREEN_W, false, '09:41')}
    <rect y="96" width="${SCREEN_W}" height="140" fill="#ffffff"/>
    <text x="140" y="186" font-family="sans-serif" font-size="50" fill="#222">${escapeXml('ร้านกาแฟดีดี')}</text>
    <circle cx="80" cy="600" r="50" fill="#d9d9d9"/>
    ${bubbles.join('')}
    <rect y="${SCREEN_H - 170}" width="${SCREEN_W}" height="170" fill="#ffffff"/>
    <rect x="150" y="${SCREEN_H - 140}" width="760" height="90" rx="45" fill="#f0f0f0"/>`;
  const base = sharp(svg(SCREEN_W, SCREEN_H, body));
  if (!picture) return base;
  // The app shows the whole picture, scaled to fit between the messages and the input bar.
  const room = SCREEN_H - 190 - y;
  const picW = Math.min(between(rnd, 620, 760), Math.floor((room * 1080) / 1900));
  const pic = await sharp(picture).resize({ width: picW }).toBuffer();
  return base.composite([{ input: pic, left: 150, top: y }]);
}

/** The slip and the shop's own PromptPay QR in one picture: side by side, or one above the other. */
async function withShopQr(slipPng: Buffer, shopQrPng: Buffer, rnd: Rnd): Promise<Sharp> {
  const gap = 40;
  if (rnd() < 0.5) {
    const { data: card, info } = await sharp(shopQrPng)
      .resize({ height: 1900 })
      .png({ compressionLevel: 1 })
      .toBuffer({ resolveWithObject: true });
    const cardW = info.width;
    const slipLeft = rnd() < 0.5;
    const W = cardW + 1080 + gap;
    return sharp({ create: { width: W, height: 1900, channels: 3, background: '#e6e6e6' } }).composite([
      { input: slipPng, left: slipLeft ? 0 : cardW + gap, top: 0 },
      { input: card, left: slipLeft ? 1080 + gap : 0, top: 0 },
    ]);
  }
  const H = 1400 + 1900 + gap;
  return sharp({ create: { width: 1080, height: H, channels: 3, background: '#e6e6e6' } }).composite([
    { input: shopQrPng, left: 0, top: 0 },
    { input: slipPng, left: 0, top: 1400 + gap },
  ]);
}

/** Cut the header and margins, leaving the QR close to the picture's edge (its quiet zone partly cut). */
async function tightCrop(slipPng: Buffer, rnd: Rnd): Promise<Sharp> {
  const left = between(rnd, 0, 60);
  const right = between(rnd, 20, 64);
  const top = between(rnd, 180, 560);
  const bottom = between(rnd, 20, 64);
  return sharp(slipPng).extract({ left, top, width: 1080 - left - right, height: 1900 - top - bottom });
}

const CHAT_SIDES: Record<string, number> = { chat1280: 1280, chat1024: 1024, chat800: 800, chat640: 640, chat480: 480 };

async function trafficImage(variant: string, slipPng: Buffer, shopQr: Buffer, rnd: Rnd): Promise<Buffer> {
  const q = () => between(rnd, 60, 85);
  const side = CHAT_SIDES[variant];
  if (side) return chatJpeg(slipPng, side, q());
  switch (variant) {
    case 'thumb': {
      const width = between(rnd, 200, 400);
      return sharp(slipPng)
        .resize({ width })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: q(), chromaSubsampling: '4:2:0' })
        .toBuffer();
    }
    case 'appshot': {
      const shot = await png(await appScreenshot(slipPng, rnd));
      // Some arrive as the phone's own PNG; most went through a chat app first.
      return rnd() < 0.2 ? shot : chatJpeg(shot, pick(rnd, [1280, 1280, 1024]), q());
    }
    case 'chatshot': {
      const shot = await png(await chatScreenshot(slipPng, rnd));
      return rnd() < 0.25 ? shot : chatJpeg(shot, 1280, q());
    }
    case 'crop':
      return chatJpeg(await tightCrop(slipPng, rnd), pick(rnd, [1280, 1024, 1024, 800]), q());
    case 'screenphotochat':
      return chatJpeg(slipPng, pick(rnd, [1280, 1024]), q());
    case 'shopqr': {
      const both = await png(await withShopQr(slipPng, shopQr, rnd));
      return chatJpeg(both, pick(rnd, [1280, 1280, 1024]), q());
    }
  }
  throw new Error(`unknown corpus variant ${variant}`);
}

async function sized(variant: string, image: Buffer, payload: string | null): Promise<CorpusImage> {
  const m = await sharp(image).metadata();
  return { variant, image, payload, width: m.width ?? 0, height: m.height ?? 0 };
}

/** Slip images: the sandbox bank's variants as rendered, then the real-traffic mix. */
export async function buildSlipCorpus(opts: CorpusOptions = {}): Promise<CorpusImage[]> {
  const scale = opts.scale ?? 1;
  const count = (n: number) => Math.max(1, Math.round(n * scale));
  const want = (v: string) => !opts.only || opts.only.includes(v);
  const rnd = prng(opts.seed ?? 24);
  // The transfers draw from a stream of their own, so the transforms' sizes and qualities are the
  // same as before the transfers were seeded.
  const transfers = prng((opts.seed ?? 24) + 2);
  let minute = 0;
  const transfer = () => ({ random: transfers, transDate: new Date(CORPUS_DATE + 60_000 * minute++) });
  const out: CorpusImage[] = [];
  for (const v of ORIGINAL_VARIANTS) {
    if (!want(v)) continue;
    for (let i = 0; i < count(ORIGINALS_PER_VARIANT); i++) {
      // 'clean-jpg': the plain 1080x1900 slip as a JPEG (the headline latency target).
      const s =
        v === 'clean-jpg'
          ? await generateSlip({ variant: 'clean', format: 'jpg', ...transfer() })
          : await generateSlip({ variant: v as Variant, ...transfer() });
      out.push(await sized(v, s.image, s.payload));
    }
    opts.log?.(`corpus: ${v}`);
  }
  const shopQr = await renderNonSlip('promptpay', 'png');
  for (const [variant, n] of Object.entries(TRAFFIC_MIX)) {
    if (!want(variant)) continue;
    for (let i = 0; i < count(n); i++) {
      // Every bank layout in turn: the QR sits right, centre or left, at 260-300 px on 1080.
      const layout: Layout = LAYOUTS[(i + variant.length) % LAYOUTS.length]!;
      const small = i % SMALL_QR_EVERY === SMALL_QR_EVERY - 1 && variant !== 'screenphotochat';
      const s = await generateSlip(
        variant === 'screenphotochat'
          ? { variant: 'screenphoto', layout, ...transfer() }
          : { variant: small ? 'smallqr' : 'clean', format: 'png', layout, ...transfer() },
      );
      const image = await trafficImage(variant, s.image, shopQr, rnd);
      out.push(await sized(variant, image, s.payload));
    }
    opts.log?.(`corpus: ${variant}`);
  }
  return out;
}

export const NON_SLIP_VARIANTS = ['photo', 'promptpay', 'blank', 'chatnoslip', 'appnoslip'] as const;

/**
 * Images that must never decode as a slip: photos, the shop's PromptPay QR alone, blank pages and
 * screenshots without a slip, as sent (PNG/JPEG) and through a chat app.
 */
export async function buildNonSlipCorpus(opts: CorpusOptions = {}): Promise<CorpusImage[]> {
  const want = (v: string) => !opts.only || opts.only.includes(v);
  const rnd = prng((opts.seed ?? 24) + 1);
  const out: CorpusImage[] = [];
  const q = () => between(rnd, 60, 85);
  for (const kind of ['photo', 'promptpay', 'blank'] as const) {
    if (!want(kind)) continue;
    const original = await renderNonSlip(kind, 'png');
    out.push(await sized(kind, original, null));
    out.push(await sized(kind, await renderNonSlip(kind, 'jpg'), null));
    if (kind === 'blank') continue;
    out.push(await sized(kind, await chatJpeg(original, 1280, q()), null));
    out.push(await sized(kind, await chatJpeg(original, 800, q()), null));
    out.push(
      await sized(
        kind,
        await sharp(original)
          .resize({ width: between(rnd, 200, 400) })
          .jpeg({ quality: q() })
          .toBuffer(),
        null,
      ),
    );
  }
  if (want('chatnoslip')) {
    for (let i = 0; i < 3; i++) {
      const shot = await png(await chatScreenshot(null, rnd));
      out.push(await sized('chatnoslip', i === 0 ? shot : await chatJpeg(shot, pick(rnd, [1280, 1024]), q()), null));
    }
  }
  if (want('appnoslip')) {
    // The bank app's screen around a picture that is not a slip (a photo in the slip's place).
    const photo = await sharp(await renderNonSlip('photo', 'png'))
      .resize({ width: 1080, height: 1900, fit: 'cover' })
      .png()
      .toBuffer();
    for (let i = 0; i < 3; i++) {
      const shot = await png(await appScreenshot(photo, rnd));
      out.push(await sized('appnoslip', i === 0 ? shot : await chatJpeg(shot, pick(rnd, [1280, 1024]), q()), null));
    }
  }
  return out;
}

/** Median width, height and bytes, and the share 200-400 px wide: to compare with real traffic. */
export function corpusShape(images: readonly CorpusImage[]): { width: number; height: number; kb: number; narrowShare: number } {
  const med = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? s[Math.floor(s.length / 2)]! : NaN;
  };
  return {
    width: med(images.map((i) => i.width)),
    height: med(images.map((i) => i.height)),
    kb: med(images.map((i) => i.image.length / 1024)),
    narrowShare: images.filter((i) => i.width >= 200 && i.width <= 400).length / Math.max(1, images.length),
  };
}
