import sharp, { type Sharp } from 'sharp';
import { ocrEngine, TIME_WHITELIST, type OcrEngine, type OcrWord } from './slip-qr-ocr.js';
import { lumaOf } from './slip-qr-decoder.js';
import { startRunClock } from './run-clock.js';

/**
 * Reads the amount a slip picture prints, to hold it against the bank's (issue 20: edited slips).
 *
 * OCR of a whole slip costs seconds, so the engine only ever sees a few located lines:
 * 1. one greyscale copy, long side <= WORK_SIDE, and a half-size copy for layout analysis;
 * 2. ink = strong horizontal gradient (polarity-free: dark text on light cards and light text on
 *    dark headers alike); the skew angle is the one whose row histogram of ink is sharpest
 *    (tilted photos, rotated screenshots), and the picture is turned back by it;
 * 3. text lines from the row profile, cut recursively into column blocks where a QR code, a logo or
 *    a picture stands beside the text (an X-Y cut), and cut into word groups at wide column gaps;
 * 4. the groups that end as an amount does (digit, point, two digits: the decimal pattern, from the
 *    glyphs alone) are read first, then the others by the height of their dense core (an amount is
 *    often the largest number of a layout, and digits fill their height while Thai letters carry
 *    thin marks above and below), one line each with a digits-and-separators whitelist;
 * 5. the tallest group that reads as a well-formed two-decimal amount is the printed amount.
 * Nothing about one layout is assumed: no positions, labels or fonts (the labels are Thai, the engine
 * English only: the amount is found by its shape and its "บาท"/"THB" suffix is painted out).
 */

export interface PrintedRead {
  /** Printed amount in satang, or null when no amount could be read with confidence. */
  amountSatang: number | null;
  /** 0..1: the engine's lowest word confidence over the amount, 0 when nothing was read. */
  confidence: number;
  /** The amount as printed (digits and separators), for operators. */
  text: string | null;
  /** Why nothing was read: 'no-lines', 'no-amount', 'budget', 'ambiguous', 'unconfirmed', 'fragment', 'miscount', 'error'. */
  reason: string | null;
  /** Lines given to the OCR engine. */
  lines: number;
  ms: number;
  /**
   * Only with `fields: true` (`slipcheck read`; a verify reads the amount only): the printed transfer
   * time "HH:MM", or null when not read. Informational: only the amount ever concludes anything.
   */
  time?: string | null;
}

export interface ReadOptions {
  /** Budget in running time (run-clock.ts): no further line is read once it is spent (the decoder's per-image budget). */
  budgetMs?: number;
  engine?: OcrEngine;
  /** Most candidate lines to read. */
  maxLines?: number;
  /** How the slip lies, from its QR (DecodeResult.qrAngle): turned back before reading. Else estimated. */
  angle?: number;
  /** Also read the printed time (more work: operators, not verifies). */
  fields?: boolean;
}

const WORK_SIDE = 1200;
const MIN_WORK_SIDE = 900;
/**
 * Digit height the crops are scaled to before OCR. Measured: tesseract's LSTM reads 20-26 px digits
 * best; at ~40 px it read a clean "7.25" as "123" with 90+ confidence. The confirming second read
 * uses CONFIRM_CORE_PX: a number both reads agree on is the amount, otherwise nothing is concluded.
 */
const OCR_CORE_PX = 24;
/**
 * The printed time's digits are enlarged further: the time is the smallest text read (15 px digits on
 * the scb layout), and at 24 px the engine read that layout's 13:53 as 18:53 with confidence 0.95 and
 * 13:33 as 18:83. At 36 px both read right; 118 of 120 synthetic times (10 layouts) and 15 of 21 real
 * ones read the same as before (test/slip-qr/slip-read-command.test.ts).
 */
const TIME_CORE_PX = 36;
const CONFIRM_CORE_PX = 19;

interface Gray {
  data: Buffer;
  width: number;
  height: number;
}

export interface Segment {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  core: number;
  /** Narrower than a word (one glyph: a "1" with wide side bearings, a "฿"): never a candidate itself. */
  narrow?: boolean;
}

async function toGray(image: Buffer, maxSide: number): Promise<Gray> {
  const meta = await sharp(image, { failOn: 'none', limitInputPixels: 50_000_000 }).metadata();
  // A chat app's small copy (long side 480-800) is enlarged to the working size: at its own size the
  // layout analysis runs at 240-400 px, where a real slip's 11 px digits are 5 px and its lines glue
  // together (a K PLUS slip at 480 px read nothing).
  const small = Math.max(meta.width ?? 0, meta.height ?? 0) < MIN_WORK_SIDE;
  // One channel (green) instead of greyscale(), as in the QR decoder (and without colour management,
  // CMYK included: see lumaOf): the colourspace conversion cost ~20 ms per slip, and green keeps every
  // layout's amount apart from its background.
  const g = await lumaOf(
    image,
    { channels: meta.channels ?? 3, hasAlpha: meta.hasAlpha ?? false, ...(meta.space ? { space: meta.space } : {}) },
    maxSide,
    small,
  );
  return { data: Buffer.from(g.data.buffer, g.data.byteOffset, g.data.byteLength), width: g.width, height: g.height };
}

