// Where the decode time goes, stage by stage, on the real-traffic corpus (issue 24). Each stage is
// run on its own, so the decode, the resize and the channel extraction that one libvips pipeline
// does together can be told apart. Run: `npx tsx bench/decode-profile.ts [--scale 0.3] [--only thumb]`.
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { parseSlipPayload } from '../src/modules/slip-qr/index.js';
import { loadZXing, scanLuma, type LumaImage, type ScanOptions } from '../src/modules/slip-qr/slip-qr-zxing.js';
import { buildSlipCorpus, type CorpusImage } from './slip-corpus.js';

sharp.cache(false);
sharp.concurrency(1);

function cpuOf(f: () => Promise<unknown>): Promise<number> {
  const c0 = process.cpuUsage();
  return f().then(() => {
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000;
  });
}

/** Median CPU ms of `reps` runs. */
async function cost(f: () => Promise<unknown>, reps: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < reps; i++) xs.push(await cpuOf(f));
  xs.sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)]!;
}

async function luma(img: Buffer, maxSide?: number): Promise<LumaImage> {
  let p = sharp(img);
  if (maxSide) p = p.resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true, kernel: 'linear' });
  const { data, info } = await p.extractChannel(1).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

const SCANS: Record<string, ScanOptions> = {
  plain: {},
  tryHarder: { tryHarder: true },
  hard: { tryHarder: true, tryRotate: true, tryInvert: true, tryDownscale: true },
};

export interface StageRow {
  variant: string;
  n: number;
  stages: Record<string, number>;
  reads: Record<string, number>;
}

export async function runDecodeProfile(opts: { scale?: number; only?: string[]; reps?: number } = {}): Promise<StageRow[]> {
  await loadZXing();
  const reps = opts.reps ?? 3;
  const corpus = await buildSlipCorpus({ scale: opts.scale ?? 0.3, only: opts.only });
  const variants = [...new Set(corpus.map((c) => c.variant))];
  const rows: StageRow[] = [];
  for (const variant of variants) {
    const imgs: CorpusImage[] = corpus.filter((c) => c.variant === variant);
    const acc: Record<string, number[]> = {};
    const reads: Record<string, number> = {};
    const add = (k: string, v: number) => (acc[k] ??= []).push(v);
    for (const c of imgs) {
      add('metadata', await cost(() => sharp(c.image).metadata(), reps));
      add('decode RGB', await cost(() => sharp(c.image).raw().toBuffer(), reps));
      add('decode RGBA', await cost(() => sharp(c.image).ensureAlpha().raw().toBuffer(), reps));
      add('decode + green', await cost(() => luma(c.image), reps));
      add('decode + grey', await cost(() => sharp(c.image).greyscale().raw().toBuffer(), reps));
      add('decode + resize 800 + green', await cost(() => luma(c.image, 800), reps));
      const rgba = await sharp(c.image).ensureAlpha().raw().toBuffer();
      add(
        'RGBA to luma (JS)',
        await cost(async () => {
          const out = new Uint8Array(rgba.length >> 2);
          for (let i = 0, j = 0; j < out.length; i += 4, j++)
            out[j] = (306 * rgba[i]! + 601 * rgba[i + 1]! + 117 * rgba[i + 2]! + 512) >> 10;
        }, reps),
      );
      const native = await luma(c.image);
      const small = await luma(c.image, 800);
      for (const [name, o] of Object.entries(SCANS)) {
        for (const [size, img] of [
          ['native', native],
          ['800', small],
        ] as const) {
          if (size === '800' && Math.max(native.width, native.height) <= 800) continue;
          const key = `scan ${name} @${size}`;
          add(key, await cost(() => scanLuma(img, o), reps));
          const hits = await scanLuma(img, o);
          const slip = (text: string) => {
            const p = parseSlipPayload(text);
            return p.ok ? p.payload : null;
          };
          if (hits.some((h) => h.valid && slip(h.text) === c.payload)) reads[key] = (reads[key] ?? 0) + 1;
        }
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    rows.push({ variant, n: imgs.length, stages: Object.fromEntries(Object.entries(acc).map(([k, v]) => [k, med(v)])), reads });
    process.stderr.write(`${variant} done\n`);
  }
  return rows;
}

export function formatDecodeProfile(rows: StageRow[]): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r.stages)))];
  const lines = [`| variant | n | ${keys.join(' | ')} |`, `|---|---|${keys.map(() => '---').join('|')}|`];
  for (const r of rows) {
    const cells = keys.map((k) => {
      const v = r.stages[k];
      if (v === undefined) return '-';
      return k.startsWith('scan') ? `${v.toFixed(1)} (${r.reads[k] ?? 0}/${r.n})` : v.toFixed(1);
    });
    lines.push(`| ${r.variant} | ${r.n} | ${cells.join(' | ')} |`);
  }
  lines.push('', 'CPU ms, median per image (each stage run alone, median of 3); scans: (images read / images).');
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const arg = (n: string) => {
    const i = args.indexOf(n);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const rows = await runDecodeProfile({ scale: Number(arg('--scale') ?? 0.3), only: arg('--only')?.split(',') });
  process.stdout.write(`${formatDecodeProfile(rows)}\n`);
  process.exit(0);
}
