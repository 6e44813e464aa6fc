import { deflateSync } from 'node:zlib';
import sharp from 'sharp';

/**
 * Hostile images built in memory (never committed as files): each is small on the wire and either
 * expensive for a decoder or a format the service does not take.
 */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One PNG chunk with a correct CRC (so libpng reads it as genuine). */
export function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** Splits a PNG into its signature and chunks. */
export function pngChunks(png: Buffer): { type: string; data: Buffer }[] {
  const out: { type: string; data: Buffer }[] = [];
  let pos = 8;
  while (pos + 8 <= png.length) {
    const len = png.readUInt32BE(pos);
    out.push({ type: png.toString('latin1', pos + 4, pos + 8), data: png.subarray(pos + 8, pos + 8 + len) });
    pos += 12 + len;
  }
  return out;
}

/** Rebuilds a PNG from chunks, with `extra` chunks inserted after IHDR. */
export function buildPng(chunks: { type: string; data: Buffer }[], extra: Buffer[] = []): Buffer {
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const parts: Buffer[] = [sig];
  for (const c of chunks) {
    parts.push(pngChunk(c.type, c.data));
    if (c.type === 'IHDR') parts.push(...extra);
  }
  return Buffer.concat(parts);
}

export async function tinyPng(width = 16, height = 16): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
}

const zeros = new Map<number, Buffer>();
/** `mb` MB of zeros deflated (about 1 KB per MB), built once per size. */
function deflatedZeros(mb = 50): Buffer {
  if (!zeros.has(mb)) zeros.set(mb, deflateSync(Buffer.alloc(mb * 1024 * 1024), { level: 9 }));
  return zeros.get(mb)!;
}

/** The image: a 16x16 PNG carrying `n` zTXt chunks, each `mb` (50) MB of zeros deflated. */
export async function ztxtBombPng(n = 40, mb = 50): Promise<Buffer> {
  const z = deflatedZeros(mb);
  const extra = Array.from({ length: n }, (_, i) => pngChunk('zTXt', Buffer.concat([Buffer.from(`Comment${i}\0\0`, 'latin1'), z])));
  return buildPng(pngChunks(await tinyPng()), extra);
}

/** A colour profile that inflates to 50 MB. */
export async function hugeIccpPng(): Promise<Buffer> {
  const extra = [pngChunk('iCCP', Buffer.concat([Buffer.from('bomb\0\0', 'latin1'), deflatedZeros()]))];
  return buildPng(pngChunks(await tinyPng()), extra);
}

/** The pixel data cut into `n` IDAT chunks of a byte or two. */
export async function tinyIdatsPng(n = 5000): Promise<Buffer> {
  const png = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#ffffff' } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  const chunks = pngChunks(png);
  const idat = Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data));
  const size = Math.max(1, Math.ceil(idat.length / n));
  const pieces: { type: string; data: Buffer }[] = [];
  for (let i = 0; i < idat.length; i += size) pieces.push({ type: 'IDAT', data: idat.subarray(i, i + size) });
  return buildPng([chunks.find((c) => c.type === 'IHDR')!, ...pieces, { type: 'IEND', data: Buffer.alloc(0) }]);
}

function jpegSegment(marker: number, data: Buffer): Buffer {
  const h = Buffer.alloc(4);
  h[0] = 0xff;
  h[1] = marker;
  h.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([h, data]);
}

/** Splits a JPEG after SOI; inserts segments right after it. */
function withSegments(jpeg: Buffer, segments: Buffer[]): Buffer {
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}

/** A progressive JPEG whose last scan is repeated until it has `n` scans (every scan a real one libjpeg must run). */
export async function manyScansJpeg(n = 3000): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } })
    .jpeg({ progressive: true })
    .toBuffer();
  // The last SOS segment and its data, up to EOI.
  let last = -1;
  for (let i = 2; i < jpeg.length - 1; i++) if (jpeg[i] === 0xff && jpeg[i + 1] === 0xda) last = i;
  const scan = jpeg.subarray(last, jpeg.length - 2);
  const body = jpeg.subarray(0, jpeg.length - 2);
  return Buffer.concat([body, ...Array.from({ length: n - 1 }, () => scan), Buffer.from([0xff, 0xd9])]);
}

