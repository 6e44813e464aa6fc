// Edited-slip reading (issue 20): detection on edited renders per layout and effect, false FRAUD and
// read rate on genuine renders, printed time read rate, and the reader's cost
// against a baseline in the same run (CPU per verify, wall time beside a 300 ms checker, decode rate
// and peak RSS of a decoder process with the reader on and off).
// `npx tsx packages/server/bench/run.ts edited` (defaults: 2,000 genuine renders, 2 edited renders per
// layout x effect x edit x edit face, 2 shard processes). BENCH_GENUINE, BENCH_EDITED_PER, BENCH_SHARDS,
// BENCH_POOL_N override. Edits are typed in another face (an image editor) and in the layout's own
// (a slip-maker app: only the number differs from a genuine slip); the headline counts both.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  EDIT_FACES,
  EDITS,
  LAYOUTS,
  VARIANTS,
  editedSatang,
  generateSlip,
  prng,
  type EditFace,
  type EditKind,
  type Layout,
  type Variant,
} from '@slipcheck/sandbox-bank';
import { readPrintedAmount } from '../src/modules/slip-qr/slip-qr-amount.js';
import { decodeSlipImage } from '../src/modules/slip-qr/slip-qr-decoder.js';
import { ocrEngine, warmOcr } from '../src/modules/slip-qr/slip-qr-ocr.js';
import { createSlipDecoderPool } from '../src/modules/slip-qr/slip-qr-pool.js';
import { PRINTED_MIN_CONFIDENCE } from '../src/modules/verification/printed-amount.js';

/**
 * Layouts never looked at while the reader was developed and tuned. `bbl` and `krungsri` (tlwg
 * faces) were held out from the start; `gsb` and `ttb` were added later with Latin faces from other
 * Debian font packages (Liberation Sans, DejaVu Sans) and never looked at before this bench ran.
 */
export const HOLD_OUT: Layout[] = ['bbl', 'krungsri', 'gsb', 'ttb'];
const EFFECTS: Variant[] = VARIANTS.filter((v) => v !== 'smallqr' && v !== 'twoqr');

interface Item {
  i: number;
  kind: 'edited' | 'genuine';
  layout: Layout;
  variant: Variant;
  edit?: EditKind;
  /** Edited renders: the new amount typed in another face, or in the layout's own (a slip-maker app). */
  editFace?: EditFace;
  amount: number;
  /** Also read the printed time (a sample: it costs extra work). */
  fields: boolean;
}

interface ItemResult {
  i: number;
  decoded: boolean;
  /** Printed amount read with confidence (what the service would conclude on), satang. */
  read: number | null;
  /** What an edited render printed, satang. */
  printed?: number;
  bank: number;
  decodeCpuMs: number;
  readCpuMs: number;
  reason: string | null;
  time?: { want: string; got: string | null };
  fieldsCpuMs?: number;
  transRef: string;
}

function amountFor(rnd: () => number): number {
  // Log-uniform 1.00 .. 500,000.00 THB, a third of them round baht (as most shop payments are).
  const satang = Math.round(Math.exp(Math.log(100) + rnd() * (Math.log(50_000_000) - Math.log(100))));
  return rnd() < 0.33 ? Math.max(1, Math.round(satang / 100)) : satang / 100;
}

/** Every render of the run, in a fixed order (the same items whatever the number of shards). */
function plan(genuineN: number, editedPer: number): Item[] {
  const rnd = prng(20);
  const items: Item[] = [];
  for (const editFace of EDIT_FACES)
    for (const layout of LAYOUTS)
      for (const variant of EFFECTS)
        for (const edit of EDITS)
          // camera12mp renders take ~0.6 s each: one per layout and edit.
          for (let k = 0; k < (variant === 'camera12mp' ? 1 : editedPer); k++)
            items.push({ i: items.length, kind: 'edited', layout, variant, edit, editFace, amount: amountFor(rnd), fields: false });
  let g = 0;
  for (let j = 0; g < genuineN; j++) {
    const layout = LAYOUTS[j % LAYOUTS.length];
    const variant = EFFECTS[Math.floor(j / LAYOUTS.length) % EFFECTS.length];
    if (variant === 'camera12mp' && j % 4 !== 0) continue;
    // 1 in 10 for the time, the offset turning every 10 so the sample spans every layout.
    items.push({ i: items.length, kind: 'genuine', layout, variant, amount: amountFor(rnd), fields: g % 10 === Math.floor(g / 10) % 10 });
    g++;
  }
  return items;
}

