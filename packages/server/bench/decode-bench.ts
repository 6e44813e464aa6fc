// Slip QR decode benchmark (issue 24): the service's cascade against zxing-wasm's own readBarcodes
// (tryHarder) and jsQR, side by side in one run, on a corpus shaped like real traffic
// (bench/slip-corpus.ts). One thread, sequential, CPU time per image.
// Run: `npx tsx bench/decode-bench.ts [--scale 0.5] [--only chat800,thumb] [--no-jsqr]`.
import { availableParallelism, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import jsQRImport from 'jsqr';
import sharp from 'sharp';
import { readBarcodes } from 'zxing-wasm/reader';
import { decodeSlipImage, parseSlipPayload } from '../src/modules/slip-qr/index.js';
import { loadZXing } from '../src/modules/slip-qr/slip-qr-zxing.js';
import { buildNonSlipCorpus, buildSlipCorpus, corpusShape, ORIGINAL_VARIANTS, type CorpusImage } from './slip-corpus.js';
import { quantile } from './quantile.js';

// jsqr is a CJS bundle whose default export arrives wrapped under some loaders.
type JsQR = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsqrModule = jsQRImport as unknown as JsQR | { default: JsQR };
const jsQR: JsQR = typeof jsqrModule === 'function' ? jsqrModule : jsqrModule.default;

export interface BenchOptions {
  /** Multiplies the corpus' per-variant counts (default 1: 320 slips, 18 non-slips). */
  scale?: number;
  /** Only these corpus variants. */
  only?: readonly string[];
  /** Run jsQR too (default true). */
  jsqr?: boolean;
  /** Each non-slip image is decoded by the cascade this many times (default 2). */
  nonSlipRepeats?: number;
  log?: (line: string) => void;
}

type DecoderName = 'cascade' | 'zxing' | 'jsqr';

/** One decoder on one image. */
interface Run {
  /** First slip payload the decoder gave (null: none). */
  answer: string | null;
  cpu: number;
  wall: number;
  pass?: string;
}

export interface DecoderStats {
  total: number;
  read: number;
  /** A slip payload that is not the image's (on a non-slip: any slip payload). */
  wrong: number;
  /** CPU ms per decoded slip: over the images this decoder read. */
  cpuMedian: number;
  cpuP95: number;
  /** CPU ms over every image, read or not. */
  cpuMedianAll: number;
  wallMedian: number;
}

export interface BenchRow {
  variant: string;
  n: number;
  width: number;
  height: number;
  kb: number;
  cascade: DecoderStats;
  zxing: DecoderStats;
  jsqr?: DecoderStats;
  /** Images zxing or jsQR read. */
  unionRead?: number;
  passes: Record<string, number>;
  /** Cascade CPU medians per image: open (gate, header), luma (file to one channel), scans in the reading pass, scans before it. */
  profile: { open: number; luma: number; readingPass: number; before: number };
}

export interface BenchReport {
  rows: BenchRow[];
  total: Omit<BenchRow, 'variant' | 'profile'>;
  originals: { read: number; total: number };
  shape: ReturnType<typeof corpusShape>;
  nonSlip: {
    images: number;
    decodes: number;
    cascadeCpuMedian: number;
    cascadeCpuP95: number;
    cascadeWallP95: number;
    falseDecodes: Record<DecoderName, number>;
    byKind: Record<string, number>;
  };
  targets: Record<string, { ok: boolean; text: string }>;
  loadBefore: number[];
  loadAfter: number[];
  cores: number;
  seconds: number;
}

function firstSlip(texts: Iterable<string>): string | null {
  for (const t of texts) {
    const p = parseSlipPayload(t);
    if (p.ok) return p.payload;
  }
  return null;
}

async function timed(f: () => Promise<Omit<Run, 'cpu' | 'wall'>>): Promise<Run> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await f();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ...r, wall, cpu: (c.user + c.system) / 1000 };
}

/**
 * The baselines decode the file the same way: sharp, full size, to 8-bit RGBA (what ImageData holds);
 * their timings include that decode, as the cascade's include its own (gate, header, libvips decode).
 */