async function grayOp(g: Gray, op: (p: Sharp) => Sharp): Promise<Gray> {
  const { data, info } = await op(sharp(g.data, { raw: { width: g.width, height: g.height, channels: 1 } }))
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

const half = (g: Gray) => grayOp(g, (p) => p.resize({ width: Math.max(1, Math.round(g.width / 2)), kernel: 'linear' }));

/** Ink map: horizontal gradient above a threshold, which ignores flat backgrounds of any brightness. */
function inkMap(g: Gray): Uint8Array {
  const { data, width, height } = g;
  const ink = new Uint8Array(width * height);
  // The threshold follows the picture's contrast: a faded or dim slip (levels squeezed into 80 grey
  // steps) lost the thin "1" of "110.92" at a fixed 30, and "0.92" was read: a false FRAUD.
  const hist = new Uint32Array(256);
  for (let i = 0; i < data.length; i += 7) hist[data[i]]++;
  const total = hist.reduce((a, b) => a + b, 0);
  const pctl = (q: number) => {
    let acc = 0;
    for (let v = 0; v < 256; v++) if ((acc += hist[v]) >= q * total) return v;
    return 255;
  };
  const t = Math.max(12, Math.min(30, Math.round(0.15 * (pctl(0.99) - pctl(0.01)))));
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 1; x < width - 1; x++) {
      const d = data[row + x + 1] - data[row + x - 1];
      if (d > t || d < -t) ink[row + x] = 1;
    }
  }
  // Long vertical runs are page, card, bezel or photo edges (a turned slip's border crosses every
  // row), never glyphs: clear them so they do not glue every row into one band. Runs are measured
  // over a 5-px wide window so an edge a few degrees off vertical still counts as one run.
  const maxRun = Math.max(24, Math.round(height / 25));
  const near = (x: number, y: number) => {
    const row = y * width;
    for (let k = Math.max(0, x - 2); k <= Math.min(width - 1, x + 2); k++) if (ink[row + k]) return true;
    return false;
  };
  const clear: number[] = [];
  for (let x = 0; x < width; x += 1) {
    let y = 0;
    while (y < height) {
      if (!ink[y * width + x]) {
        y++;
        continue;
      }
      let b = y;
      while (b > 0 && near(x, b - 1)) b--;
      let e = y;
      while (e < height && near(x, e)) e++;
      if (e - b > maxRun) for (let k = y; k < e; k++) if (ink[k * width + x]) clear.push(k * width + x);
      y = e;
    }
  }
  for (const i of clear) ink[i] = 0;
  return ink;
}

/** Skew in degrees (-10..10) whose sheared row histogram of ink is sharpest. */
function skewAngle(ink: Uint8Array, width: number, height: number): number {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = 0; y < height; y += 2)
    for (let x = 0; x < width; x += 2)
      if (ink[y * width + x]) {
        xs.push(x);
        ys.push(y);
      }
  if (xs.length < 50) return 0;
  let best = 0;
  let bestScore = -1;
  const pad = width;
  const hist = new Float64Array(height + 2 * pad);
  for (let a = -10; a <= 10; a += 0.5) {
    hist.fill(0);
    const t = Math.tan((a * Math.PI) / 180);
    for (let i = 0; i < xs.length; i++) hist[Math.round(ys[i] - xs[i] * t) + pad]++;
    let score = 0;
    for (let i = 0; i < hist.length; i++) score += hist[i] * hist[i];
    if (score > bestScore * 1.0001) {
      bestScore = score;
      best = a;
    }
  }
  return best;
}

/** Rows [y0, y1] of ink runs (bands) within a block, rows with under 2 ink pixels being gaps. */
function rowBands(ink: Uint8Array, width: number, bx0: number, bx1: number, by0: number, by1: number): [number, number][] {
  const rows = new Uint32Array(by1 - by0 + 1);
  for (let y = by0; y <= by1; y++) {
    let n = 0;
    for (let x = bx0; x <= bx1; x++) n += ink[y * width + x];
    rows[y - by0] = n;
  }
  const out: [number, number][] = [];
  let y = 0;
  const h = rows.length;
  while (y < h) {
    if (rows[y] < 2) {
      y++;
      continue;
    }
    let y1 = y;
    let gap = 0;
    while (y1 + 1 < h && gap <= 1) {
      y1++;
      gap = rows[y1] < 2 ? gap + 1 : 0;
    }
    out.push([by0 + y, by0 + y1 - gap]);
    y = y1 + 1;
  }
  return out;
}

/** Column blocks of a band: ink runs of columns parted by gaps of at least `minGap` empty columns. */
function columnBlocks(
  ink: Uint8Array,
  width: number,
  bx0: number,
  bx1: number,
  y0: number,
  y1: number,
  minGap: number,
): [number, number][] {
  const out: [number, number][] = [];
  let start = -1;
  let last = -1;
  for (let x = bx0; x <= bx1; x++) {
    let any = false;
    for (let y = y0; y <= y1 && !any; y++) any = ink[y * width + x] === 1;
    if (!any) continue;
    if (start < 0) start = x;
    else if (x - last > minGap) {
      out.push([start, last]);
      start = x;
    }
    last = x;
  }
  if (start >= 0) out.push([start, last]);
  return out;
}

/**
 * Word groups of the text lines, with the height of their dense core.
 * Lines come from the row profile of ink. A picture or a QR code beside text (a real K PLUS slip prints
 * its amount line left of the QR, over an illustrated background) glues every line it spans into one
 * tall band: such a band is cut into column blocks at wide empty gaps and each block is analysed again
 * (a recursive X-Y cut). A band of ordinary height is cut too when one of its column blocks holds
 * several lines (a logo beside a name, an account and a bank name); one that is really a line stays.
 */