/** EXIF bomb: many APP1 Exif segments, each a full 64 KB of IFD entries. */
export async function exifBombJpeg(segments = 30): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } })
    .jpeg()
    .toBuffer();
  const tiff = Buffer.alloc(65_000);
  tiff.write('Exif\0\0II*\0', 0, 'latin1');
  tiff.writeUInt32LE(8, 10); // first IFD at 8
  const entries = Math.floor((65_000 - 20) / 12);
  tiff.writeUInt16LE(entries, 14);
  for (let i = 0; i < entries; i++) {
    const at = 16 + i * 12;
    tiff.writeUInt16LE(0x010e, at); // ImageDescription
    tiff.writeUInt16LE(2, at + 2); // ASCII
    tiff.writeUInt32LE(60_000, at + 4); // each one claims 60 KB of text
    tiff.writeUInt32LE(8, at + 8);
  }
  return withSegments(
    jpeg,
    Array.from({ length: segments }, () => jpegSegment(0xe1, tiff)),
  );
}

/** A JPEG with a 1 MB ICC profile spread over APP2 segments. */
export async function hugeIccJpeg(): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } })
    .jpeg()
    .toBuffer();
  const parts = 17;
  const segs = Array.from({ length: parts }, (_, i) =>
    jpegSegment(0xe2, Buffer.concat([Buffer.from('ICC_PROFILE\0', 'latin1'), Buffer.from([i + 1, parts]), Buffer.alloc(60_000)])),
  );
  return withSegments(jpeg, segs);
}

/** Every other format sharp writes (or, for SVG, reads), each a plain white 300x500 picture. */
export async function otherFormats(): Promise<Record<string, Buffer>> {
  const base = () => sharp({ create: { width: 300, height: 500, channels: 3, background: '#ffffff' } });
  const out: Record<string, Buffer> = {
    gif: await base().gif().toBuffer(),
    tiff: await base().tiff().toBuffer(),
    webp: await base().webp().toBuffer(),
    svg: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="500"><rect width="300" height="500" fill="#fff"/></svg>'),
  };
  for (const [name, make] of [
    ['avif', () => base().avif().toBuffer()],
    ['heif', () => base().heif({ compression: 'av1' }).toBuffer()],
    ['jp2', () => base().jp2().toBuffer()],
    ['jxl', () => base().jxl().toBuffer()],
  ] as const) {
    // Only formats this build of libvips can write: the rest cannot reach the service from here either.
    const made = await Promise.resolve()
      .then(make)
      .catch(() => null);
    if (made) out[name] = made;
  }
  return out;
}

/**
 * Slow images the limits still accept: a blank 4000x3000 PNG (a 12 MP photo's size, a few KB of
 * bytes) runs the whole decode cascade up to the time budget. Bytes after IEND make each copy
 * different, so none is answered from the same-image replay cache.
 */
export async function slowBlankPngs(n: number): Promise<Buffer[]> {
  const png = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#ffffff' } })
    .png({ compressionLevel: 9 })
    .toBuffer();
  return Array.from({ length: n }, (_, i) => Buffer.concat([png, Buffer.from(`#${i}`)]));
}

/** Copy `i` of an image, different in bytes the readers ignore (after IEND / EOI): no replay cache hit. */
export const variantOf = (img: Buffer, i: number) => Buffer.concat([img, Buffer.from(`#${i}`)]);

/**
 * A blank 24 MP progressive JPEG without chroma subsampling (~275 KB): libjpeg keeps all 72 M
 * coefficients of a progressive image for its scans, ~0.75 s of CPU before the cascade scans
 * anything (a CMYK one, 96 M samples, ~1.5 s): past the 2 s kill limit on a loaded machine.
 */
export async function bigProgressiveJpeg(): Promise<Buffer> {
  return sharp({ create: { width: 6000, height: 4000, channels: 3, background: '#ffffff' } })
    .jpeg({ progressive: true, chromaSubsampling: '4:4:4' })
    .toBuffer();
}

/**
 * A blank 24 MP interlaced RGBA PNG (~480 KB): Adam7 makes libpng hand over the whole image at once
 * (no row streaming), 96 MB of pixels flattened and resized: ~0.8 s of CPU for the first rendition.
 */
export async function bigInterlacedPng(): Promise<Buffer> {
  return sharp({ create: { width: 6000, height: 4000, channels: 4, background: '#ffffff80' } })
    .png({ progressive: true })
    .toBuffer();
}
