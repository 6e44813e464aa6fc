import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { GlobalFonts, type SKRSContext2D } from '@napi-rs/canvas';
import QRCode from 'qrcode';

export const FONT_FAMILY = 'SlipSans';
let fontsReady = false;
let thaiFont = false;

const PREFERRED = ['Loma', 'Garuda', 'Waree', 'Umpush', 'Kinnari', 'Norasi'];

/** Finds a Thai-capable font (fonts-thai-tlwg on Debian). Without one the slip still renders, with tofu glyphs. */
function findThaiFonts(): { regular?: string; bold?: string } {
  let files: string[] = [];
  try {
    files = execFileSync('fc-list', [':lang=th', 'file'], { encoding: 'utf8', timeout: 3000 })
      .split('\n')
      .map((l) => l.replace(/:\s*$/, '').trim())
      .filter(Boolean);
  } catch {
    // fontconfig missing: fall back to the usual Debian location.
  }
  if (files.length === 0) {
    files = PREFERRED.flatMap((n) => [`/usr/share/fonts/truetype/tlwg/${n}.ttf`, `/usr/share/fonts/truetype/tlwg/${n}-Bold.ttf`]).filter(
      (f) => existsSync(f),
    );
  }
  const base = (f: string) =>
    f
      .split('/')
      .pop()!
      .replace(/\.(ttf|otf)$/i, '');
  for (const name of PREFERRED) {
    const regular = files.find((f) => base(f) === name);
    if (regular) return { regular, bold: files.find((f) => base(f) === `${name}-Bold`) ?? regular };
  }
  const any = files.find((f) => /\.(ttf|otf)$/i.test(f));
  return { regular: any, bold: any };
}

export function ensureFonts(): boolean {
  if (fontsReady) return thaiFont;
  fontsReady = true;
  const { regular, bold } = findThaiFonts();
  if (regular) thaiFont = GlobalFonts.registerFromPath(regular, FONT_FAMILY) !== null;
  if (bold && bold !== regular) GlobalFonts.registerFromPath(bold, FONT_FAMILY);
  return thaiFont;
}

export function font(px: number, weight: 'normal' | 'bold' = 'normal', family = FONT_FAMILY): string {
  return `${weight} ${px}px ${family}, ${FONT_FAMILY}, "DejaVu Sans", sans-serif`;
}

const NAMED_FONTS = new Map<string, boolean>();

/**
 * Registers one fonts-thai-tlwg family (regular and bold) under its own name, so slip layouts can
 * differ in typeface as bank apps do. Falls back to SlipSans (via font()) when the family is missing.
 */
/** Latin families of other Debian font packages (fonts-liberation, fonts-dejavu-core): regular, bold. */
const OTHER_FONTS: Record<string, [string, string]> = {
  'Liberation Sans': [
    '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf',
    '/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf',
  ],
  'DejaVu Sans': ['/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf'],
};

export function namedFont(name: string): string {
  if (!NAMED_FONTS.has(name)) {
    let ok = false;
    const other = OTHER_FONTS[name];
    for (const [suffix, file] of [
      ...(other
        ? ([
            ['', other[0]],
            ['-Bold', other[1]],
          ] as const)
        : []),
      ['', `/usr/share/fonts/truetype/tlwg/${name}.ttf`],
      ['-Bold', `/usr/share/fonts/truetype/tlwg/${name}-Bold.ttf`],
      ['', `/usr/share/fonts/opentype/tlwg/${name}.otf`],
      ['-Bold', `/usr/share/fonts/opentype/tlwg/${name}-Bold.otf`],
    ] as const) {
      if (existsSync(file) && GlobalFonts.registerFromPath(file, `Slip${name.replace(/\s/g, '')}`) !== null) ok = ok || suffix === '';
    }
    NAMED_FONTS.set(name, ok);
  }
  return NAMED_FONTS.get(name) ? `Slip${name.replace(/\s/g, '')}` : FONT_FAMILY;
}

const QR_CACHE = new Map<string, { size: number; dark: Uint8Array }>();

function qrMatrix(text: string): { size: number; dark: Uint8Array } {
  let m = QR_CACHE.get(text);
  if (!m) {
    const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
    m = { size: qr.modules.size, dark: Uint8Array.from(qr.modules.data) };
    if (QR_CACHE.size > 500) QR_CACHE.clear();
    QR_CACHE.set(text, m);
  }
  return m;
}

/**
 * Draws a QR (with its 4-module quiet zone) into a square of `px` pixels at (x, y). Module edges
 * are snapped to whole pixels so small QRs look like a nearest-neighbour downscale, not a blur.
 */
export function drawQr(ctx: SKRSContext2D, text: string, x: number, y: number, px: number): void {
  const { size, dark } = qrMatrix(text);
  const total = size + 8;
  let m = px / total;
  if (m >= 4) m = Math.floor(m);
  const side = Math.round(m * total);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(x, y, side, side);
  ctx.fillStyle = '#000000';
  const edge = (i: number) => Math.round((i + 4) * m);
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      if (!dark[r * size + c]) continue;
      // Merge horizontal runs: fewer rects, and no hairline seams between neighbours.
      let e = c;
      while (e + 1 < size && dark[r * size + e + 1]) e++;
      ctx.fillRect(x + edge(c), y + edge(r), edge(e + 1) - edge(c), edge(r + 1) - edge(r));
      c = e;
    }
  }
}

const MONTHS = ['ม.ค.', 'ก.พ.', 'มี.ค.', 'เม.ย.', 'พ.ค.', 'มิ.ย.', 'ก.ค.', 'ส.ค.', 'ก.ย.', 'ต.ค.', 'พ.ย.', 'ธ.ค.'];

/** "21 พ.ย. 68 14:30 น." in Bangkok time with the Buddhist-era year, as Thai bank apps print it. */
export function thaiDateTime(d: Date): string {
  const th = new Date(d.getTime() + 7 * 3600_000);
  const be = (th.getUTCFullYear() + 543) % 100;
  const hh = String(th.getUTCHours()).padStart(2, '0');
  const mm = String(th.getUTCMinutes()).padStart(2, '0');
  return `${th.getUTCDate()} ${MONTHS[th.getUTCMonth()]} ${String(be).padStart(2, '0')} ${hh}:${mm} น.`;
}

export function formatBaht(amount: number): string {
  return amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

export function roundRect(ctx: SKRSContext2D, x: number, y: number, w: number, h: number, r: number): void {
  ctx.beginPath();
  ctx.moveTo(x + r, y);
  ctx.arcTo(x + w, y, x + w, y + h, r);
  ctx.arcTo(x + w, y + h, x, y + h, r);
  ctx.arcTo(x, y + h, x, y, r);
  ctx.arcTo(x, y, x + w, y, r);
  ctx.closePath();
}

/** Small deterministic PRNG (mulberry32) so variants are reproducible for a given seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seedOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}