const hhmm = (d: Date) => {
  const th = new Date(d.getTime() + 7 * 3600_000);
  return `${String(th.getUTCHours()).padStart(2, '0')}:${String(th.getUTCMinutes()).padStart(2, '0')}`;
};

async function runItem(item: Item): Promise<ItemResult> {
  const g = await generateSlip({
    layout: item.layout,
    variant: item.variant,
    amount: item.amount,
    edit: item.edit,
    editFace: item.editFace,
  });
  const bank = Math.round(item.amount * 100);
  const base = { i: item.i, bank, transRef: g.transfer.transRef, reason: null };
  let c0 = process.cpuUsage();
  const d = await decodeSlipImage(g.image);
  let c = process.cpuUsage(c0);
  const decodeCpuMs = (c.user + c.system) / 1000;
  if (!d.ok) return { ...base, decoded: false, read: null, decodeCpuMs, readCpuMs: 0 };
  c0 = process.cpuUsage();
  const r = await readPrintedAmount(g.image, { angle: d.qrAngle });
  c = process.cpuUsage(c0);
  const out: ItemResult = {
    ...base,
    decoded: true,
    read: r.amountSatang !== null && r.confidence >= PRINTED_MIN_CONFIDENCE ? r.amountSatang : null,
    printed: item.edit ? editedSatang(bank, item.edit, 0) : undefined,
    decodeCpuMs,
    readCpuMs: (c.user + c.system) / 1000,
    reason: r.reason,
  };
  if (item.fields) {
    // Separately, with the fields on: what `slipcheck read` prints (the verify path reads the amount only).
    c0 = process.cpuUsage();
    const f = await readPrintedAmount(g.image, { angle: d.qrAngle, fields: true });
    c = process.cpuUsage(c0);
    const t = g.transfer;
    out.time = { want: hhmm(t.transDate), got: f.time ?? null };
    out.fieldsCpuMs = (c.user + c.system) / 1000 - out.readCpuMs;
  }
  return out;
}

async function runShard(items: Item[]): Promise<ItemResult[]> {
  await warmOcr();
  const out: ItemResult[] = [];
  for (const item of items) {
    out.push(await runItem(item));
    // Progress on stderr: a full run takes many minutes on a shared machine.
    if (out.length % 100 === 0) console.error(`shard ${process.env.BENCH_EDITED_SHARD ?? 0}: ${out.length}/${items.length}`);
  }
  await ocrEngine().close();
  return out;
}

/** Runs the items in `shards` child processes (the renders dominate; two cores halve the wall time). */
async function runSharded(items: Item[], shards: number): Promise<ItemResult[]> {
  if (shards <= 1) return runShard(items);
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
  const parts = await Promise.all(
    Array.from(
      { length: shards },
      (_, k) =>
        new Promise<ItemResult[]>((resolve, reject) => {
          const child = fork(fileURLToPath(import.meta.url), [], {
            execArgv: ['--import', loader],
            env: { ...process.env, BENCH_EDITED_SHARD: String(k) },
            stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          });
          child.once('message', (m) => resolve(m as ItemResult[]));
          child.once('exit', (code) => code !== 0 && reject(new Error(`shard ${k} exited ${code}`)));
          child.send(items.filter((_, j) => j % shards === k));
        }),
    ),
  );
  return parts.flat().sort((a, b) => a.i - b.i);
}

if (process.env.BENCH_EDITED_SHARD !== undefined && process.send) {
  process.once('message', (items: Item[]) => {
    void runShard(items).then((r) => process.send!(r, () => process.exit(0)));
  });
}

/** CPU ms (user + system, 10 ms ticks) and peak RSS (MB) of a process, from /proc (Linux). */
function procStats(pid: number) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const hwm = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuMs: ((Number(stat[11]) + Number(stat[12])) * 1000) / 100, peakRssMb: hwm ? Number(hwm[1]) / 1024 : 0 };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Through the decoder pool, as the service runs it: the same images decoded with the reader off
 * (pool.decode, decoders without the OCR engine) and on (pool.decodeAndRead, engine warmed). Per
 * image: decoder-process CPU, whether the QR decoded, and the wall time of a verify whose checker
 * takes 300 ms (a timer): reader off = decode then checker; reader on = decode, then checker and
 * reading together (as verification-service.ts does: it awaits the printed amount after the checker).
 */
export async function poolBench(n: number) {
  // The pool's decoder processes are unref'd (they never keep a service alive): without a handle of
  // its own this process would end (exit 13) while it waits for the decoders' start-up.
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    return await poolSides(n);
  } finally {
    clearInterval(keepAlive);
  }
}

