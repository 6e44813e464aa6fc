/**
 * Byte-level gate in front of the decoder: walks a PNG's chunk list or a JPEG's segment list and lets
 * through only what a slip image needs, within caps, before libvips sees a byte. Pure and synchronous
 * (no image library): it runs on the main thread and answers a hostile file in well under a millisecond
 * per megabyte, free of charge, instead of letting it occupy a decoder.
 *
 * Why: libvips inflates every PNG text chunk while reading the header; one 1.9 MB PNG of 16x16 pixels
 * carrying 40 zTXt chunks (50 MB of zeros each) kept a decoder busy for 84.5 s. The caps below are
 * explained in README.md ("The image gate").
 */
import { inflateSync } from 'node:zlib';

// Images no phone produces as a slip are refused from the header (see "Image limits" in README.md).
export const MAX_SLIP_PIXELS = 24_000_000;
export const MAX_SLIP_ASPECT = 4;

/** PNG caps. A phone screenshot carries IHDR, IDAT and at most a colour profile and some metadata. */
export const PNG_LIMITS = {
  /** Every chunk other than IDAT together (bytes as stored). */
  ancillaryBytes: 512 * 1024,
  /** Non-IDAT chunks. */
  otherChunks: 64,
  /** IDAT chunks, absolute. */
  idatChunks: 16_384,
  /** Above `idatFreeCount` chunks, the IDATs must average at least this many bytes (encoders write 8-64 KB). */
  idatMinAverage: 1024,
  idatFreeCount: 64,
  /** iCCP: profile as stored (compressed) and inflated. */
  iccpBytes: 256 * 1024,
  iccpInflated: 1024 * 1024,
  /** tEXt + zTXt + iTXt together as stored, and each compressed one inflated. */
  textBytes: 16 * 1024,
  textInflated: 64 * 1024,
  /** eXIf. */
  exifBytes: 64 * 1024,
  /** Pixel data once inflated, derived from IHDR (8-bit RGBA at 24 MP is 96 MB). */
  rawBytes: 100 * 1024 * 1024,
  /**
   * The same for an interlaced (Adam7) PNG, which libpng hands over whole instead of row by row: a
   * blank 24 MP RGBA one (96 MB, 480 KB on the wire) cost ~0.8 s of CPU for the first rendition, twice
   * a non-interlaced one, and ran past the 2 s kill limit on a loaded machine. Phones and screenshot
   * tools do not interlace; 48 MB keeps a 12 MP RGBA picture.
   */
  interlacedRawBytes: 48 * 1024 * 1024,
} as const;

/** JPEG caps. */
export const JPEG_LIMITS = {
  /** All APPn segments together (EXIF, XMP, ICC, MPF, maker data). */
  appBytes: 256 * 1024,
  /** APP1 "Exif" segments: one, at most one segment's worth. */
  exifSegments: 1,
  /** COM segments together. */
  commentBytes: 16 * 1024,
  /** Scans: baseline has 1, libjpeg's progressive default 6-10, mozjpeg's optimised ones ~20. */
  scans: 100,
  /** Marker segments of any kind (tables, APPn, scans). */
  segments: 1024,
  /**
   * Samples of all components together (full-size luma plus subsampled chroma) of a progressive JPEG.
   * A progressive image is decoded by keeping every coefficient until its last scan: no shrink-on-load
   * shortcut, memory and time grow with the samples. 36 M is a 24 MP photo at 4:2:0 (what cameras and
   * phones write) or 12 MP at 4:4:4; a blank 24 MP 4:4:4 page (72 M, 275 KB) cost ~0.75 s of CPU before
   * any scan and a 24 MP CMYK one (96 M, 550 KB) ~1.5 s: past the 2 s kill limit on a loaded machine.
   */
  progressiveSamples: 36_000_000,
} as const;

export type GateFormat = 'png' | 'jpeg';
export type GateResult =
  | {
      ok: true;
      format: GateFormat;
      width: number;
      height: number;
      /**
       * A sequential JPEG whose data runs to the end of the file without its end-of-image marker (FFD9),
       * which chat apps and cut downloads leave off: decode `withEndOfImage(bytes)` and refuse it
       * as truncated if the decoder finds its pixels incomplete (slip-qr-decoder.ts).
       */
      eoiMissing?: true;
    }
  | { ok: false; format: GateFormat | 'other'; message: string };

