import sharp, { type Metadata, type Sharp } from 'sharp';
import { MAX_SLIP_ASPECT, MAX_SLIP_PIXELS, screenImage } from './image-gate.js';
import { parseSlipPayload, type SlipPayloadOk } from './slip-qr-parser.js';
import { scanLuma, type LumaImage, type ScanHit, type ScanOptions } from './slip-qr-zxing.js';

export type DecodeErrorCode = 'NO_QR_FOUND' | 'NOT_SLIP_QR' | 'BAD_CHECKSUM' | 'UNKNOWN_BANK' | 'UNREADABLE_IMAGE';

export type DecodeResult =
  | (Omit<SlipPayloadOk, 'ok'> & {
      ok: true;
      /** cascade pass that found the slip QR */
      pass: string;
      /** How the slip lies, from its QR (degrees, 0 upright); absent when a turned copy was scanned. */
      qrAngle?: number;
    })
  | {
      ok: false;
      errorCode: DecodeErrorCode;
      message: string;
      /** The decode was stopped (killed past its time limit, or its decoder died): not a verdict on the image to keep. */
      stopped?: true;
    };

type DecodeFailure = Extract<DecodeResult, { ok: false }>;

// Fast pass size: a slip's QR is ~15-25% of the slip width, so at 800 px on the long side it still
// has 2+ px per module, and the scan costs a few ms instead of 20+ at full resolution.
const FAST_MAX_SIDE = 800;
// libvips can decode a JPEG straight at 1/2, 1/4 or 1/8 size (DCT scaling), which skips most of
// the decode, but sharp only asks for 1/2 when the requested shrink is >= 3 (it backs off from
// exactly 2 because of libjpeg rounding). A 1080x1900 JPEG shrunk to 800 (2.4x) therefore gets a
// full-size decode plus a 3-band reduce: ~4 ms of the ~12 a clean slip costs. For JPEGs whose
// shrink to 800 would land in [2, 3), the fast pass uses long side / 3 instead (>= FAST_MIN_SIDE,
// still ~3 px per module on a slip's QR); anything it misses is caught at full size by fullplain.
const FAST_MIN_SIDE = 600;
// 12 MP photos are scanned at full size only up to this (bounds memory and time per pass).
const FULL_MAX_SIDE = 3000;
// Decompression-bomb guard for libvips itself (never reached: the slip-shape limits below are stricter).
const MAX_INPUT_PIXELS = 50_000_000;
// Images no phone produces as a slip are refused from the header alone, before any pixel is decoded
// (see "Image limits" in README.md); the limits live in the byte-level gate (image-gate.ts).
export { MAX_SLIP_PIXELS, MAX_SLIP_ASPECT };
// Decode-time budget per image (wall time in the worker): no further cascade pass starts once it is
// spent. Real slips finish in the fast or fullplain pass (<= ~60 ms, docs/benchmarks.md); every pass
// after those exists for damaged photos and never takes a real slip near this bound.
export const DEFAULT_DECODE_BUDGET_MS = 600;

// Higher rank wins when no pass finds a valid slip: a slip-shaped QR with a wrong CRC tells the user
// more than "no QR at all".
const FAILURE_RANK: Record<DecodeErrorCode, number> = {
  UNREADABLE_IMAGE: 0,
  NO_QR_FOUND: 1,
  NOT_SLIP_QR: 2,
  UNKNOWN_BANK: 3,
  BAD_CHECKSUM: 4,
};

sharp.cache(false);
// The pool already runs one decode per core; libvips threads on top of that only oversubscribe the
// CPU and add a thread stack and buffers each.
sharp.concurrency(1);

/** Lazily built greyscale renditions of one input image, shared by the passes. */
class Renditions {
  private small?: Promise<LumaImage>;
  private full?: Promise<LumaImage>;
  constructor(
    private readonly image: Buffer,
    private readonly meta: { width: number; height: number; channels: number; hasAlpha: boolean },
    readonly fastMaxSide: number,
  ) {}

  get longSide(): number {
    return Math.max(this.meta.width, this.meta.height);
  }

  base(maxSide: number): Sharp {
    let p = sharp(this.image, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'none' });
    if (this.meta.hasAlpha) p = p.flatten({ background: '#ffffff' });
    if (this.longSide > maxSide) p = p.resize({ width: maxSide, height: maxSide, fit: 'inside', kernel: 'linear' });
    // One colour channel instead of greyscale(): libvips' colourspace conversion costs ~10 ms on a
    // slip, and green carries most of the luminance of dark-on-light codes anyway.
    const channels = this.meta.hasAlpha ? 3 : this.meta.channels;
    return p.extractChannel(channels >= 3 ? 1 : 0);
  }

  smallLuma(): Promise<LumaImage> {
    this.small ??= toLuma(this.base(this.fastMaxSide));
    return this.small;
  }

  fullLuma(): Promise<LumaImage> {
    if (this.longSide <= this.fastMaxSide) return this.smallLuma();
    this.full ??= toLuma(this.base(FULL_MAX_SIDE));
    return this.full;
  }
}