function segments(ink: Uint8Array, width: number, height: number): Segment[] {
  const out: Segment[] = [];
  const words = (bx0: number, bx1: number, y0: number, yEnd: number): void => {
    const h = yEnd - y0 + 1;
    const cols = new Uint32Array(width);
    for (let yy = y0; yy <= yEnd; yy++) for (let x = bx0; x <= bx1; x++) cols[x] += ink[yy * width + x];
    // A space between words (~0.3 em) splits: the number stands alone, apart from "บาท"/"THB"/"฿ ".
    const maxGap = Math.max(2, Math.round(h * 0.3));
    const pushSegment = (x0: number, x1: number): void => {
      const narrow = x1 - x0 + 1 < h * 1.2;
      // Dense core: the longest run of rows whose ink is at least 35% of the fullest row's.
      const r = new Uint32Array(h);
      for (let yy = y0; yy <= yEnd; yy++) for (let xx = x0; xx <= x1; xx++) r[yy - y0] += ink[yy * width + xx];
      const peak = Math.max(...r);
      let run = 0;
      let core = 0;
      for (const v of r) {
        run = v >= peak * 0.35 ? run + 1 : 0;
        if (run > core) core = run;
      }
      out.push({ x0, x1, y0, y1: yEnd, core, narrow });
    };
    let x = bx0;
    while (x <= bx1) {
      if (!cols[x]) {
        x++;
        continue;
      }
      const x0 = x;
      let last = x;
      while (x <= bx1 && x - last <= maxGap) {
        if (cols[x]) last = x;
        x++;
      }
      pushSegment(x0, last);
    }
  };
  const block = (bx0: number, bx1: number, by0: number, by1: number, depth: number): void => {
    const bands = rowBands(ink, width, bx0, bx1, by0, by1).filter(([a, b]) => b - a + 1 >= 5);
    for (const [y0, yEnd] of bands) {
      const h = yEnd - y0 + 1;
      const tall = h > height / 6;
      if (depth < 4 && h >= 10) {
        // Wider than any word space: apart from a QR, a logo, a picture, another column.
        const cols = columnBlocks(ink, width, bx0, bx1, y0, yEnd, Math.max(6, Math.round(width * 0.025)));
        const parts = cols.map(([a, b]) => rowBands(ink, width, a, b, y0, yEnd).filter(([c, d]) => d - c + 1 >= 5));
        if (cols.length >= 2 && (tall || parts.some((p) => p.length >= 2))) {
          for (const [a, b] of cols) block(a, b, y0, yEnd, depth + 1);
          continue;
        }
      }
      if (tall) continue;
      words(bx0, bx1, y0, yEnd);
    }
  };
  block(0, width - 1, 0, height - 1, 0);
  return out;
}

/** "1,234.50" -> 123450 satang, from the string (no floating point). Malformed grouping is no amount. */
export function amountTextToSatang(text: string): number | null {
  const m = /^(\d{1,3}(?:,\d{3})+|\d{1,9})\.(\d{2})$/.exec(text);
  if (!m) return null;
  const baht = m[1].replace(/,/g, '');
  if (baht.length > 1 && baht.startsWith('0')) return null;
  return Number(baht) * 100 + Number(m[2]);
}

interface LineRead {
  satang: number;
  text: string;
  confidence: number;
  core: number;
  y0: number;
  y1: number;
}

/** Two numbers whose glyph cores are within this ratio are the same size: neither is "the" amount. */
const SAME_SIZE = 0.9;

const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];

/**
 * The one well-formed amount a line reads as, or null (none, or two different ones).
 * "฿" is not in the English model: eraseBahtSign paints it out before OCR; a leading digit still
 * clearly taller than the other digits of its number is a sign merged with a digit, and such a line
 * reads as nothing: "฿35.00" must never read as 835.00 nor as 5.00.
 */
export function amountOfLine(words: OcrWord[]): { satang: number; text: string; confidence: number; x0: number; x1: number } | null {
  const chars: { ch: string; conf: number; h: number; x0: number; x1: number }[] = [];
  for (const w of words) {
    if (chars.length) chars.push({ ch: ' ', conf: 100, h: 0, x0: NaN, x1: NaN });
    for (const s of w.symbols)
      for (const ch of s.text)
        chars.push({ ch: /[0-9.,]/.test(ch) ? ch : ' ', conf: s.confidence, h: s.height, x0: s.x0 ?? NaN, x1: s.x1 ?? NaN });
  }
  for (let i = 0; i < chars.length; i++) {
    if (!/\d/.test(chars[i].ch) || (i > 0 && /[0-9.,]/.test(chars[i - 1].ch))) continue;
    let j = i;
    while (j + 1 < chars.length && /[0-9.,]/.test(chars[j + 1].ch)) j++;
    const rest = chars.slice(i + 1, j + 1).filter((c) => /\d/.test(c.ch));
    // A "฿" the eraser did not catch (merged with the first digit): the number cannot be trusted.
    if (rest.length >= 2 && chars[i].h > median(rest.map((c) => c.h)) * 1.12) return null;
  }
  const line = chars.map((c) => c.ch).join('');
  const found = [...line.matchAll(/[0-9.,]+/g)].filter((m) => /\.\d{2}$/.test(m[0]) && /^\d/.test(m[0]));
  if (found.length !== 1) return null;
  const text = found[0][0];
  const satang = amountTextToSatang(text);
  if (satang === null) return null;
  const at = found[0].index;
  const own = chars.slice(at, at + text.length);
  const confidence = Math.min(...own.map((c) => c.conf)) / 100;
  return { satang, text, confidence, x0: Math.min(...own.map((c) => c.x0)), x1: Math.max(...own.map((c) => c.x1)) };
}

/**
 * Paints out a leading "฿" in place: the English model has no such glyph and reads it as a digit
 * ("8", "3") or merges it with the first digit. The sign is the one glyph whose vertical stroke
 * reaches clearly above and below the digits; only a first glyph that does both is removed.
 */