async function poolSides(n: number) {
  const rnd = prng(21);
  const images: { image: Buffer; variant: Variant }[] = [];
  for (let i = 0; i < n; i++) {
    const variant = EFFECTS[i % EFFECTS.length];
    const g = await generateSlip({ layout: LAYOUTS[i % LAYOUTS.length], variant, amount: amountFor(rnd) });
    images.push({ image: g.image, variant });
  }
  const side = async (on: boolean) => {
    const pool = createSlipDecoderPool({ threads: 1, warmReader: on });
    await pool.ready();
    const [pid] = pool.health().pids;
    if (!pid) throw new Error('decoder pool reports no decoder process');
    const rows: { ok: boolean; cpuMs: number; wallMs: number; variant: Variant }[] = [];
    for (const { image, variant } of images) {
      const before = procStats(pid).cpuMs;
      const t0 = performance.now();
      let ok: boolean;
      if (on) {
        const { decoded, printed } = await pool.decodeAndRead(Buffer.from(image));
        ok = decoded.ok;
        await Promise.all([sleep(300), printed]);
      } else {
        ok = (await pool.decode(Buffer.from(image))).ok;
        await sleep(300);
      }
      const wallMs = performance.now() - t0;
      await sleep(20); // the decoder's last ticks land before CPU is sampled
      rows.push({ ok, cpuMs: procStats(pid).cpuMs - before, wallMs, variant });
    }
    const peakRssMb = procStats(pid).peakRssMb;
    await pool.close();
    return { rows, peakRssMb };
  };
  const off = await side(false);
  const on = await side(true);
  return { off, on, benchRssMb: procStats(process.pid).peakRssMb };
}

interface Tally {
  n: number;
  hit: number;
}
const tally = () => ({ n: 0, hit: 0 });
const pct = (t: Tally) => (t.n ? ((100 * t.hit) / t.n).toFixed(1) : '-');
const quantile = (v: number[], q: number) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};
function mapGet(m: Map<string, Tally>, k: string): Tally {
  let t = m.get(k);
  if (!t) m.set(k, (t = tally()));
  return t;
}

export async function runEditedBench(opts: { genuine?: number; editedPer?: number; shards?: number } = {}) {
  const genuineN = opts.genuine ?? Number(process.env.BENCH_GENUINE ?? 2000);
  const editedPer = opts.editedPer ?? Number(process.env.BENCH_EDITED_PER ?? 2);
  const shards = opts.shards ?? Number(process.env.BENCH_SHARDS ?? 2);
  const load0 = os.loadavg();
  const t0 = performance.now();
  const items = plan(genuineN, editedPer);
  const results = await runSharded(items, shards);
  // Kept on disk at once: a failure in the pool part must not lose the renders' results.
  fs.writeFileSync(`${os.tmpdir()}/slipcheck-edited-bench.json`, JSON.stringify({ items, results }));
  const renderMin = (performance.now() - t0) / 60_000;
  const pool = await poolBench(Number(process.env.BENCH_POOL_N ?? 80));
  return { items, results, pool, load0, load1: os.loadavg(), renderMin, minutes: (performance.now() - t0) / 60_000, shards };
}

const upper95 = (k: number, n: number) => (k === 0 ? 3 / n : Math.min(1, (k + 1.645 * Math.sqrt(k) + 1) / n));
const layoutLabel = (k: string) => (HOLD_OUT.includes(k as Layout) ? `${k} (held out)` : k);
const passFail = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