/**
 * The bytes of a JPEG the gate found without its end marker (`eoiMissing`), with the marker: FFD9
 * appended, or D9 when only that byte was cut. A copy; the caller's bytes are left as they are.
 */
export function withEndOfImage(bytes: Uint8Array): Buffer {
  const end = bytes[bytes.length - 1] === 0xff ? [0xd9] : [0xff, 0xd9];
  return Buffer.concat([bytes, Buffer.from(end)]);
}

class Refusal extends Error {}
function refuse(message: string): never {
  throw new Refusal(message);
}

/** Screens an image's bytes; never throws (a refusal is `{ ok: false }`). */
export function screenImage(bytes: Uint8Array): GateResult {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const format: GateFormat | 'other' = isPng(b)
    ? 'png'
    : b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff
      ? 'jpeg'
      : 'other';
  try {
    if (format === 'png') return { ok: true, format, ...walkPng(b) };
    if (format === 'jpeg') return { ok: true, format, ...walkJpeg(b) };
    return { ok: false, format, message: `${sniff(b)} images are not accepted: send the slip as a JPEG or PNG` };
  } catch (err) {
    // Anything unexpected from hostile bytes (a RangeError from a read past the end) is a refusal too.
    return { ok: false, format, message: err instanceof Refusal ? err.message : 'image could not be read' };
  }
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const isPng = (b: Buffer) => b.length >= 8 && PNG_SIGNATURE.every((v, i) => b[i] === v);

/** Names the refused format in the message (the user learns what to send instead). */
function sniff(b: Buffer): string {
  const ascii = (from: number, to: number) => b.subarray(from, to).toString('latin1');
  if (ascii(0, 4) === 'GIF8') return 'GIF';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'WebP';
  if (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*') return 'TIFF';
  if (ascii(4, 8) === 'ftyp') return 'HEIF/AVIF';
  if (/^\s*(<\?xml|<svg|<!DOCTYPE svg)/i.test(ascii(0, 256))) return 'SVG';
  if (ascii(0, 5) === '%PDF-') return 'PDF';
  if (ascii(0, 2) === 'BM') return 'BMP';
  return 'Unknown';
}

function checkSize(width: number, height: number): { width: number; height: number } {
  if (width <= 0 || height <= 0) refuse('image has no size');
  if (width * height > MAX_SLIP_PIXELS)
    refuse(`image has ${width}x${height} pixels: more than a phone photo of a slip (max ${MAX_SLIP_PIXELS / 1e6} MP)`);
  if (Math.max(width, height) / Math.min(width, height) > MAX_SLIP_ASPECT)
    refuse(`image of ${width}x${height} pixels is too long and thin for a slip (max ${MAX_SLIP_ASPECT}:1)`);
  return { width, height };
}

// Fixed-size ancillary chunks: [exact or maximum length]. Anything else lower-case is "unknown
// ancillary" (Apple's iDOT, editors' private chunks): libpng skips those unread, so they only count
// towards the size and count caps.
const PNG_SMALL: Record<string, number> = { gAMA: 4, cHRM: 32, sRGB: 1, pHYs: 9, sBIT: 4, bKGD: 6, tIME: 7, cICP: 4, tRNS: 256 };
// Animation: a slip is one frame, and an APNG's frames are extra work for nothing.
const PNG_REFUSED = new Set(['acTL', 'fcTL', 'fdAT']);

/** Inflates at most `max` bytes: a bomb costs the cap, never its full size. */
function boundedInflate(data: Buffer, max: number, what: string): void {
  try {
    inflateSync(data, { maxOutputLength: max });
  } catch (err) {
    if (err instanceof RangeError) refuse(`${what} inflates to more than ${max / 1024} KB`);
    refuse(`${what} is not valid compressed data`);
  }
}

/** Bytes of pixel data a PNG of this header inflates to (filter byte per row; interlace = 7 sub-images). */
function pngRawBytes(width: number, height: number, bitsPerPixel: number, interlaced: boolean): number {
  const rows = (w: number, h: number) => (w === 0 || h === 0 ? 0 : h * (1 + Math.ceil((w * bitsPerPixel) / 8)));
  if (!interlaced) return rows(width, height);
  const passes = [
    [0, 0, 8, 8],
    [4, 0, 8, 8],
    [0, 4, 4, 8],
    [2, 0, 4, 4],
    [0, 2, 2, 4],
    [1, 0, 2, 2],
    [0, 1, 1, 2],
  ];
  let total = 0;
  for (const [x0, y0, dx, dy] of passes) total += rows(Math.ceil((width - x0!) / dx!), Math.ceil((height - y0!) / dy!));
  return total;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

function walkPng(b: Buffer): { width: number; height: number } {
  let pos = 8;
  let size: { width: number; height: number } | null = null;
  let rawBytes = 0;
  let ancillary = 0;
  let others = 0;
  let idats = 0;
  let idatBytes = 0;
  let text = 0;
  let seenPlte = false;
  for (;;) {
    if (pos + 8 > b.length) refuse('image is truncated (no IEND chunk)');
    const length = b.readUInt32BE(pos);
    const type = b.toString('latin1', pos + 4, pos + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) refuse('image is damaged (bad PNG chunk)');
    if (length > 0x7fffffff || pos + 12 + length > b.length) refuse('image is truncated');
    const data = b.subarray(pos + 8, pos + 8 + length);
    pos += 12 + length;
    if (size === null && type !== 'IHDR') refuse('image is damaged (PNG without IHDR)');
    if (type !== 'IDAT' && type !== 'IEND' && ++others > PNG_LIMITS.otherChunks) refuse('image carries too many PNG chunks');
    switch (type) {
      case 'IHDR': {
        if (size !== null || length !== 13) refuse('image is damaged (bad IHDR)');
        const [depth, colour, compression, filter, interlace] = [data[8]!, data[9]!, data[10]!, data[11]!, data[12]!];
        if (!DEPTHS[colour]?.includes(depth) || compression !== 0 || filter !== 0 || interlace > 1) refuse('image is damaged (bad IHDR)');
        size = checkSize(data.readUInt32BE(0), data.readUInt32BE(4));
        rawBytes = pngRawBytes(size.width, size.height, depth * CHANNELS[colour]!, interlace === 1);
        if (rawBytes > PNG_LIMITS.rawBytes) refuse(`image pixel data is larger than a slip needs (${Math.round(rawBytes / 2 ** 20)} MB)`);
        if (interlace === 1 && rawBytes > PNG_LIMITS.interlacedRawBytes)
          refuse(`interlaced image of ${size.width}x${size.height} pixels carries more pixel data than a slip needs`);
        continue;
      }
      case 'IDAT':
        idats++;
        idatBytes += length;
        if (idats > PNG_LIMITS.idatChunks) refuse('image is split into too many PNG data chunks');
        // Encoders write equal chunks (the last may be short): a low running average is refused at once.
        if (idats > PNG_LIMITS.idatFreeCount && idatBytes / idats < PNG_LIMITS.idatMinAverage)
          refuse('image is split into too many small PNG data chunks');
        continue;
      case 'IEND': {
        if (idats === 0) refuse('image has no pixel data');
        if (idats > PNG_LIMITS.idatFreeCount && idatBytes / idats < PNG_LIMITS.idatMinAverage)
          refuse('image is split into too many small PNG data chunks');
        // Deflate can outgrow its input: stored blocks add 5 bytes per 64 KB, but an encoder that writes
        // static Huffman blocks only (zlib-ng's level 1, libvips' and sharp's fast PNGs) spends 9 bits on
        // the byte values 144-255, up to 12.5% more than the pixels on a noisy photo (a slip photographed
        // in dim light, written at level 1, was refused at the old 1% allowance). More than that is not
        // this image's pixels.
        if (idatBytes > rawBytes * 1.13 + 65_536) refuse('image carries more compressed data than its pixels need');
        // Bytes after IEND are ignored by every PNG reader (and not read here).
        return size!;
      }
      case 'PLTE':
        if (seenPlte || length > 768 || length % 3 !== 0) refuse('image is damaged (bad palette)');
        seenPlte = true;
        continue;
    }
    // Everything below is ancillary (or refused).
    if (/^[A-Z]/.test(type)) refuse(`image carries an unknown critical PNG chunk (${type})`);
    if (PNG_REFUSED.has(type)) refuse('animated images are not accepted');
    ancillary += 12 + length;
    if (ancillary > PNG_LIMITS.ancillaryBytes) refuse('image carries too much metadata');
    const small = PNG_SMALL[type];
    if (small !== undefined) {
      if (length > small) refuse(`image is damaged (oversized ${type} chunk)`);
    } else if (type === 'iCCP') {
      if (length > PNG_LIMITS.iccpBytes) refuse('image carries an oversized colour profile');
      const nul = data.indexOf(0);
      if (nul < 1 || nul > 79 || data[nul + 1] !== 0) refuse('image is damaged (bad colour profile)');
      boundedInflate(data.subarray(nul + 2), PNG_LIMITS.iccpInflated, 'colour profile');
    } else if (type === 'tEXt' || type === 'zTXt' || type === 'iTXt') {
      text += length;
      if (text > PNG_LIMITS.textBytes) refuse('image carries too much text metadata');
      const nul = data.indexOf(0);
      if (nul < 1 || nul > 79) refuse('image is damaged (bad text chunk)');
      if (type === 'zTXt') boundedInflate(data.subarray(nul + 2), PNG_LIMITS.textInflated, 'text metadata');
      if (type === 'iTXt' && data[nul + 1] === 1) {
        // keyword\0 flag method language\0 translated\0 text
        const lang = data.indexOf(0, nul + 3);
        const translated = lang < 0 ? -1 : data.indexOf(0, lang + 1);
        if (translated < 0) refuse('image is damaged (bad text chunk)');
        boundedInflate(data.subarray(translated + 1), PNG_LIMITS.textInflated, 'text metadata');
      }
    } else if (type === 'eXIf') {
      if (length > PNG_LIMITS.exifBytes) refuse('image carries oversized EXIF metadata');
    }
  }
}

function walkJpeg(b: Buffer): { width: number; height: number; eoiMissing?: true } {
  let pos = 2;
  let size: { width: number; height: number } | null = null;
  let progressive = false;
  /** Component ids of the frame, and those the scans so far carried. */
  let frameComponents: number[] = [];
  const scanned = new Set<number>();
  let app = 0;
  let exif = 0;
  let comments = 0;
  let scans = 0;
  let segments = 0;
  for (;;) {
    if (pos + 2 > b.length) refuse('image is truncated (no end of image)');
    if (b[pos] !== 0xff) refuse('image is damaged (bad JPEG marker)');
    // Fill bytes (0xFF runs) before a marker are allowed by the standard.
    let m = pos + 1;
    while (m < b.length && b[m] === 0xff && m - pos < 64) m++;
    if (m >= b.length) refuse('image is truncated');
    const marker = b[m]!;
    pos = m + 1;
    if (marker === 0xd9) {
      if (!size || scans === 0) refuse('image has no pixel data');
      // Bytes after the end of image (a second MPF image, maker data) are ignored, as libjpeg does.
      return size;
    }
    if (marker === 0x00 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) refuse('image is damaged (stray JPEG marker)');
    if (pos + 2 > b.length) refuse('image is truncated');
    const length = b.readUInt16BE(pos);
    if (length < 2 || pos + length > b.length) refuse('image is truncated');
    const data = b.subarray(pos + 2, pos + length);
    pos += length;
    if (++segments > JPEG_LIMITS.segments) refuse('image carries too many JPEG segments');
    if (marker >= 0xe0 && marker <= 0xef) {
      app += length + 2;
      if (app > JPEG_LIMITS.appBytes) refuse('image carries too much metadata');
      if (marker === 0xe1 && data.toString('latin1', 0, 6) === 'Exif\0\0' && ++exif > JPEG_LIMITS.exifSegments)
        refuse('image carries more than one EXIF block');
      continue;
    }
    switch (marker) {
      case 0xc0: // baseline
      case 0xc1: // extended sequential, Huffman
      case 0xc2: {
        // progressive, Huffman
        if (size || data.length < 6) refuse('image is damaged (bad JPEG frame header)');
        const precision = data[0]!;
        const components = data[5]!;
        if (precision !== 8) refuse('image uses a JPEG precision no phone writes');
        if (![1, 3, 4].includes(components) || data.length !== 6 + 3 * components) refuse('image is damaged (bad JPEG frame header)');
        size = checkSize(data.readUInt16BE(3), data.readUInt16BE(1));
        progressive = marker === 0xc2;
        frameComponents = Array.from({ length: components }, (_, i) => data[6 + 3 * i]!);
        if (marker === 0xc2 && jpegSamples(data, size) > JPEG_LIMITS.progressiveSamples)
          refuse(`progressive image of ${size.width}x${size.height} pixels carries more samples than a slip needs`);
        continue;
      }
      case 0xc4: // DHT
      case 0xdb: // DQT
      case 0xdd: // DRI
        continue;
      case 0xfe:
        comments += length + 2;
        if (comments > JPEG_LIMITS.commentBytes) refuse('image carries too much comment text');
        continue;
      case 0xda: {
        if (!size) refuse('image is damaged (scan before frame header)');
        if (++scans > JPEG_LIMITS.scans) refuse('image has too many progressive scans');
        for (let i = 0; i < (data[0] ?? 0) && 1 + 2 * i < data.length; i++) scanned.add(data[1 + 2 * i]!);
        const end = skipEntropyData(b, pos);
        if (end === null) {
          // The data runs to the end of the file: only the end marker may be missing (chat apps and cut
          // downloads drop it; libjpeg reads such a file whole). Taken only when the scans so far carry
          // every component of a sequential frame (else whole components would be missing); whether
          // this scan's own data is complete only decoding tells, so the decoder refuses the file as
          // truncated when it is not. A progressive frame stays refused: a file cut between two of its
          // scans decodes without complaint, at a lower quality, and nothing here tells how many scans it had.
          if (!progressive && frameComponents.every((c) => scanned.has(c))) return { ...size, eoiMissing: true };
          refuse('image is truncated (no end of image)');
        }
        pos = end;
        continue;
      }
      default:
        // Lossless, hierarchical and arithmetic-coded frames, DNL, JPEG-LS/XT extensions, reserved
        // markers: nothing a phone writes for a screenshot or photo.
        refuse(`image uses a JPEG feature a slip does not need (marker 0x${marker.toString(16)})`);
    }
  }
}

/** Samples of all components of a JPEG frame (each component's size follows its sampling factors). */
function jpegSamples(frame: Buffer, size: { width: number; height: number }): number {
  const components = frame[5]!;
  const factors: [number, number][] = [];
  for (let i = 0; i < components; i++) {
    const hv = frame[7 + 3 * i]!;
    const h = hv >> 4;
    const v = hv & 15;
    if (h < 1 || h > 4 || v < 1 || v > 4) refuse('image is damaged (bad JPEG sampling factors)');
    factors.push([h, v]);
  }
  const hMax = Math.max(...factors.map(([h]) => h));
  const vMax = Math.max(...factors.map(([, v]) => v));
  let samples = 0;
  for (const [h, v] of factors) samples += Math.ceil((size.width * h) / hMax) * Math.ceil((size.height * v) / vMax);
  return samples;
}

/**
 * Position of the marker that ends a scan's entropy-coded data (stuffed 0xFF00 and RSTn are data), or
 * null when the data runs to the end of the file (a last lone 0xFF is the cut marker's first byte).
 */
function skipEntropyData(b: Buffer, from: number): number | null {
  let i = from;
  for (;;) {
    const ff = b.indexOf(0xff, i);
    if (ff < 0 || ff + 1 >= b.length) return null;
    const next = b[ff + 1]!;
    if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) {
      i = ff + 2;
      continue;
    }
    if (next === 0xff) {
      i = ff + 1;
      continue;
    }
    return ff;
  }
}