export function eraseBahtSign(px: Buffer, width: number, height: number, read?: { x0: number; x1: number }): boolean {
  let lo = 255;
  let hi = 0;
  for (const v of px) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (hi - lo < 40) return false;
  // Specks (noise, the edge of a neighbouring glyph in the crop's margin) are not the first glyph.
  const all = glyphRuns(px, width, height);
  const tallest = Math.max(0, ...all.map((r) => r.bottom - r.top + 1));
  const runs = all.filter((r) => r.bottom - r.top + 1 >= tallest * 0.5);
  if (runs.length < 3) return false;
  const rest = runs.slice(1).filter((r) => r.bottom - r.top > (runs[0].bottom - runs[0].top) * 0.5);
  if (rest.length < 2) return false;
  const mTop = median(rest.map((r) => r.top));
  const mBottom = median(rest.map((r) => r.bottom));
  const h = mBottom - mTop + 1;
  const first = runs[0];
  // No wider than a digit: a sign merged with the digit after it is left alone (erasing both would
  // leave ",382,104.00", one stray comma away from a wrong amount); the line then reads as nothing.
  const digitW = median(rest.map((r) => r.x1 - r.x0 + 1));
  const above = mTop - first.top;
  const below = first.bottom - mBottom;
  // On a small or turned slip the stroke reaches only a pixel or two past the digits. Then the OCR
  // must have seen the sign too: a leading "B" (or a too-tall first digit) right at this glyph.
  // At least 2 px each way on the shape alone: a round digit's overshoot ("9", "3", "0" beside flat
  // "1"s, or a photo's blur) reaches 1 px past the others, and a "9" painted out as a sign turned a
  // genuine 93.33 into a confident 3.33 (a false FRAUD, issue 20).
  const reach = Math.max(2, h * 0.06);
  const sign =
    (above >= reach && below >= reach) ||
    (read !== undefined &&
      (read.x0 + read.x1) / 2 >= first.x0 &&
      (read.x0 + read.x1) / 2 <= first.x1 &&
      above >= 0 &&
      below >= 0 &&
      above + below >= Math.max(3, h * 0.1));
  // A sign set apart from the number by a word space ("฿ 1,000.00", as dark-mode apps print it) may be
  // wider than a digit (Kinnari's is 1.35-1.45 digits wide): nothing is merged into it then, so the
  // width limit is relaxed. Left in, it read as "B" and cost the first digit's confidence (0.58-0.76:
  // genuine `dark` slips read 6%, issue 20). The space is at least a quarter of the digit height and
  // twice the median gap between the glyphs after it (points and commas included).
  const after = all.filter((r) => r.x0 > first.x1);
  const gaps = after.slice(1).map((r, i) => r.x0 - after[i].x1);
  const space = after.length ? after[0].x0 - first.x1 : 0;
  const spaced = gaps.length >= 2 && space >= h * 0.25 && space >= 2 * median(gaps);
  if (sign && first.x1 - first.x0 + 1 <= digitW * (spaced ? 1.8 : 1.3)) {
    for (let y = 0; y < height; y++) px.fill(hi, y * width + first.x0, y * width + first.x1 + 1);
    return true;
  }
  return false;
}

/** One glyph of a dark-on-light crop: a run of columns holding ink, with its ink's top and bottom. */
export interface GlyphRun {
  x0: number;
  x1: number;
  top: number;
  bottom: number;
}

/**
 * Glyphs in a dark-on-light crop: runs of columns holding ink (specks of under 3 pixels ignored).
 * Digits of a printed amount stand apart, so a read with another number of characters over the
 * number's own glyphs lost or invented one: "110.92" read as "10.92" (two narrow 1s taken as one)
 * must never count.
 */
export function glyphRuns(px: Buffer, width: number, height: number): GlyphRun[] {
  let lo = 255;
  let hi = 0;
  for (const v of px) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const cut = (lo + hi) / 2;
  const out: GlyphRun[] = [];
  let run: GlyphRun | null = null;
  let inRun = 0;
  for (let x = 0; x <= width; x++) {
    let n = 0;
    let top = -1;
    let bottom = -1;
    if (x < width)
      for (let y = 0; y < height; y++)
        if (px[y * width + x] < cut) {
          n++;
          if (top < 0) top = y;
          bottom = y;
        }
    if (n > 0) {
      inRun += n;
      if (!run) run = { x0: x, x1: x, top, bottom };
      else {
        run.x1 = x;
        run.top = Math.min(run.top, top);
        run.bottom = Math.max(run.bottom, bottom);
      }
    } else {
      if (run && inRun >= 3) out.push(run);
      run = null;
      inRun = 0;
    }
  }
  return joinHairlines(px, width, out, lo, hi);
}

/**
 * A serif "0" whose hairline top and bottom fall lighter than the mid cut (bold Norasi on a turned or
 * photographed slip) splits into two runs, its two thick sides, and the read then counts one glyph too
 * many (`bbl` read 75%: 'miscount'). Two adjacent runs are one glyph when every column between them
 * holds faint ink (within 3/4 of the way from ink to paper) near their common top and near their common
 * bottom, and none in the middle (the counter), and together they are no wider than they are tall.
 * Two separate digits never join that way: neighbours that touch do so at their widest, the middle.
 */
function joinHairlines(px: Buffer, width: number, runs: GlyphRun[], lo: number, hi: number): GlyphRun[] {
  const faint = lo + 0.75 * (hi - lo);
  const out: GlyphRun[] = [];
  for (const r of runs) {
    const prev = out[out.length - 1];
    if (prev && joined(prev, r)) {
      prev.x1 = r.x1;
      prev.top = Math.min(prev.top, r.top);
      prev.bottom = Math.max(prev.bottom, r.bottom);
    } else out.push({ ...r });
  }
  return out;
  function joined(a: GlyphRun, b: GlyphRun): boolean {
    const top = Math.min(a.top, b.top);
    const bottom = Math.max(a.bottom, b.bottom);
    const h = bottom - top + 1;
    const ha = a.bottom - a.top + 1;
    const hb = b.bottom - b.top + 1;
    if (h < 8 || ha < h * 0.8 || hb < h * 0.8 || b.x1 - a.x0 + 1 > h || b.x0 - a.x1 - 1 > Math.max(2, h * 0.2)) return false;
    const band = Math.max(1, Math.round(h * 0.2));
    for (let x = a.x1 + 1; x < b.x0; x++) {
      let up = false;
      let down = false;
      let mid = false;
      for (let y = top; y <= bottom; y++) {
        if (px[y * width + x] >= faint) continue;
        if (y < top + band) up = true;
        else if (y > bottom - band) down = true;
        else if (y >= top + h * 0.35 && y <= bottom - h * 0.35) mid = true;
      }
      if (!up || !down || mid) return false;
    }
    return true;
  }
}

