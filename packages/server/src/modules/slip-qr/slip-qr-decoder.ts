import sharp, { type Metadata, type Sharp } from 'sharp';
import { MAX_SLIP_ASPECT, MAX_SLIP_PIXELS, screenImage, withEndOfImage } from './image-gate.js';
import { processCpuMs, startRunClock } from './run-clock.js';
import { parseSlipPayload, type SlipPayloadOk } from './slip-qr-parser.js';
import { scanLuma, type LumaImage, type ScanHit, type ScanOptions } from './slip-qr-zxing.js';

export type DecodeErrorCode = 'NO_QR_FOUND' | 'NOT_SLIP_QR' | 'BAD_CHECKSUM' | 'UNKNOWN_BANK' | 'UNREADABLE_IMAGE' | 'MULTIPLE_SLIPS';

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

/** One transfer's reference written another way (case, leading zeros) is still one slip, not two. */
const refKey = (ref: string) => ref.replace(/^0+/, '').toUpperCase();
const sameTransfer = (a: { bankCode: string; transRef: string }, b: { bankCode: string; transRef: string }) =>
  a.bankCode === b.bankCode && refKey(a.transRef) === refKey(b.transRef);

const MULTIPLE_SLIPS: DecodeFailure = {
  ok: false,
  errorCode: 'MULTIPLE_SLIPS',
  message: 'the picture shows slips of more than one transfer: send one slip per picture',
};

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
// Up to this long side the fast pass scans the image as decoded (see Renditions): what chat apps
// deliver (480-1280 px) costs less scanned whole than resized first.
const NATIVE_MAX_SIDE = 1400;
// A PNG above NATIVE_MAX_SIDE is box-shrunk by the integer factor that brings it to about this.
const SHRINK_TARGET_SIDE = 1200;
// The upscale pass is for thumbnails, whose modules may be under 2 px (a slip 300 px wide); a slip
// 800 px long already has ~3 px per module.
const UPSCALE_MAX_SIDE = 800;
// Decompression-bomb guard for libvips itself (never reached: the slip-shape limits below are stricter).
const MAX_INPUT_PIXELS = 50_000_000;
// Images no phone produces as a slip are refused from the header alone, before any pixel is decoded
// (see "Image limits" in README.md); the limits live in the byte-level gate (image-gate.ts).
export { MAX_SLIP_PIXELS, MAX_SLIP_ASPECT };
// Decode-time budget per image (running time in the worker, run-clock.ts: waiting for a CPU does not
// count): no further cascade pass starts once it is spent. Real slips finish in the first passes
// (fast, fullplain; region for a few thumbnails: <= ~60 ms CPU, docs/benchmarks.md); the passes after
// those exist for damaged photos and never take a real slip near this bound.
export const DEFAULT_DECODE_BUDGET_MS = 600;

// Higher rank wins when no pass finds a valid slip: a slip-shaped QR with a wrong CRC tells the user
// more than "no QR at all".
const FAILURE_RANK: Record<DecodeErrorCode, number> = {
  UNREADABLE_IMAGE: 0,
  NO_QR_FOUND: 1,
  NOT_SLIP_QR: 2,
  UNKNOWN_BANK: 3,
  BAD_CHECKSUM: 4,
  MULTIPLE_SLIPS: 5,
};

sharp.cache(false);
// The pool already runs one decode per core; libvips threads on top of that only oversubscribe the
// CPU and add a thread stack and buffers each.
sharp.concurrency(1);

/**
 * Lazily built one-channel renditions of one input image, shared by the passes: `small` for the
 * cheap passes, `full` (capped at FULL_MAX_SIDE) for the rest. How each is made depends on the image
 * (profile in docs/benchmarks.md, "Decoding"):
 * - long side <= NATIVE_MAX_SIDE (most uploads: chat apps send 480-1280 px): one decode at native
 *   size serves both; a resize would cost more than the larger scan it saves, and blurs small codes.
 * - PNG (any non-JPEG) up to FULL_MAX_SIDE: one native decode; `small` is a box shrink of it in JS.
 *   libvips resizes a PNG at ~2.5x the cost of decoding it (no shrink-on-load), and `full` is needed
 *   anyway whenever the fast pass misses.
 * - JPEG above NATIVE_MAX_SIDE and anything above FULL_MAX_SIDE: `small` is decoded at fastMaxSide
 *   (JPEG shrink-on-load), `full` separately, only when a pass needs it.
 */
