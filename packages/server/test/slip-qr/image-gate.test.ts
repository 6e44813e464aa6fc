import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { generateSlip, VARIANTS } from '@slipcheck/sandbox-bank';
import { JPEG_LIMITS, PNG_LIMITS, screenImage } from '../../src/modules/slip-qr/image-gate.js';
import {
  buildPng,
  exifBombJpeg,
  hugeIccJpeg,
  hugeIccpPng,
  manyScansJpeg,
  otherFormats,
  pngChunk,
  pngChunks,
  tinyIdatsPng,
  tinyPng,
  ztxtBombPng,
} from './hostile-images.js';

// CPU time, not wall time: the gate is synchronous, so this process's CPU during the call is its cost,
// while a loaded full run can preempt the call for longer than the bound.
const timed = (b: Buffer) => {
  const c = process.cpuUsage();
  const r = screenImage(b);
  const used = process.cpuUsage(c);
  return { r, ms: (used.user + used.system) / 1000 };
};

describe('image gate: what a slip needs passes', () => {
  it('every sandbox bank render (all effects, JPEG and PNG) passes, with its size', async () => {
    for (const variant of VARIANTS) {
      for (const format of ['png', 'jpg'] as const) {
        const slip = await generateSlip({ variant, format });
        const meta = await sharp(slip.image).metadata();
        expect(screenImage(slip.image), `${variant}.${format}`).toEqual({
          ok: true,
          format: format === 'jpg' ? 'jpeg' : 'png',
          width: meta.width,
          height: meta.height,
        });
      }
    }
  }, 120_000);

  it('passes what phones and editors write: progressive and mozjpeg JPEGs, EXIF and ICC, interlaced, palette, 16-bit and alpha PNGs, text and trailing bytes', async () => {
    const base = () => sharp({ create: { width: 600, height: 1000, channels: 3, background: '#fafafa' } });
    const images = {
      progressive: await base().jpeg({ progressive: true }).toBuffer(),
      mozjpeg: await base().jpeg({ mozjpeg: true }).toBuffer(),
      exifIcc: await base()
        .withMetadata({ exif: { IFD0: { Make: 'Phone', Model: 'X' } } })
        .withIccProfile('p3')
        .jpeg()
        .toBuffer(),
      grey: await base().greyscale().jpeg().toBuffer(),
      interlaced: await base().png({ progressive: true }).toBuffer(),
      palette: await base().png({ palette: true }).toBuffer(),
      sixteen: await base().png().toColourspace('rgb16').toBuffer(),
      alpha: await sharp({ create: { width: 600, height: 1000, channels: 4, background: '#fafafa80' } })
        .png()
        .toBuffer(),
      iccPng: await base().withIccProfile('p3').png().toBuffer(),
    };
    for (const [name, img] of Object.entries(images)) expect(screenImage(img), name).toMatchObject({ ok: true, width: 600, height: 1000 });
    // A macOS-style screenshot: uncompressed iTXt XMP, a zTXt, Apple's private iDOT chunk, and bytes after IEND.
    const png = pngChunks(images.palette);
    const extra = [
      pngChunk('iTXt', Buffer.from('XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta>' + 'x'.repeat(800) + '</x:xmpmeta>', 'latin1')),
      pngChunk('zTXt', Buffer.concat([Buffer.from('Software\0\0', 'latin1'), (await import('node:zlib')).deflateSync('Screenshot')])),
      pngChunk('iDOT', Buffer.alloc(28)),
    ];
    expect(screenImage(Buffer.concat([buildPng(png, extra), Buffer.from('trailing')]))).toMatchObject({ ok: true });
  });
});