export function glyphCount(px: Buffer, width: number, height: number): number {
  return glyphRuns(px, width, height).length;
}

/**
 * Whether the glyphs under the amount's symbols are exactly its characters, and no digit-tall glyph
 * the engine skipped stands just left of it (a dropped leading "1": "110.92" read as "10.92").
 * Runs and the amount's x-range are in the same pixels (the crop at working resolution).
 */
export function glyphsAgree(runs: GlyphRun[], x0: number, x1: number, chars: number): boolean {
  if (!Number.isFinite(x0) || !Number.isFinite(x1)) return false;
  const inside = runs.filter((r) => (r.x0 + r.x1) / 2 >= x0 && (r.x0 + r.x1) / 2 <= x1);
  if (!inside.length) return false;
  const digitH = Math.max(...inside.map((r) => r.bottom - r.top + 1));
  // Two digits that touch (a tightly kerned face under blur or a photo: Sawasdee's "44" and "54" on
  // truemoney renders, read right and refused as 'miscount') make one run 1.5 digit heights wide; no
  // single digit of any face seen is wider than 0.8. Such a run counts as as many digits as the
  // others' width fits in it. Measured against the height, not other digits' widths: beside narrow
  // 1s a "7" is 1.6 times as wide and was counted twice ("1.71", classic renders).
  const single = inside.filter((r) => r.x1 - r.x0 + 1 <= digitH * 1.15 && r.bottom - r.top + 1 >= digitH * 0.6).map((r) => r.x1 - r.x0 + 1);
  const digitW = Math.max(digitH * 0.5, single.length ? Math.max(...single) : 0);
  const count = inside.reduce((n, r) => {
    const w = r.x1 - r.x0 + 1;
    return n + (w > digitH * 1.15 && r.bottom - r.top + 1 >= digitH * 0.6 ? Math.max(2, Math.round(w / digitW)) : 1);
  }, 0);
  if (count !== chars) return false;
  return !runs.some((r) => r.x1 < x0 && x0 - r.x1 <= digitH * 0.6 && r.bottom - r.top + 1 >= digitH * 0.6);
}

/** The segment's pixels at working resolution (padded), dark on light. */
function cropPixels(work: Gray, s: Segment, scale: number): { px: Buffer; w: number; h: number; left: number; bandH: number } {
  const bandH = (s.y1 - s.y0 + 1) * scale;
  const pad = Math.round(bandH * 0.3);
  const left = Math.max(0, Math.round(s.x0 * scale) - pad);
  const top = Math.max(0, Math.round(s.y0 * scale) - pad);
  const right = Math.min(work.width, Math.round((s.x1 + 1) * scale) + pad);
  const bottom = Math.min(work.height, Math.round((s.y1 + 1) * scale) + pad);
  const w = right - left;
  const h = bottom - top;
  const px = Buffer.alloc(w * h);
  for (let y = 0; y < h; y++) {
    const from = (top + y) * work.width + left;
    work.data.copy(px, y * w, from, from + w);
  }
  // Light text on a dark header or page: tesseract wants dark on light. The background is most of the
  // crop, so its median sits on the page's side of the range: a fixed level missed a dim dark-mode
  // screenshot (grey 135..215) and left light digits on a dark page.
  const hist = new Uint32Array(256);
  for (const v of px) hist[v]++;
  const at = (q: number) => {
    let acc = 0;
    for (let v = 0; v < 256; v++) if ((acc += hist[v]) > q * px.length) return v;
    return 255;
  };
  if (at(0.5) < (at(0.02) + at(0.98)) / 2) for (let i = 0; i < px.length; i++) px[i] = 255 - px[i];
  return { px, w, h, left, bandH };
}