export function formatEditedBench(r: Awaited<ReturnType<typeof runEditedBench>>): string {
  const byItem = new Map(r.items.map((it) => [it.i, it]));
  const edited = tally();
  const tuned = tally();
  const heldOut = tally();
  const byLayout = new Map<string, Tally>();
  // Per face the edit is typed in: 'same' (a slip-maker app) is the hard case, 'other' (an editor).
  const byFace = new Map<string, Tally>();
  const byLayoutFace = new Map<string, Tally>();
  const byEffect = new Map<string, Tally>();
  const byEdit = new Map<string, Tally>();
  const misses = new Map<string, number>();
  let wrongValue = 0;
  const genuine = { n: 0, falseFraud: 0, read: 0 };
  const gByLayout = new Map<string, Tally>();
  const gByEffect = new Map<string, Tally>();
  const timeBy = new Map<string, Tally>();
  let timeWrong = 0;
  const readCpu: number[] = [];
  const readCpuSlip: number[] = [];
  const decodeCpu: number[] = [];
  const fieldsCpu: number[] = [];
  let notDecoded = 0;
  const falseLines: string[] = [];
  for (const res of r.results) {
    const it = byItem.get(res.i)!;
    if (!res.decoded) {
      notDecoded++;
      continue;
    }
    readCpu.push(res.readCpuMs);
    decodeCpu.push(res.decodeCpuMs);
    if (it.variant === 'jpeg70' || it.variant === 'clean') readCpuSlip.push(res.readCpuMs);
    if (it.kind === 'edited') {
      const detected = res.read !== null && res.read !== res.bank;
      for (const t of [
        edited,
        HOLD_OUT.includes(it.layout) ? heldOut : tuned,
        mapGet(byLayout, it.layout),
        mapGet(byEffect, it.variant),
        mapGet(byEdit, it.edit!),
        mapGet(byFace, it.editFace ?? 'other'),
        mapGet(byLayoutFace, `${it.layout}|${it.editFace ?? 'other'}`),
      ]) {
        t.n++;
        if (detected) t.hit++;
      }
      if (!detected) misses.set(res.reason ?? 'read = bank', (misses.get(res.reason ?? 'read = bank') ?? 0) + 1);
      // A detection must read what the edit printed, not some other misread ('digit' edits are seeded per render).
      if (it.edit !== 'digit' && res.read !== null && res.read !== res.printed && res.read !== res.bank) wrongValue++;
      continue;
    }
    genuine.n++;
    const tl = mapGet(gByLayout, it.layout);
    const te = mapGet(gByEffect, it.variant);
    tl.n++;
    te.n++;
    if (res.read === res.bank) {
      genuine.read++;
      tl.hit++;
      te.hit++;
    } else if (res.read !== null) {
      genuine.falseFraud++;
      falseLines.push(`- false FRAUD: ${it.layout} ${it.variant} bank ${res.bank / 100} read ${res.read / 100} transRef ${res.transRef}`);
    }
    if (res.time) {
      fieldsCpu.push(res.fieldsCpuMs ?? 0);
      const tt = mapGet(timeBy, it.layout);
      tt.n++;
      if (res.time.got === res.time.want) tt.hit++;
      else if (res.time.got !== null) timeWrong++;
    }
  }
  const ff = genuine.falseFraud;
  const detectRate = edited.n ? edited.hit / edited.n : 0;
  const on = r.pool.on.rows;
  const off = r.pool.off.rows;
  const slip = (rows: typeof on) => rows.filter((x) => x.variant === 'jpeg70' || x.variant === 'clean');
  const addedCpu = on.map((x, k) => x.cpuMs - off[k].cpuMs);
  const addedCpuSlip = slip(on).map((x, k) => x.cpuMs - slip(off)[k].cpuMs);
  const wallOn = quantile(
    on.map((x) => x.wallMs),
    0.5,
  );
  const wallOff = quantile(
    off.map((x) => x.wallMs),
    0.5,
  );
  const addedWall = on.map((x, k) => x.wallMs - off[k].wallMs);
  const decOn = on.filter((x) => x.ok).length;
  const decOff = off.filter((x) => x.ok).length;
  const medSlipCpu = quantile(readCpuSlip, 0.5);
  const p95SlipCpu = quantile(readCpuSlip, 0.95);
  const rows = (m: Map<string, Tally>, label: (k: string) => string = (k) => k) =>
    [...m].map(([k, t]) => `| ${label(k)} | ${t.n} | ${t.hit} | ${pct(t)}% |`).join('\n');
  const fieldRows = [...timeBy].map(([k, t]) => `| ${layoutLabel(k)} | ${t.n} | ${pct(t)}% |`).join('\n');
  const l = (v: number[]) => v.map((x) => x.toFixed(2)).join(' ');
  return [
    `Run: ${r.results.length} renders in ${r.shards} shard processes, ${r.renderMin.toFixed(1)} min; pool part ${(r.minutes - r.renderMin).toFixed(1)} min. Load average before ${l(r.load0)}, after ${l(r.load1)} (${os.cpus().length} cores, shared).`,
    '',
    '| target | measured | |',
    '|---|---|---|',
    `| detection on edited renders >= 97% (both faces) | ${pct(edited)}% (${edited.hit}/${edited.n}); same face ${pct(mapGet(byFace, 'same'))}%, other face ${pct(mapGet(byFace, 'other'))}%; tuned layouts ${pct(tuned)}%, held-out ${pct(heldOut)}% | ${passFail(detectRate >= 0.97)} |`,
    `| detection on same-face edits (slip-maker app) >= 97% | ${pct(mapGet(byFace, 'same'))}% (${mapGet(byFace, 'same').hit}/${mapGet(byFace, 'same').n}) | ${passFail(mapGet(byFace, 'same').hit >= 0.97 * mapGet(byFace, 'same').n)} |`,
    `| false FRAUD 0 in >= 2,000 genuine renders | ${ff} in ${genuine.n} (95% upper bound, rule of three: ${(100 * upper95(ff, genuine.n)).toFixed(2)}%) | ${passFail(ff === 0 && genuine.n >= 2000)} |`,
    `| added CPU per verify, 1080x1900 slip: median <= 120 ms | ${medSlipCpu.toFixed(0)} ms (in-process read); ${quantile(addedCpuSlip, 0.5).toFixed(0)} ms decoder-process CPU on - off | ${passFail(medSlipCpu <= 120)} |`,
    `| added CPU per verify, 1080x1900 slip: p95 <= 300 ms | ${p95SlipCpu.toFixed(0)} ms; all effects ${quantile(readCpu, 0.95).toFixed(0)} ms | ${passFail(p95SlipCpu <= 300)} |`,
    `| added wall per verify beside a 300 ms checker: median <= 30 ms | ${quantile(addedWall, 0.5).toFixed(0)} ms (verify median ${wallOn.toFixed(0)} ms on vs ${wallOff.toFixed(0)} ms off) | ${passFail(quantile(addedWall, 0.5) <= 30)} |`,
    `| reading never lowers the QR decode rate | ${decOn}/${on.length} on vs ${decOff}/${off.length} off (pool); never read when not decoded: ${notDecoded} renders | ${passFail(decOn >= decOff)} |`,
    `| peak RSS under the service's 400 MB | decoder process ${r.pool.on.peakRssMb.toFixed(0)} MB on vs ${r.pool.off.peakRssMb.toFixed(0)} MB off; the service process runs no OCR | ${passFail(r.pool.on.peakRssMb < 400)} |`,
    '',
    `Edited renders: ${edited.n}, detected **${pct(edited)}%**; reads that were neither the printed nor the bank amount: ${wrongValue}. Misses by reason: ${[...misses].map(([k, v]) => `${k} ${v}`).join(', ')}.`,
    `Genuine renders: ${genuine.n}; false FRAUD **${ff}**; amount read (equal to the bank) ${((100 * genuine.read) / Math.max(1, genuine.n)).toFixed(1)}%. Not decoded (never read): ${notDecoded}.`,
    `CPU per image, in-process: decode (baseline) median ${quantile(decodeCpu, 0.5).toFixed(0)} ms; read median ${quantile(readCpu, 0.5).toFixed(0)} ms, p95 ${quantile(readCpu, 0.95).toFixed(0)} ms over all effects. Through the pool (decoder-process CPU from /proc, 10 ms ticks, ${on.length} images): on - off median ${quantile(addedCpu, 0.5).toFixed(0)} ms, p95 ${quantile(addedCpu, 0.95).toFixed(0)} ms. Added wall p95 ${quantile(addedWall, 0.95).toFixed(0)} ms.`,
    `Printed time (\`slipcheck read\`, ${fieldsCpu.length} genuine renders): extra CPU median ${quantile(fieldsCpu, 0.5).toFixed(0)} ms; wrong reads (neither null nor right): ${timeWrong}. It never concludes anything.`,
    ...falseLines,
    '',
    '| layout | edited renders | detected | rate | same face: renders | detected | rate | other face: renders | detected | rate |',
    '|---|---|---|---|---|---|---|---|---|---|',
    [...byLayout]
      .map(([k, t]) => {
        const cells = (f: EditFace) => {
          const x = mapGet(byLayoutFace, `${k}|${f}`);
          return `${x.n} | ${x.hit} | ${pct(x)}%`;
        };
        return `| ${layoutLabel(k)} | ${t.n} | ${t.hit} | ${pct(t)}% | ${cells('same')} | ${cells('other')} |`;
      })
      .join('\n'),
    '',
    '| effect | edited renders | detected | rate |',
    '|---|---|---|---|',
    rows(byEffect),
    '',
    '| edit | edited renders | detected | rate |',
    '|---|---|---|---|',
    rows(byEdit),
    '',
    '| layout | genuine renders | amount read | rate |',
    '|---|---|---|---|',
    rows(gByLayout, layoutLabel),
    '',
    '| effect | genuine renders | amount read | rate |',
    '|---|---|---|---|',
    rows(gByEffect),
    '',
    '| layout | genuine renders read for the time | printed time read |',
    '|---|---|---|',
    fieldRows,
  ].join('\n');
}