describe('image gate: hostile images are refused in milliseconds', () => {
  it('refuses each bomb kind, fast', async () => {
    const cases: [string, Buffer, RegExp][] = [
      ['zTXt bomb (the issue: 40 x 50 MB of zeros)', await ztxtBombPng(40), /text metadata/],
      ['one small zTXt (10 KB) that inflates to 10 MB', await ztxtBombPng(1, 10), /inflates to more than/],
      ['huge iCCP', await hugeIccpPng(), /colour profile inflates/],
      ['thousands of tiny IDAT chunks', await tinyIdatsPng(5000), /too many small PNG data chunks/],
      ['progressive JPEG with 3000 scans', await manyScansJpeg(3000), /too many progressive scans/],
      ['EXIF bomb', await exifBombJpeg(30), /more than one EXIF block/],
      ['1 MB ICC profile in APP2', await hugeIccJpeg(), /too much metadata/],
    ];
    for (const [name, img, reason] of cases) {
      const { r, ms } = timed(img);
      expect(r, name).toMatchObject({ ok: false, message: expect.stringMatching(reason) });
      expect(ms, name).toBeLessThan(100);
    }
  }, 60_000);

  it('refuses every other format sharp reads (GIF, TIFF, WebP, SVG, AVIF/HEIF when this libvips writes them)', async () => {
    const formats = await otherFormats();
    expect(Object.keys(formats)).toEqual(expect.arrayContaining(['gif', 'tiff', 'webp', 'svg']));
    for (const [name, img] of Object.entries(formats)) {
      expect(await sharp(img).metadata(), `sharp reads ${name}`).toMatchObject({ width: 300 }); // a real image of that kind
      expect(screenImage(img), name).toMatchObject({ ok: false, format: 'other', message: expect.stringContaining('JPEG or PNG') });
    }
  });

  it('refuses unknown critical chunks, APNG, oversized pixel data and an EXIF chunk over the cap', async () => {
    const png = pngChunks(await tinyPng());
    expect(screenImage(buildPng(png, [pngChunk('ZZZZ', Buffer.alloc(4))]))).toMatchObject({ ok: false, message: /critical/ });
    expect(screenImage(buildPng(png, [pngChunk('acTL', Buffer.alloc(8))]))).toMatchObject({ ok: false, message: /animated/ });
    expect(screenImage(buildPng(png, [pngChunk('eXIf', Buffer.alloc(PNG_LIMITS.exifBytes + 1))]))).toMatchObject({
      ok: false,
    });
    // 16-bit RGBA at 4000x4000 claims 128 MB of pixels (over the cap; within the 24 MP limit).
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(4000, 0);
    ihdr.writeUInt32BE(4000, 4);
    ihdr[8] = 16;
    ihdr[9] = 6;
    expect(screenImage(buildPng([{ type: 'IHDR', data: ihdr }, ...png.slice(1)]))).toMatchObject({
      ok: false,
      message: /larger than a slip/,
    });
    expect(JPEG_LIMITS.scans).toBeLessThan(3000);
  });

  it('refuses progressive JPEGs with more samples than a 24 MP 4:2:0 photo (all coefficients are kept for the scans); keeps that photo and baseline ones', async () => {
    // Small real JPEGs whose frame header is given another size: the gate reads headers only.
    const resized = async (
      opts: { progressive: boolean; subsampling: '4:2:0' | '4:4:4'; cmyk?: boolean },
      width: number,
      height: number,
    ) => {
      let p = sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } });
      if (opts.cmyk) p = p.toColourspace('cmyk');
      const jpeg = Buffer.from(await p.jpeg({ progressive: opts.progressive, chromaSubsampling: opts.subsampling }).toBuffer());
      const sof = jpeg.indexOf(Buffer.from([0xff, opts.progressive ? 0xc2 : 0xc0]));
      jpeg.writeUInt16BE(height, sof + 5);
      jpeg.writeUInt16BE(width, sof + 7);
      return jpeg;
    };
    const refused: [string, Buffer][] = [
      ['24 MP 4:4:4 progressive (72 M samples)', await resized({ progressive: true, subsampling: '4:4:4' }, 6000, 4000)],
      ['24 MP CMYK progressive (96 M samples)', await resized({ progressive: true, subsampling: '4:4:4', cmyk: true }, 6000, 4000)],
      ['12 MP CMYK progressive (48 M samples)', await resized({ progressive: true, subsampling: '4:4:4', cmyk: true }, 4000, 3000)],
    ];
    for (const [name, img] of refused)
      expect(screenImage(img), name).toMatchObject({ ok: false, message: /progressive image .* more samples/ });
    const kept: [string, Buffer][] = [
      ['24 MP 4:2:0 progressive (36 M samples)', await resized({ progressive: true, subsampling: '4:2:0' }, 6000, 4000)],
      ['12 MP 4:4:4 progressive', await resized({ progressive: true, subsampling: '4:4:4' }, 4000, 3000)],
      ['24 MP 4:4:4 baseline', await resized({ progressive: false, subsampling: '4:4:4' }, 6000, 4000)],
      ['24 MP CMYK baseline', await resized({ progressive: false, subsampling: '4:4:4', cmyk: true }, 6000, 4000)],
    ];
    for (const [name, img] of kept) expect(screenImage(img), name).toMatchObject({ ok: true });
  });

  it('refuses interlaced PNGs whose pixels inflate past 48 MB (decoded whole, not row by row); keeps a 12 MP RGBA one and non-interlaced 24 MP', async () => {
    const resized = async (interlaced: boolean, width: number, height: number) => {
      const png = pngChunks(
        await sharp({ create: { width: 64, height: 64, channels: 4, background: '#ffffff80' } })
          .png({ progressive: interlaced })
          .toBuffer(),
      );
      const ihdr = Buffer.from(png[0]!.data);
      ihdr.writeUInt32BE(width, 0);
      ihdr.writeUInt32BE(height, 4);
      return buildPng([{ type: 'IHDR', data: ihdr }, ...png.slice(1)]);
    };
    expect(screenImage(await resized(true, 6000, 4000))).toMatchObject({ ok: false, message: /interlaced image .* more pixel data/ });
    expect(screenImage(await resized(true, 4000, 3000))).toMatchObject({ ok: true });
    expect(screenImage(await resized(false, 6000, 4000))).toMatchObject({ ok: true });
  });
});