class Renditions {
  private small?: Promise<LumaImage>;
  private full?: Promise<LumaImage>;
  /** CPU ms spent building renditions (only counted when profiling). */
  lumaMs = 0;
  /** How `small` is made: the native decode itself, a box shrink of it, or a separate decode. */
  readonly mode: 'native' | 'shrink' | 'separate';
  constructor(
    private readonly image: Buffer,
    private readonly meta: ImageShape & { width: number; height: number; jpeg: boolean },
    readonly fastMaxSide: number,
    private readonly profile = false,
  ) {
    const long = this.longSide;
    if (long <= fastMaxSide) this.mode = 'native';
    else if (!meta.jpeg && long <= FULL_MAX_SIDE) this.mode = 'shrink';
    else this.mode = 'separate';
  }

  private async build(f: () => Promise<LumaImage>): Promise<LumaImage> {
    if (!this.profile) return f();
    const t0 = processCpuMs();
    try {
      return await f();
    } finally {
      this.lumaMs += processCpuMs() - t0;
    }
  }

  get longSide(): number {
    return Math.max(this.meta.width, this.meta.height);
  }

  /** `small` and `full` are the same pixels: passes that would scan both scan once. */
  get sameSize(): boolean {
    return this.mode === 'native';
  }

  base(maxSide: number): Promise<LumaImage> {
    return lumaOf(this.image, this.meta, maxSide);
  }

  smallLuma(): Promise<LumaImage> {
    if (this.mode === 'native') return this.fullLuma();
    if (this.mode === 'shrink') {
      // Integer factor: the fast pass then sees the slip at 800-1200 px on its long side.
      const k = Math.ceil(this.longSide / SHRINK_TARGET_SIDE);
      this.small ??= this.fullLuma().then((full) => this.build(async () => shrinkLuma(full, k)));
      return this.small;
    }
    this.small ??= this.build(() => this.base(this.fastMaxSide));
    return this.small;
  }

  fullLuma(): Promise<LumaImage> {
    this.full ??= this.build(() => this.base(FULL_MAX_SIDE));
    return this.full;
  }
}

/**
 * 2x bilinear upscale in JS: ~5 ms for 800x800 where libvips' lanczos3 on a raw buffer cost ~30.
 * Each output pixel weighs its source pixel 3/4 and the neighbour on its side 1/4, per axis.
 */
export function upscaleLuma2x(img: LumaImage): LumaImage {
  const { width: w, height: h, data: s } = img;
  const W = w * 2;
  const H = h * 2;
  const tmp = new Uint16Array(W * h); // horizontal pass, values x4
  for (let y = 0; y < h; y++) {
    const r = y * w;
    const o = y * W;
    for (let x = 0; x < w; x++) {
      const c = 3 * s[r + x]!;
      tmp[o + 2 * x] = c + s[r + (x > 0 ? x - 1 : 0)]!;
      tmp[o + 2 * x + 1] = c + s[r + (x < w - 1 ? x + 1 : x)]!;
    }
  }
  const out = new Uint8Array(W * H);
  for (let y = 0; y < h; y++) {
    const up = (y > 0 ? y - 1 : 0) * W;
    const mid = y * W;
    const down = (y < h - 1 ? y + 1 : y) * W;
    const o0 = 2 * y * W;
    const o1 = o0 + W;
    for (let x = 0; x < W; x++) {
      const c = 3 * tmp[mid + x]!;
      out[o0 + x] = (c + tmp[up + x]! + 8) >> 4;
      out[o1 + x] = (c + tmp[down + x]! + 8) >> 4;
    }
  }
  return { data: out, width: W, height: H };
}

/** Box-filter shrink by an integer factor (mean of each k x k block): ~1 ms per megapixel in JS. */
export function shrinkLuma(img: LumaImage, k: number): LumaImage {
  if (k <= 1) return img;
  const width = Math.floor(img.width / k);
  const height = Math.floor(img.height / k);
  const out = new Uint8Array(width * height);
  const row = new Uint32Array(width);
  const src = img.data;
  const area = k * k;
  const half = area >> 1;
  if (k === 2) {
    // The common case (1080x1900 and 1080x2340 PNGs), unrolled: ~1.5 ms instead of ~4.
    const w = img.width;
    for (let y = 0; y < height; y++) {
      let a = 2 * y * w;
      let b = a + w;
      const o = y * width;
      for (let x = 0; x < width; x++, a += 2, b += 2) out[o + x] = (src[a]! + src[a + 1]! + src[b]! + src[b + 1]! + 2) >> 2;
    }
    return { data: out, width, height };
  }
  for (let y = 0; y < height; y++) {
    row.fill(0);
    for (let dy = 0; dy < k; dy++) {
      let i = (y * k + dy) * img.width;
      for (let x = 0; x < width; x++) {
        let sum = 0;
        for (let dx = 0; dx < k; dx++) sum += src[i++]!;
        row[x] = row[x]! + sum;
      }
    }
    const o = y * width;
    for (let x = 0; x < width; x++) out[o + x] = (row[x]! + half) / area;
  }
  return { data: out, width, height };
}