async function toLuma(p: Sharp): Promise<LumaImage> {
  const { data, info } = await p.raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

async function transform(img: LumaImage, f: (p: Sharp) => Sharp): Promise<LumaImage> {
  const p = sharp(img.data, { raw: { width: img.width, height: img.height, channels: 1 } });
  return toLuma(f(p).extractChannel(0));
}

/** Crops a located-but-unread symbol with a quiet-zone margin and upscales it. */
async function regionCrop(img: LumaImage, box: ScanHit['box'], scale: number): Promise<LumaImage | null> {
  const w = box.right - box.left;
  const h = box.bottom - box.top;
  if (w < 8 || h < 8) return null;
  const m = Math.max(w, h) * 0.25;
  const left = Math.max(0, Math.floor(box.left - m));
  const top = Math.max(0, Math.floor(box.top - m));
  const right = Math.min(img.width, Math.ceil(box.right + m));
  const bottom = Math.min(img.height, Math.ceil(box.bottom + m));
  if (right - left < 8 || bottom - top < 8) return null;
  const target = Math.min(1200, Math.round((right - left) * scale));
  return transform(img, (p) =>
    p
      .extract({ left, top, width: right - left, height: bottom - top })
      .resize({ width: target, kernel: 'lanczos3' })
      .normalise(),
  );
}

interface Pass {
  name: string;
  run: (r: Renditions, located: LocatedBoxes) => Promise<ScanHit[]>;
}

/** Symbols the detector found but could not decode, remembered per rendition for the region pass. */
interface LocatedBoxes {
  small: ScanHit['box'][];
  full: ScanHit['box'][];
}

const HARD: ScanOptions = { tryHarder: true, tryRotate: true, tryInvert: true, tryDownscale: true };

async function scanAndLocate(img: LumaImage, o: ScanOptions, sink: ScanHit['box'][]): Promise<ScanHit[]> {
  const hits = await scanLuma(img, { ...o, returnErrors: true });
  for (const h of hits) if (!h.valid) sink.push(h.box);
  return hits.filter((h) => h.valid);
}

/** Cascade order, cheapest first; later passes run only while no valid slip payload has turned up. */
const PASSES: Pass[] = [
  { name: 'fast', run: async (r, l) => scanAndLocate(await r.smallLuma(), {}, l.small) },
  // Small QR codes (a slip's mini-QR at 110 px) fall apart when downscaled: full resolution with
  // tryHarder alone is cheaper than the all-options passes and finds most of them.
  {
    name: 'fullplain',
    run: async (r, l) => (r.longSide > r.fastMaxSide ? scanAndLocate(await r.fullLuma(), { tryHarder: true }, l.full) : []),
  },
  { name: 'harder', run: async (r, l) => scanAndLocate(await r.smallLuma(), HARD, l.small) },
  { name: 'full', run: async (r, l) => (r.longSide > r.fastMaxSide ? scanAndLocate(await r.fullLuma(), HARD, l.full) : []) },
  {
    name: 'histogram',
    run: async (r, l) => scanAndLocate(await r.fullLuma(), { ...HARD, binarizer: 'GlobalHistogram' }, l.full),
  },
  {
    name: 'region',
    run: async (r, l) => {
      const out: ScanHit[] = [];
      const jobs: [LumaImage, ScanHit['box'][]][] = [
        [await r.fullLuma(), l.full],
        [await r.smallLuma(), l.small],
      ];
      for (const [img, boxes] of jobs) {
        for (const box of boxes.slice(0, 3)) {
          const crop = await regionCrop(img, box, 2);
          if (!crop) continue;
          out.push(...(await scanLuma(crop, HARD)));
          out.push(...(await scanLuma(crop, { ...HARD, binarizer: 'GlobalHistogram' })));
        }
      }
      return out;
    },
  },
  {
    name: 'enhance',
    run: async (r) => {
      // Light denoise + contrast stretch: washed-out screenshots and noisy photos. (A median filter
      // does this better but costs 100+ ms; a small Gaussian is a few.)
      const img = await transform(await r.smallLuma(), (p) => p.blur(0.8).normalise());
      return scanLuma(img, HARD);
    },
  },
  {
    name: 'rot180',
    run: async (r) => scanLuma(await transform(await r.smallLuma(), (p) => p.rotate(180)), HARD),
  },
  {
    name: 'rot90',
    run: async (r) => scanLuma(await transform(await r.smallLuma(), (p) => p.rotate(90)), HARD),
  },
  {
    name: 'upscale',
    run: async (r) => {
      // Small images (thumbnails, w540 screenshots): 2x so each module spans enough pixels.
      if (r.longSide > 1200) return [];
      const img = await r.fullLuma();
      return scanLuma(await transform(img, (p) => p.resize({ width: img.width * 2, kernel: 'lanczos3' })), HARD);
    },
  },
];

/** Long side of the fast pass' image; see FAST_MIN_SIDE for the JPEG case. */
export function fastSide(format: string | undefined, longSide: number): number {
  if (format !== 'jpeg') return FAST_MAX_SIDE;
  const shrink = longSide / FAST_MAX_SIDE;
  if (shrink < 2 || shrink >= 3) return FAST_MAX_SIDE;
  const third = Math.floor(longSide / 3);
  return third >= FAST_MIN_SIDE ? third : FAST_MAX_SIDE;
}

export interface DecodeOptions {
  /** Restrict the cascade to these pass names (benchmarks and tests). */
  passes?: string[];
  /** Long side of the fast pass' downscaled image (tuning only). */
  fastMaxSide?: number;
  /** Decode-time budget: no pass starts after this many ms; default DEFAULT_DECODE_BUDGET_MS. */
  budgetMs?: number;
  /** Run the byte-level gate (image-gate.ts) first; default true. The pool already ran it, so its decoders skip it. */
  screen?: boolean;
}

/**
 * Finds the slip QR in an image with a cascade of increasingly expensive passes. In-thread: the
 * service calls it through the worker pool; the benchmark and the worker itself call it directly.
 */
export async function decodeSlipImage(image: Buffer | Uint8Array, opts: DecodeOptions = {}): Promise<DecodeResult> {
  const started = performance.now();
  const budgetMs = opts.budgetMs ?? DEFAULT_DECODE_BUDGET_MS;
  const buf = Buffer.isBuffer(image) ? image : Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  if (opts.screen ?? true) {
    const gate = screenImage(buf);
    if (!gate.ok) return { ok: false, errorCode: 'UNREADABLE_IMAGE', message: gate.message };
  }
  let meta: Metadata;
  try {
    meta = await sharp(buf, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch {
    return { ok: false, errorCode: 'UNREADABLE_IMAGE', message: 'image could not be read' };
  }
  const { width, height } = meta;
  if (!width || !height) return { ok: false, errorCode: 'UNREADABLE_IMAGE', message: 'image has no size' };
  if (width * height > MAX_SLIP_PIXELS) {
    return {
      ok: false,
      errorCode: 'UNREADABLE_IMAGE',
      message: `image has ${width}x${height} pixels: more than a phone photo of a slip (max ${MAX_SLIP_PIXELS / 1e6} MP)`,
    };
  }
  if (Math.max(width, height) / Math.min(width, height) > MAX_SLIP_ASPECT) {
    return {
      ok: false,
      errorCode: 'UNREADABLE_IMAGE',
      message: `image of ${width}x${height} pixels is too long and thin for a slip (max ${MAX_SLIP_ASPECT}:1)`,
    };
  }
  const r = new Renditions(
    buf,
    { width, height, channels: meta.channels ?? 3, hasAlpha: meta.hasAlpha ?? false },
    opts.fastMaxSide ?? fastSide(meta.format, Math.max(width, height)),
  );
  const located: LocatedBoxes = { small: [], full: [] };
  let best: DecodeFailure = { ok: false, errorCode: 'NO_QR_FOUND', message: 'no QR code found in the image' };
  const seen = new Set<string>();

  for (const pass of PASSES) {
    if (opts.passes && !opts.passes.includes(pass.name)) continue;
    // Over budget: the best failure so far stands (NO_QR_FOUND unless a pass saw something slip-like).
    if (pass.name !== 'fast' && performance.now() - started > budgetMs) break;
    let hits: ScanHit[];
    try {
      hits = await pass.run(r, located);
    } catch {
      // A pass that cannot process this image (corrupt data past the header) must not end the
      // cascade; if every pass fails the answer stays NO_QR_FOUND or the first pass' verdict.
      if (pass.name === 'fast') return { ok: false, errorCode: 'UNREADABLE_IMAGE', message: 'image could not be decoded' };
      continue;
    }
    for (const hit of hits) {
      if (!hit.valid || seen.has(hit.text)) continue;
      seen.add(hit.text);
      const parsed = parseSlipPayload(hit.text);
      if (parsed.ok) {
        const { ok: _ok, ...fields } = parsed;
        // Passes that scan a turned copy report the copy's angle: leave it out rather than guess.
        const qrAngle = pass.name.startsWith('rot') ? undefined : Math.round(hit.angle * 10) / 10;
        return { ok: true, ...fields, pass: pass.name, ...(qrAngle === undefined ? {} : { qrAngle }) };
      }
      if (FAILURE_RANK[parsed.errorCode] > FAILURE_RANK[best.errorCode]) {
        best = { ok: false, errorCode: parsed.errorCode, message: parsed.message };
      }
    }
  }
  return best;
}