describe('image gate: fuzz', () => {
  // Any bytes at all: the gate answers ok or a refusal, never throws, and stays fast.
  const seeds = Promise.all([
    sharp({ create: { width: 40, height: 60, channels: 3, background: '#123456' } })
      .png()
      .toBuffer(),
    sharp({ create: { width: 40, height: 60, channels: 3, background: '#123456' } })
      .jpeg({ progressive: true })
      .toBuffer(),
    sharp({ create: { width: 40, height: 60, channels: 3, background: '#123456' } })
      .jpeg()
      .toBuffer(),
  ]);
  const check = (b: Buffer) => {
    const r = screenImage(b);
    expect(typeof r.ok).toBe('boolean');
    if (!r.ok) expect(r.message.length).toBeGreaterThan(0);
  };

  it('truncated, garbled and spliced PNG/JPEG bytes never throw', async () => {
    const [png, jpeg, baseline] = await seeds;
    const seed = fc.constantFrom(png, jpeg, baseline);
    fc.assert(
      fc.property(seed, fc.nat(), (img, cut) => check(img.subarray(0, cut % (img.length + 1)))),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(seed, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 20 }), (img, edits) => {
        const b = Buffer.from(img);
        for (const [at, v] of edits) b[at % b.length] = v;
        check(b);
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(seed, fc.nat(), fc.uint8Array({ maxLength: 200 }), (img, at, junk) => {
        const i = at % img.length;
        check(Buffer.concat([img.subarray(0, i), Buffer.from(junk), img.subarray(i)]));
      }),
      { numRuns: 500 },
    );
  });

  it('random bytes behind a PNG or JPEG signature never throw', () => {
    const sig = fc.constantFrom(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from([0xff, 0xd8, 0xff]));
    fc.assert(
      fc.property(sig, fc.uint8Array({ maxLength: 400 }), (s, rest) => check(Buffer.concat([s, Buffer.from(rest)]))),
      { numRuns: 2000 },
    );
  });
});