async function toPng(px: Buffer, w: number, h: number, k: number): Promise<Buffer> {
  return sharp(px, { raw: { width: w, height: h, channels: 1 } })
    .resize({ width: Math.max(1, Math.round(w * k)), height: Math.max(1, Math.round(h * k)), kernel: 'lanczos3' })
    .normalise()
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/**
 * Paints out what follows the number after a word space: "บาท", "THB". An amount ends with its two
 * decimals, so nothing after a space belongs to it; set close to the number in some faces "บาท" read
 * as more digits ("1,000.00711") or glued to it, and the line gave no amount. The space is the widest
 * gap of the group, at least 0.3 digit heights and twice the median gap before it; cutting inside a
 * number instead leaves no two-decimal tail, which reads as nothing. Returns the runs left.
 */
export function eraseTrailingWord(px: Buffer, width: number, height: number, runs: GlyphRun[]): GlyphRun[] {
  if (runs.length < 5) return runs;
  let best = -1;
  let bestGap = 0;
  for (let i = 1; i < runs.length; i++) {
    const gap = runs[i].x0 - runs[i - 1].x1;
    if (gap > bestGap) {
      bestGap = gap;
      best = i;
    }
  }
  if (best < 4) return runs;
  const left = runs.slice(0, best);
  const digitH = Math.max(...left.map((r) => r.bottom - r.top + 1));
  const gaps = left.slice(1).map((r, i) => r.x0 - left[i].x1);
  // 1.5 x, not 2 x: a loosely set face (Waree, DejaVu Sans typed over a K PLUS slip) keeps 0.3 digit
  // heights between its digits and 0.55 before "บาท"; the tail test below is what keeps a cut out of a number.
  if (bestGap < digitH * 0.3 || bestGap < 1.5 * median(gaps)) return runs;
  // The part kept must end as an amount does: a point, two digits. A point is a small dot sitting on
  // the baseline; a comma (thousands, "225,61|8.01" cut at a wide-set 1) reaches below it.
  const [p, d1, d2] = left.slice(-3);
  const tall = (r: GlyphRun) => r.bottom - r.top + 1 >= digitH * 0.6;
  // A JPEG's blur stretches a 3 px point to 3x5 (a chat app's 800 px copy, enlarged): up to twice as tall as wide.
  const dot = !tall(p) && Math.abs(p.bottom - d1.bottom) <= Math.max(1, digitH * 0.1) && p.bottom - p.top + 1 <= (p.x1 - p.x0 + 1) * 2;
  if (!dot || !tall(d1) || !tall(d2)) return runs;
  let hi = 0;
  for (const v of px) if (v > hi) hi = v;
  const from = left[left.length - 1].x1 + Math.ceil(bestGap / 2);
  for (let y = 0; y < height; y++) px.fill(hi, y * width + from, (y + 1) * width);
  return left;
}

async function cropForOcr(
  work: Gray,
  s: Segment,
  scale: number,
  digitPx: number,
  sign?: { x0: number; x1: number },
): Promise<{ png: Buffer; runs: GlyphRun[]; k: number; erased: boolean }> {
  const { px, w, h, bandH } = cropPixels(work, s, scale);
  // "บาท"/"THB" first: the sign test measures the first glyph against the digits after it, and Thai
  // letters (x-height, no digit's top) among them made a round leading "9" of a genuine "93.33 บาท"
  // look 3 px taller than "the digits": it was painted out as a "฿" and 3.33 read (issue 20). Again
  // after the sign: a "฿ " set apart by a space was the widest gap and hid the word's.
  eraseTrailingWord(px, w, h, glyphRuns(px, w, h));
  // At working resolution, where the sign's stroke still stands out by several pixels.
  const erased = eraseBahtSign(px, w, h, sign);
  const runs = eraseTrailingWord(px, w, h, glyphRuns(px, w, h));
  // A number's band is its digit height (no marks above or below, unlike Thai words).
  const k = Math.min(3, Math.max(0.25, digitPx / bandH));
  return { png: await toPng(px, w, h, k), runs, k, erased };
}

/**
 * Where the OCR saw a currency sign right before the number (crop pixels at working resolution): a
 * "B" symbol (the English model's nearest glyph to "฿"), or a first digit clearly taller than the
 * digits after it (the sign read as "8" or "3"), directly followed by a digit.
 */
export function signSeen(words: OcrWord[], k: number): { x0: number; x1: number } | undefined {
  const syms = words.flatMap((w) => w.symbols).filter((x) => x.text.trim() !== '');
  if (syms.length < 3 || syms[0].x0 === undefined || syms[0].x1 === undefined || !/\d/.test(syms[1].text)) return undefined;
  const digits = syms.slice(1).filter((x) => /\d/.test(x.text));
  const tallFirst = /\d/.test(syms[0].text) && digits.length >= 2 && syms[0].height > median(digits.map((x) => x.height)) * 1.12;
  if (syms[0].text !== 'B' && !tallFirst) return undefined;
  return { x0: syms[0].x0 / k, x1: syms[0].x1 / k };
}

/**
 * Whether a word group ends as a printed amount does, from its glyphs alone (no OCR): a digit, a
 * small dot on the baseline, two digits, then the group's end or a word space. Labels are Thai and
 * the engine reads English only, so this, the decimal pattern every slip prints its amounts in, is
 * what ranks a group as a candidate first: on a real K PLUS slip the amount is no bigger than the
 * transaction number, the account lines or the names around it, and ranking by size alone never
 * reached it. A group that does not look so is still read when it is bigger (the shape test can
 * miss a blurred dot), so the biggest number on the slip is still seen.
 */
function amountShaped(page: Page, s: Segment): boolean {
  const { px, w, h, left } = cropPixels(page.work, s, page.scale);
  const sx0 = s.x0 * page.scale - left;
  const sx1 = (s.x1 + 1) * page.scale - left;
  const own = glyphRuns(px, w, h).filter((r) => r.x1 >= sx0 && r.x0 <= sx1);
  const height = (r: GlyphRun) => r.bottom - r.top + 1;
  for (let i = 1; i + 2 < own.length; i++) {
    const [prev, p, d1, d2] = own.slice(i - 1, i + 3);
    const digitH = Math.max(height(prev), height(d1), height(d2));
    if (digitH < 6 || [prev, d1, d2].some((r) => height(r) < digitH * 0.75)) continue;
    if (Math.abs(d1.bottom - prev.bottom) > Math.max(1, digitH * 0.12) || Math.abs(d2.bottom - d1.bottom) > Math.max(1, digitH * 0.12))
      continue;
    const dot =
      height(p) <= digitH * 0.35 && p.x1 - p.x0 + 1 <= digitH * 0.5 && Math.abs(p.bottom - d1.bottom) <= Math.max(1, digitH * 0.12);
    if (!dot) continue;
    // Set tight on both sides (0.14-0.25 digit heights measured on real slips): a date's "ม.ค. 65"
    // has a word space (0.6) after its dot.
    if (p.x0 - prev.x1 > Math.max(2, digitH * 0.35) || d1.x0 - p.x1 > Math.max(2, digitH * 0.35)) continue;
    const next = own[i + 3];
    if (!next || next.x0 - d2.x1 >= digitH * 0.25) return true;
  }
  return false;
}

interface Page {
  work: Gray;
  scale: number;
  /** Word groups of the text lines, in half-resolution pixels (x1 < 0: merged into another). */
  all: Segment[];
}

/** The slip turned upright, at working resolution, and its word groups. */
async function pageOf(image: Buffer, qrAngle: number | undefined): Promise<Page> {
  let work = await toGray(image, WORK_SIDE);
  let small = await half(work);
  // The QR's own angle is exact and sees upside-down slips; the ink histogram is the fallback.
  const angle = qrAngle ?? skewAngle(inkMap(small), small.width, small.height);
  if (Math.abs(angle) >= 0.5) {
    work = await grayOp(work, (p) => p.rotate(-angle, { background: '#ffffff' }));
    small = await half(work);
  }
  const scale = work.width / small.width;
  const all = segments(inkMap(small), small.width, small.height);
  // A single glyph just left of a group belongs to it ("1" + "10.92" in a face with wide side
  // bearings on its 1s; "฿ " before the number, painted out later): the crop takes it in.
  for (const s of all) {
    if (s.narrow) continue;
    const h = s.y1 - s.y0 + 1;
    for (let moved = true; moved;) {
      moved = false;
      for (const o of all)
        if (o.narrow && o.y0 <= s.y1 && o.y1 >= s.y0 && o.x1 < s.x0 && s.x0 - o.x1 <= h * 0.7) {
          s.x0 = o.x0;
          o.narrow = undefined;
          o.x1 = -1e9;
          moved = true;
        }
    }
  }
  return { work, scale, all };
}

/**
 * The word groups the reader locates, in working-resolution pixels of the upright slip (tests, the
 * profiling bench): what the reader can see at all, before any OCR.
 */
export async function locateWords(
  image: Buffer,
  angle?: number,
): Promise<{ width: number; height: number; words: (Segment & { amountLike: boolean })[] }> {
  const page = await pageOf(image, angle);
  const words = page.all
    .filter((s) => s.x1 > 0)
    .map((s) => ({
      ...s,
      x0: Math.round(s.x0 * page.scale),
      x1: Math.round(s.x1 * page.scale),
      y0: Math.round(s.y0 * page.scale),
      y1: Math.round(s.y1 * page.scale),
      amountLike: amountShaped(page, s),
    }));
  return { width: page.work.width, height: page.work.height, words };
}

type AmountRead = Omit<PrintedRead, 'ms'>;

async function readAmount(page: Page, engine: OcrEngine, maxLines: number, spent: () => boolean): Promise<AmountRead> {
  const { work, scale, all } = page;
  const none = (reason: string, lines = 0): AmountRead => ({ amountSatang: null, confidence: 0, text: null, reason, lines });
  // Groups shaped as an amount first (biggest first), then the others by size.
  const segs = all
    .filter((s) => !s.narrow && s.x1 > 0 && s.core >= 5)
    .map((s) => ({ s, shaped: amountShaped(page, s) }))
    .sort((a, b) => Number(b.shaped) - Number(a.shaped) || b.s.core - a.s.core)
    .map((c) => c.s);
  if (!segs.length) return none('no-lines');
  const reads: LineRead[] = [];
  let lines = 0;
  // Groups given to the engine: at most maxLines, spent only on groups that could still be the amount.
  let tried = 0;
  for (const s of segs) {
    if (spent()) return none('budget', lines);
    // Clearly shorter lines than the tallest amount found cannot rival it, and the rest of its own
    // line ("บาท", "THB") is not another amount. Skipped without a read, so a bigger group after
    // them (a number whose point the shape test missed) still gets its read.
    if (reads.length && s.core < Math.max(...reads.map((r) => r.core)) * SAME_SIZE) continue;
    if (reads.some((r) => s.y0 <= r.y1 && s.y1 >= r.y0)) continue;
    if (tried++ >= maxLines) break;
    lines++;
    let crop = await cropForOcr(work, s, scale, OCR_CORE_PX);
    let words = await engine.readLine(crop.png);
    // A currency sign the shape test alone did not catch, but the OCR did: paint it out, read again.
    const sign = crop.erased ? undefined : signSeen(words, crop.k);
    if (sign) {
      const again = await cropForOcr(work, s, scale, OCR_CORE_PX, sign);
      if (again.erased) {
        lines++;
        crop = again;
        words = await engine.readLine(crop.png);
      }
    }
    const got = amountOfLine(words);
    if (!got || got.satang <= 0) continue;
    // As many characters read as glyphs under the number, or the read dropped or invented one.
    if (!glyphsAgree(crop.runs, got.x0 / crop.k, got.x1 / crop.k, got.text.length)) return none('miscount', lines);
    // Confirm at another size: a misread rarely survives a second, differently scaled read.
    lines++;
    const again = amountOfLine(await engine.readLine((await cropForOcr(work, s, scale, CONFIRM_CORE_PX, sign)).png));
    if (!again || again.satang !== got.satang) return none('unconfirmed', lines);
    // A wide group just left of the number on its line means the number may be a fragment of a
    // longer one ("17,41" | "4.00" when a low-contrast comma gap split it): never conclude on it.
    const h = s.y1 - s.y0 + 1;
    if (all.some((o) => o !== s && o.x1 > 0 && o.y0 <= s.y1 && o.y1 >= s.y0 && o.x1 < s.x0 && s.x0 - o.x1 <= h * 1.5))
      return none('fragment', lines);
    reads.push({ ...got, confidence: Math.min(got.confidence, again.confidence), core: s.core, y0: s.y0, y1: s.y1 });
  }
  if (!reads.length) return none('no-amount', lines);
  reads.sort((a, b) => b.core - a.core);
  const top = reads[0];
  // Two different amounts of about the same size: we cannot tell which one the slip means.
  if (reads.some((r) => r !== top && r.satang !== top.satang && r.core >= top.core * SAME_SIZE)) return none('ambiguous', lines);
  return { amountSatang: top.satang, confidence: top.confidence, text: top.text, reason: null, lines };
}

/** A colon: a narrow glyph whose ink is two small blobs, one above the other, with a gap between. */
function isColon(px: Buffer, w: number, r: GlyphRun, digitH: number, cut: number): boolean {
  if (r.x1 - r.x0 + 1 > digitH * 0.35) return false;
  const blobs: [number, number][] = [];
  for (let y = r.top; y <= r.bottom; y++) {
    let ink = false;
    for (let x = r.x0; x <= r.x1 && !ink; x++) ink = px[y * w + x] < cut;
    if (!ink) continue;
    const last = blobs[blobs.length - 1];
    if (last && last[1] === y - 1) last[1] = y;
    else blobs.push([y, y]);
  }
  return (
    blobs.length === 2 &&
    blobs.every(([a, b]) => b - a + 1 <= digitH * 0.35) &&
    blobs[1][0] - blobs[0][1] >= digitH * 0.15 &&
    blobs[1][1] - blobs[0][0] + 1 >= digitH * 0.45
  );
}

const midCut = (px: Buffer) => {
  let lo = 255;
  let hi = 0;
  for (const v of px) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return (lo + hi) / 2;
};

const textOf = (words: OcrWord[]) => words.map((w) => w.symbols.map((s) => s.text).join('')).join(' ');
const minConf = (words: OcrWord[]) => Math.min(100, ...words.flatMap((w) => w.symbols.map((s) => s.confidence))) / 100;

/**
 * The printed transfer time (`slipcheck read`), located without any layout's positions: the first
 * colon down the slip (a narrow glyph of two dots, one above the other) and the glyphs around it
 * ("14:30"), read with digits and ":" only; null unless read with confidence >= 0.8 as HH:MM.
 * The receiver's masked account ("xxx-x-x6660-x") is not read: at its 30-36 px its x's and dashes
 * touch, so glyph runs do not find it (docs/benchmarks.md).
 */
async function readFields(page: Page, engine: OcrEngine, spent: () => boolean): Promise<{ time: string | null }> {
  const { work, scale, all } = page;
  let time: string | null = null;
  const groups = all.filter((s) => s.x1 > 0 && !s.narrow).sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  for (const s of groups) {
    if (spent()) break;
    const { px, w, h } = cropPixels(work, s, scale);
    const runs = glyphRuns(px, w, h);
    if (runs.length < 4) continue;
    const heights = runs.map((r) => r.bottom - r.top + 1);
    // Digits are the tallest common glyphs of these groups (x's, dashes and the colon are shorter).
    const digitH = [...heights].sort((a, b) => a - b)[Math.floor(heights.length * 0.8)];
    const cut = midCut(px);
    const c = runs.findIndex((r, i) => i > 0 && i < runs.length - 2 && isColon(px, w, r, digitH, cut));
    if (c > 0) {
      const from = runs[Math.max(0, c - 2)];
      const to = runs[c + 2];
      const pad = Math.round(digitH * 0.3);
      const x0 = Math.max(0, from.x0 - pad);
      const x1 = Math.min(w - 1, to.x1 + pad);
      const sub = Buffer.alloc((x1 - x0 + 1) * h);
      for (let y = 0; y < h; y++) px.copy(sub, y * (x1 - x0 + 1), y * w + x0, y * w + x1 + 1);
      const k = Math.min(3, Math.max(0.25, TIME_CORE_PX / digitH));
      const words = await engine.readLine(await toPng(sub, x1 - x0 + 1, h, k), TIME_WHITELIST);
      // Two hour digits, as every slip seen prints them ("05:10"): a narrow "1" the engine dropped read
      // 10:21 as "0:21", taken for 00:21 (12 wrong times in 200 in issue 20's bench run at 10:2x).
      const m = /(?:^|\D)([01]\d|2[0-3]):([0-5]\d)$/.exec(textOf(words).replace(/\s/g, ''));
      if (m && minConf(words) >= 0.8) {
        // The first time down the slip is the transfer's (the only one on every layout seen).
        time = `${m[1].padStart(2, '0')}:${m[2]}`;
        break;
      }
    }
  }
  return { time };
}

export async function readPrintedAmount(image: Buffer, options: ReadOptions = {}): Promise<PrintedRead> {
  const started = performance.now();
  const ran = startRunClock();
  const budget = options.budgetMs ?? Infinity;
  const engine = options.engine ?? ocrEngine();
  const spent = () => ran() > budget;
  const done = (r: AmountRead): PrintedRead => ({ ...r, ms: Math.round(performance.now() - started) });
  try {
    const page = await pageOf(image, options.angle);
    const amount = await readAmount(page, engine, options.maxLines ?? 5, spent);
    if (!options.fields) return done(amount);
    return done({ ...amount, ...(await readFields(page, engine, spent)) });
  } catch {
    return done({ amountSatang: null, confidence: 0, text: null, reason: 'error', lines: 0 });
  }
}

/**
 * The printed transfer time alone ("HH:MM" or null), for `slipcheck read`: read in the operator's own
 * process after the service's decode and amount read, outside the decoder's per-image budget (the
 * extra lines would spend it and lose the amount too). `angle`: the QR's, as for the amount.
 */
export async function readPrintedTime(image: Buffer, angle?: number, engine: OcrEngine = ocrEngine()): Promise<string | null> {
  try {
    return (await readFields(await pageOf(image, angle), engine, () => false)).time;
  } catch {
    return null;
  }
}
