// Real bank-app slips (issue 20: "the detection must hold on real slips of the big bank apps"): reads
// each picture of a folder as sent and through chat-app recompression, and edited copies of it, and
// checks the reader reads the genuine amount (no false FRAUD) and the edited one (detection).
// `REAL_SLIPS_DIR=/path npx tsx packages/server/bench/run.ts real-slips`. The folder holds the pictures
// and a manifest.json (docs/benchmarks.md, "Edited slips"). Real slips are third-party pictures with
// personal data: they live outside the repo, and nothing of them is written anywhere by this bench.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EDITS, editedSatang, type EditKind } from '@slipcheck/sandbox-bank';
import sharp from 'sharp';
import { readPrintedAmount } from '../src/modules/slip-qr/slip-qr-amount.js';
import { decodeSlipImage } from '../src/modules/slip-qr/slip-qr-decoder.js';
import { ocrEngine, warmOcr } from '../src/modules/slip-qr/slip-qr-ocr.js';
import { PRINTED_MIN_CONFIDENCE } from '../src/modules/verification/printed-amount.js';

export interface ManifestSlip {
  file: string;
  /** The printed amount, as printed ("1,000.00") or a number of baht. */
  amount: string | number;
  /** The printed transfer time "HH:MM", when the reader should find it. */
  time?: string;
  /**
   * The amount's digits [left, top, width, height to the baseline] in file pixels: where the EDITOR
   * covers and writes. Never given to the reader.
   */
  box?: [number, number, number, number];
  /** Faces the editor types the new amount in ("DejaVu Sans", "Waree:bold"); default DejaVu Sans. */
  fonts?: string[];
  source?: string;
}

/** As sent, then what chat apps deliver: long side 1280/800/480 px, JPEG quality 60-85. */
const CHAT = [
  { side: 1280, q: 85 },
  { side: 1280, q: 60 },
  { side: 800, q: 85 },
  { side: 800, q: 60 },
  { side: 480, q: 85 },
  { side: 480, q: 60 },
];

async function recompress(image: Buffer, side: number, q: number): Promise<Buffer> {
  return sharp(image)
    .flatten({ background: '#ffffff' })
    .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: q })
    .toBuffer();
}

const satangOf = (a: string | number) => (typeof a === 'number' ? Math.round(a * 100) : Number(a.replace(/,/g, '').replace('.', '')));
const printedText = (satang: number) => `${Math.floor(satang / 100).toLocaleString('en-US')}.${String(satang % 100).padStart(2, '0')}`;
const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A line of text in an installed face, trimmed to its ink. */
async function textImage(
  text: string,
  font: string,
  sizePx: number,
  colour: string,
): Promise<{ png: Buffer; width: number; height: number }> {
  const [family, weight] = font.split(':');
  const w = Math.ceil(sizePx * (text.length + 2));
  const h = Math.ceil(sizePx * 2);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><text x="${sizePx / 2}" y="${sizePx * 1.4}" font-family="${escapeXml(family)}" font-weight="${weight ?? 'normal'}" font-size="${sizePx}" fill="${colour}">${escapeXml(text)}</text></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).trim({ threshold: 1 }).png().toBuffer({ resolveWithObject: true });
  return { png: data, width: info.width, height: info.height };
}

/**
 * What an image editor does to a slip: covers the amount's digits with the colour around them and
 * types another amount over it, right-aligned where the old one ended, its digits as tall as the old.
 */