/** What `lumaOf` needs to know of an image (from sharp's metadata). */
export interface ImageShape {
  channels: number;
  hasAlpha: boolean;
  /** libvips' interpretation (`space` in sharp's metadata): 'cmyk' for CMYK and YCCK JPEGs. */
  space?: string;
}

/**
 * One luminance-like channel of an image, long side at most `maxSide` (the QR decoder's renditions and
 * the printed-amount reader's working copy). No colour management: a scan of dark-on-light modules
 * needs none, and it was the dearest step of all. An embedded ICC profile (Display P3 on iPhone
 * photos) was applied to every pixel first (0.1-0.5 s CPU per 24 MP photo, and lcms ran whatever
 * profile a sender embedded); a CMYK JPEG went through lcms' CMYK -> sRGB transform at full size, 3-5x a plain
 * photo's whole decode: a blank 6000x4000 CMYK page of 366 KB ran a decoder past its 2 s kill limit.
 * CMYK stays CMYK here (decoded, shrunk) and its green is computed in JS: (255 - M) x (255 - K) / 255,
 * what green light a print of it reflects (yellow ink passes green, cyan mostly does too).
 */
export async function lumaOf(image: Buffer, shape: ImageShape, maxSide: number, enlarge = false): Promise<LumaImage> {
  let p = sharp(image, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'none', ignoreIcc: true });
  const cmyk = shape.space === 'cmyk' && shape.channels === 4;
  if (cmyk) p = p.pipelineColourspace('cmyk').toColourspace('cmyk');
  else if (shape.hasAlpha) p = p.flatten({ background: '#ffffff' });
  p = p.resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: !enlarge, kernel: 'linear' });
  if (cmyk) {
    const { data, info } = await p.raw().toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) throw new Error('CMYK image decoded without 4 channels');
    const out = new Uint8Array(info.width * info.height);
    // x / 255 rounded, in integers (exact for x <= 255 * 255): a float division per pixel cost a 12 MP page ~30 ms more.
    for (let i = 0, j = 1; i < out.length; i++, j += 4) {
      const x = (255 - data[j]!) * (255 - data[j + 2]!) + 128;
      out[i] = (x + (x >> 8)) >> 8;
    }
    return { data: out, width: info.width, height: info.height };
  }
  // One colour channel instead of greyscale(): libvips' colourspace conversion costs ~10 ms on a
  // slip, and green carries most of the luminance of dark-on-light codes anyway.
  const channels = shape.hasAlpha ? 3 : shape.channels;
  return toLuma(p.extractChannel(channels >= 3 ? 1 : 0));
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

/** Boxes whose centres are more than a quarter of their size apart: one per located symbol. */
function distinctBoxes(boxes: ScanHit['box'][]): ScanHit['box'][] {
  const out: ScanHit['box'][] = [];
  const centre = (b: ScanHit['box']) => [(b.left + b.right) / 2, (b.top + b.bottom) / 2, Math.max(b.right - b.left, b.bottom - b.top)];
  for (const b of boxes) {
    const [x, y, size] = centre(b);
    if (
      out.every((o) => {
        const [ox, oy] = centre(o);
        return Math.hypot(x! - ox!, y! - oy!) > size! / 4;
      })
    )
      out.push(b);
  }
  return out;
}

const located = (l: LocatedBoxes) => l.small.length + l.full.length > 0;

/**
 * Cascade order, by measured share of reads and then cost (docs/benchmarks.md, "Decoding"); later
 * passes run only while no valid slip payload has turned up. On the benchmark corpus `fast` reads
 * ~95% of slips, `fullplain` most of the rest, `region` a few thumbnails.
 */