async function rgba(image: Buffer): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/** zxing-wasm as documented: readBarcodes(ImageData, { formats: QR, tryHarder }); the other options are the library's defaults. */
async function zxingDecode(image: Buffer): Promise<Omit<Run, 'cpu' | 'wall'>> {
  const img = await rgba(image);
  const results = await readBarcodes({ ...img, colorSpace: 'srgb' } as ImageData, { formats: ['QRCode'], tryHarder: true });
  return { answer: firstSlip(results.filter((r) => r.isValid).map((r) => r.text)) };
}

async function jsqrDecode(image: Buffer): Promise<Omit<Run, 'cpu' | 'wall'>> {
  const img = await rgba(image);
  const code = jsQR(img.data, img.width, img.height);
  return { answer: code ? firstSlip([code.data]) : null };
}

interface CascadeProfile {
  open: number;
  luma: number;
  readingPass: number;
  before: number;
}

async function cascadeDecode(image: Buffer, profile?: CascadeProfile[]): Promise<Omit<Run, 'cpu' | 'wall'>> {
  const stages: [string, number][] = [];
  const r = await decodeSlipImage(image, profile ? { onStage: (s, ms) => stages.push([s, ms]) } : {});
  if (profile) {
    const p: CascadeProfile = { open: 0, luma: 0, readingPass: 0, before: 0 };
    const reading = r.ok ? r.pass : undefined;
    for (const [s, ms] of stages) {
      if (s === 'open') p.open += ms;
      else if (s === 'luma') p.luma += ms;
      else if (s === reading) p.readingPass += ms;
      else p.before += ms;
    }
    profile.push(p);
  }
  return r.ok ? { answer: r.payload, pass: r.pass } : { answer: null };
}

const DECODERS: Record<DecoderName, (image: Buffer) => Promise<Omit<Run, 'cpu' | 'wall'>>> = {
  cascade: (image) => cascadeDecode(image),
  zxing: zxingDecode,
  jsqr: jsqrDecode,
};

function stats(images: readonly CorpusImage[], runs: readonly Run[]): DecoderStats {
  let read = 0;
  let wrong = 0;
  const readCpu: number[] = [];
  images.forEach((img, i) => {
    const r = runs[i]!;
    if (r.answer !== null && r.answer === img.payload) {
      read++;
      readCpu.push(r.cpu);
    } else if (r.answer !== null) wrong++;
  });
  return {
    total: images.length,
    read,
    wrong,
    cpuMedian: quantile(readCpu, 0.5),
    cpuP95: quantile(readCpu, 0.95),
    cpuMedianAll: quantile(
      runs.map((r) => r.cpu),
      0.5,
    ),
    wallMedian: quantile(
      runs.map((r) => r.wall),
      0.5,
    ),
  };
}

function unionRead(images: readonly CorpusImage[], a: readonly Run[], b: readonly Run[]): number {
  return images.filter((img, i) => a[i]!.answer === img.payload || b[i]!.answer === img.payload).length;
}