export async function editSlip(image: Buffer, box: [number, number, number, number], text: string, font: string): Promise<Buffer> {
  const [x, y, w, h] = box;
  const { data, info } = await sharp(image).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const px = (xx: number, yy: number) => {
    const i = (Math.min(info.height - 1, Math.max(0, yy)) * info.width + Math.min(info.width - 1, Math.max(0, xx))) * 3;
    return [data[i], data[i + 1], data[i + 2]];
  };
  // Background: the median of a ring just outside the box; ink: the darkest tenth inside it.
  const pad = Math.max(2, Math.round(h * 0.2));
  const ring: number[][] = [];
  for (let xx = x - pad; xx <= x + w + pad; xx++) ring.push(px(xx, y - pad), px(xx, y + h + pad));
  for (let yy = y - pad; yy <= y + h + pad; yy++) ring.push(px(x - pad, yy), px(x + w + pad, yy));
  const med = (k: number) => ring.map((c) => c[k]).sort((a, b) => a - b)[ring.length >> 1];
  const inside: number[][] = [];
  for (let yy = y; yy < y + h; yy++) for (let xx = x; xx < x + w; xx++) inside.push(px(xx, yy));
  inside.sort((a, b) => a[0] + a[1] + a[2] - (b[0] + b[1] + b[2]));
  const dark = inside.slice(0, Math.max(1, Math.round(inside.length / 10)));
  const avg = (k: number) => Math.round(dark.reduce((s, c) => s + c[k], 0) / dark.length);
  const hex = (r: number, g: number, b: number) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
  // Digit height of the face at 200 px ("0" has no descender), so the new digits are as tall as the old.
  const zero = await textImage('0', font, 200, '#000000');
  const t = await textImage(text, font, (200 * h) / zero.height, hex(avg(0), avg(1), avg(2)));
  const left = x + w - t.width;
  const coverX = Math.max(0, Math.min(x, left) - pad);
  const cover = await sharp({
    create: {
      width: x + w + pad - coverX,
      height: h + 2 * pad + Math.round(h * 0.25),
      channels: 3,
      background: hex(med(0), med(1), med(2)),
    },
  })
    .png()
    .toBuffer();
  return sharp(image)
    .flatten({ background: '#ffffff' })
    .composite([
      { input: cover, left: coverX, top: y - pad },
      { input: t.png, left: Math.max(0, left), top: y },
    ])
    .png()
    .toBuffer();
}

interface Row {
  file: string;
  version: string;
  kind: 'genuine' | 'edited';
  edit?: EditKind;
  font?: string;
  want: number;
  genuine: number;
  read: number | null;
  reason: string | null;
  qr: boolean;
  time?: { want: string; got: string | null };
  cpuMs: number;
}

async function readOne(image: Buffer, fields: boolean) {
  const d = await decodeSlipImage(image);
  const c0 = process.cpuUsage();
  // The QR's angle when it decodes (as the service reads); a real slip's QR may be blacked out or name
  // a specimen bank, and the amount is still worth reading for this check.
  const r = await readPrintedAmount(image, { angle: d.ok ? d.qrAngle : undefined, fields });
  const c = process.cpuUsage(c0);
  return { qr: d.ok, r, cpuMs: (c.user + c.system) / 1000 };
}

export async function runRealSlipsBench(
  dir = process.env.REAL_SLIPS_DIR,
): Promise<{ skipped: string } | { rows: Row[]; load0: number[]; load1: number[] }> {
  if (!dir)
    return {
      skipped: 'REAL_SLIPS_DIR is not set: real slips are third-party pictures kept outside the repo (docs/benchmarks.md, "Edited slips")',
    };
  const manifestPath = path.join(dir, 'manifest.json');
  if (!fs.existsSync(manifestPath)) return { skipped: `no manifest.json in ${dir}` };
  const raw = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as ManifestSlip[] | { slips: ManifestSlip[] };
  const slips = Array.isArray(raw) ? raw : raw.slips;
  const load0 = os.loadavg();
  await warmOcr();
  const rows: Row[] = [];
  for (const slip of slips) {
    const original = fs.readFileSync(path.join(dir, slip.file));
    const want = satangOf(slip.amount);
    const versions = async (image: Buffer) => [
      { version: 'as sent', image },
      ...(await Promise.all(CHAT.map(async ({ side, q }) => ({ version: `${side} q${q}`, image: await recompress(image, side, q) })))),
    ];
    for (const { version, image } of await versions(original)) {
      const { qr, r, cpuMs } = await readOne(image, slip.time !== undefined);
      const read = r.amountSatang !== null && r.confidence >= PRINTED_MIN_CONFIDENCE ? r.amountSatang : null;
      rows.push({
        file: slip.file,
        version,
        kind: 'genuine',
        want,
        genuine: want,
        read,
        reason: r.reason,
        qr,
        cpuMs,
        time: slip.time ? { want: slip.time, got: r.time ?? null } : undefined,
      });
    }
    if (!slip.box) continue;
    let seed = 0;
    for (const font of slip.fonts ?? ['DejaVu Sans'])
      for (const edit of EDITS) {
        const printed = editedSatang(want, edit, seed++);
        const edited = await editSlip(original, slip.box, printedText(printed), font);
        for (const { version, image } of await versions(edited)) {
          const { qr, r, cpuMs } = await readOne(image, false);
          const read = r.amountSatang !== null && r.confidence >= PRINTED_MIN_CONFIDENCE ? r.amountSatang : null;
          rows.push({
            file: slip.file,
            version,
            kind: 'edited',
            edit,
            font,
            want: printed,
            genuine: want,
            read,
            reason: r.reason,
            qr,
            cpuMs,
          });
        }
      }
  }
  await ocrEngine().close();
  return { rows, load0, load1: os.loadavg() };
}