const PASSES: Pass[] = [
  { name: 'fast', run: async (r, l) => scanAndLocate(await r.smallLuma(), {}, l.small) },
  // Small QR codes (a slip's mini-QR at 110 px) fall apart when downscaled: full resolution with
  // tryHarder alone is cheaper than the all-options passes and finds most of them. On an image
  // scanned at native size this is the same pixels with tryHarder (a second, finer look).
  { name: 'fullplain', run: async (r, l) => scanAndLocate(await r.fullLuma(), { tryHarder: true }, l.full) },
  { name: 'harder', run: async (r, l) => scanAndLocate(await r.smallLuma(), HARD, l.small) },
  { name: 'full', run: async (r, l) => (r.sameSize ? [] : scanAndLocate(await r.fullLuma(), HARD, l.full)) },
  {
    name: 'histogram',
    run: async (r, l) => scanAndLocate(await r.fullLuma(), { ...HARD, binarizer: 'GlobalHistogram' }, l.full),
  },
  {
    name: 'region',
    run: async (r, l) => {
      const out: ScanHit[] = [];
      // Native-size images: both lists hold boxes on the same pixels (the same symbol seen by
      // several passes shows up once).
      const jobs: [LumaImage, ScanHit['box'][]][] = r.sameSize
        ? [[await r.fullLuma(), distinctBoxes([...l.small, ...l.full])]]
        : [
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
    name: 'upscale',
    run: async (r) => {
      // Thumbnails: 2x so each module spans enough pixels. tryHarder only: downscaling the upscaled
      // copy would rebuild what `harder` scanned, and the detector is rotation-invariant.
      if (r.longSide > UPSCALE_MAX_SIDE) return [];
      return scanLuma(upscaleLuma2x(await r.fullLuma()), { tryHarder: true });
    },
  },
  // Rescue passes for a symbol that was located but not read (a damaged photo). Where no pass has
  // located anything (photos, blank pages, screenshots without a slip) they cost 30-60 ms per image
  // and read nothing: a blur or a turned copy does not make finder patterns appear.
  {
    name: 'enhance',
    run: async (r, l) => {
      if (!located(l)) return [];
      // Light denoise + contrast stretch: washed-out screenshots and noisy photos. (A median filter
      // does this better but costs 100+ ms; a small Gaussian is a few.)
      const img = await transform(await r.smallLuma(), (p) => p.blur(0.8).normalise());
      return scanLuma(img, HARD);
    },
  },
  {
    name: 'rot180',
    run: async (r, l) => (located(l) ? scanLuma(await transform(await r.smallLuma(), (p) => p.rotate(180)), HARD) : []),
  },
  {
    name: 'rot90',
    run: async (r, l) => (located(l) ? scanLuma(await transform(await r.smallLuma(), (p) => p.rotate(90)), HARD) : []),
  },
];

/** Long side of the fast pass' image; see FAST_MIN_SIDE for the JPEG case. */
export function fastSide(format: string | undefined, longSide: number): number {
  if (longSide <= NATIVE_MAX_SIDE) return longSide;
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
  /**
   * The image is a JPEG the gate found without its end marker, given here with the marker added
   * (withEndOfImage): it is read only when its pixel data is complete. Set by the gate when `screen`
   * runs it; the pool sets it for the images it gated.
   */
  endAdded?: boolean;
  /**
   * Profiling (benchmark): called with the process CPU ms of each stage: 'open' (gate and header),
   * 'luma' (decoding the file into a one-channel rendition: decode, resize, channel), and each pass'
   * name for its own work (scans and the pass' own transforms).
   */
  onStage?: (stage: string, cpuMs: number) => void;
}

/** True when libvips reads the whole JPEG without a warning (a warning is an error at failOn 'warning'). */
async function completeJpeg(buf: Buffer, width: number): Promise<boolean> {
  try {
    await sharp(buf, { failOn: 'warning', limitInputPixels: MAX_INPUT_PIXELS, sequentialRead: true })
      .resize({ width: Math.max(1, Math.ceil(width / 2)) })
      .raw()
      .toBuffer();
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds the slip QR in an image with a cascade of increasingly expensive passes. In-thread: the
 * service calls it through the worker pool; the benchmark and the worker itself call it directly.
 */
export async function decodeSlipImage(image: Buffer | Uint8Array, opts: DecodeOptions = {}): Promise<DecodeResult> {
  const ran = startRunClock();
  const onStage = opts.onStage;
  let mark = onStage ? processCpuMs() : 0;
  const budgetMs = opts.budgetMs ?? DEFAULT_DECODE_BUDGET_MS;
  let buf = Buffer.isBuffer(image) ? image : Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  let endAdded = opts.endAdded ?? false;
  if (opts.screen ?? true) {
    const gate = screenImage(buf);
    if (!gate.ok) return { ok: false, errorCode: 'UNREADABLE_IMAGE', message: gate.message };
    if (gate.eoiMissing) [buf, endAdded] = [withEndOfImage(buf), true];
  }

  let meta: Metadata;
  try {
    meta = await sharp(buf, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch {
    return { ok: false, errorCode: 'UNREADABLE_IMAGE', message: 'image could not be read' };
  }
  const { width, height } = meta;
  if (!width || !height) return { ok: false, errorCode: 'UNREADABLE_IMAGE', message: 'image has no size' };
  // A JPEG that came without its end marker: complete when libjpeg meets no other problem reading it
  // with the marker added (data cut short hits the marker mid-scan: "premature end of data segment").
  // The passes below read with failOn 'none' and would fill the missing part grey; this is the one
  // strict read, at half size (shrink-on-load still decodes every coefficient; at 1/8 libjpeg reads
  // only the DC ones and did not notice 1000 missing bytes).
  if (endAdded && !(await completeJpeg(buf, width)))
    return { ok: false, errorCode: 'UNREADABLE_IMAGE', message: 'image is truncated (no end of image)' };
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
    { width, height, channels: meta.channels ?? 3, hasAlpha: meta.hasAlpha ?? false, space: meta.space, jpeg: meta.format === 'jpeg' },
    opts.fastMaxSide ?? fastSide(meta.format, Math.max(width, height)),
    onStage !== undefined,
  );
  if (onStage) {
    const now = processCpuMs();
    onStage('open', now - mark);
    mark = now;
  }
  const located: LocatedBoxes = { small: [], full: [] };
  let best: DecodeFailure = { ok: false, errorCode: 'NO_QR_FOUND', message: 'no QR code found in the image' };
  const seen = new Set<string>();

  for (const pass of PASSES) {
    if (opts.passes && !opts.passes.includes(pass.name)) continue;
    // Over budget: the best failure so far stands (NO_QR_FOUND unless a pass saw something slip-like).
    if (pass.name !== 'fast' && ran() > budgetMs) break;
    let hits: ScanHit[];
    try {
      const lumaBefore = r.lumaMs;
      hits = await pass.run(r, located);
      if (onStage) {
        const now = processCpuMs();
        const luma = r.lumaMs - lumaBefore;
        if (luma > 0) onStage('luma', luma);
        onStage(pass.name, now - mark - luma);
        mark = now;
      }
    } catch {
      // A pass that cannot process this image (corrupt data past the header) must not end the
      // cascade; if every pass fails the answer stays NO_QR_FOUND or the first pass' verdict.
      if (pass.name === 'fast') return { ok: false, errorCode: 'UNREADABLE_IMAGE', message: 'image could not be decoded' };
      continue;
    }
    let found: Extract<DecodeResult, { ok: true }> | null = null;
    for (const hit of hits) {
      if (!hit.valid || seen.has(hit.text)) continue;
      seen.add(hit.text);
      const parsed = parseSlipPayload(hit.text);
      if (parsed.ok) {
        // Two transfers in one picture (a collage, a screenshot of a chat): checking one of them
        // answered for a payment the sender did not mean alone, and the printed amount read beside it
        // could be the other slip's (a genuine payment answered FRAUD EDITED_SLIP). One slip per picture.
        if (found && !sameTransfer(found, parsed)) return MULTIPLE_SLIPS;
        if (found) continue;
        const { ok: _ok, ...fields } = parsed;
        // Passes that scan a turned copy report the copy's angle: leave it out rather than guess.
        const qrAngle = pass.name.startsWith('rot') ? undefined : Math.round(hit.angle * 10) / 10;
        found = { ok: true, ...fields, pass: pass.name, ...(qrAngle === undefined ? {} : { qrAngle }) };
        continue;
      }
      if (FAILURE_RANK[parsed.errorCode] > FAILURE_RANK[best.errorCode]) {
        best = { ok: false, errorCode: parsed.errorCode, message: parsed.message };
      }
    }
    if (found) return found;
  }
  return best;
}