export async function runDecodeBench(options: BenchOptions = {}): Promise<BenchReport> {
  const t0 = performance.now();
  const loadBefore = loadavg();
  const log = options.log ?? (() => undefined);
  const withJsqr = options.jsqr ?? true;
  const names: DecoderName[] = withJsqr ? ['cascade', 'zxing', 'jsqr'] : ['cascade', 'zxing'];

  await loadZXing();
  // Every image is rendered before any timing: rendering leaves garbage and busy libvips threads
  // behind that would otherwise be charged to the decoders.
  const slips = await buildSlipCorpus({ scale: options.scale, only: options.only, log });
  const nonSlips = await buildNonSlipCorpus({ only: options.only });
  log(`corpus: ${slips.length} slips, ${nonSlips.length} non-slips (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  // Warm-up: wasm instantiation, libvips start-up and JIT are not per-image costs.
  for (const img of [slips[0], slips.at(-1)]) if (img) for (const d of names) await DECODERS[d](img.image);
  await new Promise((r) => setTimeout(r, 200));

  const variants = [...new Set(slips.map((s) => s.variant))];
  const runs: Record<DecoderName, Run[]> = { cascade: [], zxing: [], jsqr: [] };
  const profiles: CascadeProfile[] = [];
  const rows: BenchRow[] = [];
  for (const variant of variants) {
    const imgs = slips.filter((s) => s.variant === variant);
    const mine: Record<DecoderName, Run[]> = { cascade: [], zxing: [], jsqr: [] };
    const prof: CascadeProfile[] = [];
    // Decoders run in separate loops: interleaving them lets one's garbage land on the other's clock.
    for (const img of imgs) mine.cascade.push(await timed(() => cascadeDecode(img.image)));
    for (const d of names.slice(1)) for (const img of imgs) mine[d].push(await timed(() => DECODERS[d](img.image)));
    // Profiled once more, apart: the stage clock's own cost stays out of the timings above.
    for (const img of imgs) await cascadeDecode(img.image, prof);
    const passes: Record<string, number> = {};
    imgs.forEach((img, i) => {
      const r = mine.cascade[i]!;
      if (r.pass && r.answer === img.payload) passes[r.pass] = (passes[r.pass] ?? 0) + 1;
    });
    const shape = corpusShape(imgs);
    rows.push({
      variant,
      n: imgs.length,
      width: shape.width,
      height: shape.height,
      kb: shape.kb,
      cascade: stats(imgs, mine.cascade),
      zxing: stats(imgs, mine.zxing),
      jsqr: withJsqr ? stats(imgs, mine.jsqr) : undefined,
      unionRead: withJsqr ? unionRead(imgs, mine.zxing, mine.jsqr) : undefined,
      passes,
      profile: {
        open: quantile(
          prof.map((p) => p.open),
          0.5,
        ),
        luma: quantile(
          prof.map((p) => p.luma),
          0.5,
        ),
        readingPass: quantile(
          prof.map((p) => p.readingPass),
          0.5,
        ),
        before: quantile(
          prof.map((p) => p.before),
          0.5,
        ),
      },
    });
    for (const d of names) runs[d].push(...mine[d]);
    profiles.push(...prof);
    const row = rows.at(-1)!;
    log(
      `${variant}: cascade ${row.cascade.read}/${row.n}, zxing ${row.zxing.read}/${row.n}` +
        (row.jsqr ? `, jsQR ${row.jsqr.read}/${row.n}` : '') +
        ` (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
    );
  }
  // Runs were pushed variant by variant: line the images up the same way.
  const ordered = variants.flatMap((v) => slips.filter((s) => s.variant === v));
  const allPasses: Record<string, number> = {};
  for (const row of rows) for (const [k, v] of Object.entries(row.passes)) allPasses[k] = (allPasses[k] ?? 0) + v;
  const shape = corpusShape(ordered);
  const total = {
    n: ordered.length,
    width: shape.width,
    height: shape.height,
    kb: shape.kb,
    cascade: stats(ordered, runs.cascade),
    zxing: stats(ordered, runs.zxing),
    jsqr: withJsqr ? stats(ordered, runs.jsqr) : undefined,
    unionRead: withJsqr ? unionRead(ordered, runs.zxing, runs.jsqr) : undefined,
    passes: allPasses,
  };
  const originals = rows
    .filter((r) => (ORIGINAL_VARIANTS as readonly string[]).includes(r.variant))
    .reduce((a, r) => ({ read: a.read + r.cascade.read, total: a.total + r.n }), { read: 0, total: 0 });

  // Non-slip images: nothing may decode as a slip, and a miss must not cost much.
  const repeats = options.nonSlipRepeats ?? 2;
  const nonCpu: number[] = [];
  const nonWall: number[] = [];
  const falseDecodes: Record<DecoderName, number> = { cascade: 0, zxing: 0, jsqr: 0 };
  const byKind: Record<string, number[]> = {};
  for (const img of nonSlips) {
    for (let i = 0; i < repeats; i++) {
      const r = await timed(() => cascadeDecode(img.image));
      nonCpu.push(r.cpu);
      nonWall.push(r.wall);
      (byKind[img.variant] ??= []).push(r.cpu);
      if (r.answer !== null) falseDecodes.cascade++;
    }
    for (const d of names.slice(1)) if ((await DECODERS[d](img.image)).answer !== null) falseDecodes[d]++;
  }
  const nonSlip = {
    images: nonSlips.length,
    decodes: nonCpu.length,
    cascadeCpuMedian: quantile(nonCpu, 0.5),
    cascadeCpuP95: quantile(nonCpu, 0.95),
    cascadeWallP95: quantile(nonWall, 0.95),
    falseDecodes,
    byKind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, quantile(v, 0.95)])),
  };

  const c = total.cascade;
  const z = total.zxing;
  const byName = (v: string) => rows.find((r) => r.variant === v);
  const t = (ok: boolean, text: string) => ({ ok, text });
  const targets: BenchReport['targets'] = {
    median10: t(c.cpuMedian <= 10, `median CPU per decoded slip <= 10 ms (${ms(c.cpuMedian)} ms)`),
    medianVsZxing: t(
      c.cpuMedian <= z.cpuMedian,
      `median CPU per decoded slip <= zxing tryHarder's (${ms(c.cpuMedian)} vs ${ms(z.cpuMedian)} ms)`,
    ),
    moreThanZxing: t(c.read > z.read, `reads more slips than zxing tryHarder (${c.read} vs ${z.read})`),
    ...(total.jsqr
      ? {
          moreThanJsqr: t(c.read > total.jsqr.read, `reads more than jsQR (${c.read} vs ${total.jsqr.read})`),
          moreThanUnion: t(c.read > (total.unionRead ?? 0), `reads more than zxing and jsQR together (${c.read} vs ${total.unionRead})`),
        }
      : {}),
    nonSlipP95: t(nonSlip.cascadeCpuP95 <= 100, `p95 CPU on non-slip images <= 100 ms (${ms(nonSlip.cascadeCpuP95)} ms)`),
    zeroFalse: t(
      c.wrong === 0 && falseDecodes.cascade === 0,
      `0 false decodes (${c.wrong} wrong payloads on slips, ${falseDecodes.cascade} slips decoded on non-slips)`,
    ),
    originals: t(
      originals.read / Math.max(1, originals.total) >= 0.995,
      `>= 99.5% of the sandbox bank's own variants decoded (${originals.read}/${originals.total})`,
    ),
    cleanJpg: t(
      (byName('clean-jpg')?.cascade.cpuMedian ?? Infinity) <= 15,
      `1080x1900 JPEG median CPU <= 15 ms (${ms(byName('clean-jpg')?.cascade.cpuMedian ?? NaN)} ms)`,
    ),
    camera12mp: t(
      (byName('camera12mp')?.cascade.cpuMedian ?? Infinity) <= 100,
      `12 MP photo median CPU <= 100 ms (${ms(byName('camera12mp')?.cascade.cpuMedian ?? NaN)} ms)`,
    ),
  };
  return {
    rows,
    total,
    originals,
    shape,
    nonSlip,
    targets,
    loadBefore,
    loadAfter: loadavg(),
    cores: availableParallelism(),
    seconds: (performance.now() - t0) / 1000,
  };
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '-');
const rate = (read: number, n: number) => `${read}/${n} (${((100 * read) / Math.max(1, n)).toFixed(0)}%)`;
const cpu = (s: DecoderStats) => `${ms(s.cpuMedian)} / ${ms(s.cpuP95)}`;
const share = (passes: Record<string, number>, read: number) =>
  Object.entries(passes)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${((100 * v) / Math.max(1, read)).toFixed(0)}%`)
    .join(', ');

export function formatBenchTable(r: BenchReport): string {
  const jsqr = r.total.jsqr !== undefined;
  const head = ['variant', 'n', 'median size', 'median KB', 'cascade read', 'cascade CPU ms med / p95', 'cascade passes (share of reads)'];
  head.push('zxing read', 'zxing CPU ms med / p95');
  if (jsqr) head.push('jsQR read', 'jsQR CPU ms med / p95', 'zxing ∪ jsQR read');
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  const line = (name: string, x: Omit<BenchRow, 'variant' | 'profile'>) => {
    const cells = [
      name,
      String(x.n),
      `${x.width}x${x.height}`,
      x.kb.toFixed(0),
      rate(x.cascade.read, x.n) + (x.cascade.wrong ? ` **${x.cascade.wrong} wrong**` : ''),
      cpu(x.cascade),
      share(x.passes, x.cascade.read),
      rate(x.zxing.read, x.n) + (x.zxing.wrong ? ` (${x.zxing.wrong} wrong)` : ''),
      cpu(x.zxing),
    ];
    if (x.jsqr)
      cells.push(rate(x.jsqr.read, x.n) + (x.jsqr.wrong ? ` (${x.jsqr.wrong} wrong)` : ''), cpu(x.jsqr), rate(x.unionRead ?? 0, x.n));
    lines.push(`| ${cells.join(' | ')} |`);
  };
  for (const row of r.rows) line(row.variant, row);
  line('**whole corpus**', r.total);
  const t = r.total;
  lines.push(
    '',
    `Corpus: ${t.n} slip images, median ${t.width}x${t.height} px and ${t.kb.toFixed(0)} KB, ${(100 * r.shape.narrowShare).toFixed(0)}% of them 200-400 px wide ` +
      `(real traffic: median 720x1024 and ~96 KB, a quarter 200-400 px wide). CPU median over every image, read or not: ` +
      `cascade ${ms(t.cascade.cpuMedianAll)} ms, zxing ${ms(t.zxing.cpuMedianAll)} ms${t.jsqr ? `, jsQR ${ms(t.jsqr.cpuMedianAll)} ms` : ''}.`,
    '',
    `Non-slip images (photos, the PromptPay QR alone, blank pages, screenshots without a slip; as sent and through a chat app): ${r.nonSlip.images} images, ` +
      `${r.nonSlip.decodes} cascade decodes, CPU median ${ms(r.nonSlip.cascadeCpuMedian)} ms, p95 ${ms(r.nonSlip.cascadeCpuP95)} ms (wall p95 ${ms(r.nonSlip.cascadeWallP95)} ms); ` +
      `p95 by kind: ${Object.entries(r.nonSlip.byKind)
        .map(([k, v]) => `${k} ${ms(v)}`)
        .join(', ')}. False decodes: cascade ${r.nonSlip.falseDecodes.cascade}, zxing ${r.nonSlip.falseDecodes.zxing}` +
      (jsqr ? `, jsQR ${r.nonSlip.falseDecodes.jsqr}` : '') +
      '.',
    '',
    '### Where the cascade spends its CPU (medians per image, ms)',
    '',
    '| variant | open (gate, header) | luma (decode, resize, channel) | passes before the reading one | reading pass |',
    '|---|---|---|---|---|',
    ...r.rows.map(
      (x) => `| ${x.variant} | ${ms(x.profile.open)} | ${ms(x.profile.luma)} | ${ms(x.profile.before)} | ${ms(x.profile.readingPass)} |`,
    ),
    '',
    `Load average (1, 5, 15 min) before ${r.loadBefore.map((x) => x.toFixed(1)).join(', ')}, after ${r.loadAfter.map((x) => x.toFixed(1)).join(', ')} on ${r.cores} cores; ` +
      `${r.seconds.toFixed(0)} s. CPU = process CPU time (all threads) per image, which a busy machine inflates far less than wall time.`,
    '',
    'Targets:',
    '',
    ...Object.values(r.targets).map((x) => `- ${x.ok ? 'PASS' : 'FAIL'}: ${x.text}`),
  );
  return lines.join('\n');
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const report = await runDecodeBench({
    scale: Number(argValue(args, '--scale') ?? 1),
    only: argValue(args, '--only')?.split(','),
    jsqr: !args.includes('--no-jsqr'),
    log: (l) => process.stderr.write(`${l}\n`),
  });
  process.stdout.write(`${formatBenchTable(report)}\n`);
  process.exit(0);
}