const pct = (k: number, n: number) => (n ? `${((100 * k) / n).toFixed(0)}%` : '-');
const quantile = (v: number[], q: number) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};

export function formatRealSlips(r: Awaited<ReturnType<typeof runRealSlipsBench>>): string {
  if ('skipped' in r) return `Skipped: ${r.skipped}.`;
  const files = [...new Set(r.rows.map((x) => x.file))];
  const out: string[] = [
    `Load average before ${r.load0.map((x) => x.toFixed(2)).join(' ')}, after ${r.load1.map((x) => x.toFixed(2)).join(' ')} (${os.cpus().length} cores, shared).`,
    '',
    '| slip | QR decoded | genuine: read right | not read | false FRAUD | time read | edited: edited amount read | other read (not the edit) | not read | read as genuine (missed) | read CPU median / p95 |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const line = (label: string, rows: Row[]) => {
    const g = rows.filter((x) => x.kind === 'genuine');
    const e = rows.filter((x) => x.kind === 'edited');
    const times = g.filter((x) => x.time);
    const cpu = rows.map((x) => x.cpuMs);
    out.push(
      `| ${label} | ${rows.filter((x) => x.qr).length}/${rows.length} | ${g.filter((x) => x.read === x.want).length}/${g.length} | ${g.filter((x) => x.read === null).length} | **${g.filter((x) => x.read !== null && x.read !== x.want).length}** | ${times.filter((x) => x.time!.got === x.time!.want).length}/${times.length} | **${e.filter((x) => x.read === x.want).length}/${e.length}** (${pct(e.filter((x) => x.read === x.want).length, e.length)}) | ${e.filter((x) => x.read !== null && x.read !== x.want && x.read !== x.genuine).length} | ${e.filter((x) => x.read === null).length} | ${e.filter((x) => x.read === x.genuine).length} | ${quantile(cpu, 0.5).toFixed(0)} / ${quantile(cpu, 0.95).toFixed(0)} ms |`,
    );
  };
  for (const f of files)
    line(
      f,
      r.rows.filter((x) => x.file === f),
    );
  line('**all**', r.rows);
  out.push('', '| slip | version | genuine | edited (read right / renders) | reasons when not read |', '|---|---|---|---|---|');
  for (const f of files)
    for (const v of [...new Set(r.rows.filter((x) => x.file === f).map((x) => x.version))]) {
      const rows = r.rows.filter((x) => x.file === f && x.version === v);
      const g = rows.find((x) => x.kind === 'genuine');
      const e = rows.filter((x) => x.kind === 'edited');
      const reasons = new Map<string, number>();
      for (const x of rows)
        if (x.read === null) reasons.set(x.reason ?? 'low confidence', (reasons.get(x.reason ?? 'low confidence') ?? 0) + 1);
      const gText = !g ? '-' : g.read === g.want ? 'read' : g.read === null ? 'not read' : `**FALSE FRAUD** (${g.read / 100})`;
      out.push(
        `| ${f} | ${v} | ${gText}${g?.time ? `, time ${g.time.got ?? '-'}` : ''} | ${e.filter((x) => x.read === x.want).length}/${e.length} | ${[...reasons].map(([k, n]) => `${k} ${n}`).join(', ')} |`,
      );
    }
  const misses = r.rows.filter((x) => x.read !== x.want);
  if (misses.length)
    out.push(
      '',
      'Not read right:',
      ...misses.map(
        (x) =>
          `- ${x.file} ${x.version} ${x.kind}${x.edit ? ` ${x.edit} in ${x.font}` : ''}: want ${printedText(x.want)}, read ${x.read === null ? `nothing (${x.reason ?? 'low confidence'})` : printedText(x.read)}`,
      ),
    );
  return out.join('\n');
}
