import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { createSlipDecoderPool } from '../src/modules/slip-qr/slip-qr-pool.js';
import { phoneSlips } from './bench-slips.js';

/**
 * End-to-end verify throughput against the sandbox bank (zero latency, its own process), compared
 * with decode-only throughput of the same pool on the same images in the same run. Also: cached
 * replays per second, event-loop responsiveness (GET /quota while 32 verifies decode) and peak RSS.
 */
const SANDBOX_PORT = 39_000 + Math.floor(Math.random() * 500);

async function startSandboxProcess(): Promise<{ url: string; child: ChildProcess }> {
  const entry = path.resolve(import.meta.dirname, '../../sandbox-bank/src/main.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, SANDBOX_PORT: String(SANDBOX_PORT), SANDBOX_HOST: '127.0.0.1' },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${SANDBOX_PORT}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, child };
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('sandbox did not start');
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function runConcurrent<T>(items: T[], concurrency: number, fn: (x: T) => Promise<void>) {
  let i = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (i < items.length) await fn(items[i++]);
    }),
  );
}

export interface E2eReport {
  rows: string[][];
  notes: string[];
}

/** CPU seconds (user + system) and peak RSS of a child process, from /proc (Linux). */
function procStats(pid: number) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(stat[11]) + Number(stat[12]);
  const hwm = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuMs: (ticks * 1000) / 100, peakRssMb: hwm ? Number(hwm[1]) / 1024 : 0 };
}

async function startServer(checkerUrl: string) {
  // BENCH_COMPILED=1 (`npm run bench:prod`): the service from dist/ under plain node, as start:prod runs it.
  const compiled = !!process.env.BENCH_COMPILED;
  const entry = path.resolve(import.meta.dirname, 'bench-server.mjs');
  // BENCH_SERVER_ARGS: extra node flags for the service, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const extra = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean);
  const loader = compiled ? ['--conditions=slipcheck-dist'] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...extra, ...loader, entry], {
    env: { ...process.env, CHECKER_URL: checkerUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench server exited ${code}`)));
  });
  const { port, key } = JSON.parse(line) as { port: number; key: string };
  return { child, port, key };
}

export async function runE2eBench(opts: { perLevel?: number } = {}): Promise<E2eReport> {
  const perLevel = opts.perLevel ?? 160;
  const { url, child } = await startSandboxProcess();
  const threads = os.availableParallelism();
  const server = await startServer(url);
  const http = new Pool(`http://127.0.0.1:${server.port}`, { connections: 64, pipelining: 1 });
  const auth = { authorization: `Bearer ${server.key}` };
  const post = async (img: Buffer) => {
    const r = await http.request({
      method: 'POST',
      path: '/api/v1/verify',
      headers: { ...auth, 'content-type': 'application/octet-stream' },
      body: img,
    });
    return { status: r.statusCode, body: (await r.body.json()) as { data?: { status: string; cached: boolean } } };
  };
  try {
    const total = perLevel * 2 + 4; // the last 4 warm the service up
    const images = await phoneSlips(url, total);

    // Baseline: decode only, the same pool size, the same images and concurrency (warmed up first).
    const pool = createSlipDecoderPool({ threads });
    await runConcurrent(images.slice(0, threads * 2), threads, async (img) => {
      await pool.decode(Buffer.from(img));
    });
    const decodeRate: Record<number, number> = {};
    for (const conc of [8, 32]) {
      const slice = images.slice(0, perLevel);
      const t0 = performance.now();
      await runConcurrent(slice, conc, async (img) => {
        const r = await pool.decode(Buffer.from(img));
        if (!r.ok) throw new Error('decode failed');
      });
      decodeRate[conc] = slice.length / ((performance.now() - t0) / 1000);
    }
    await pool.close();

    const rows: string[][] = [];
    // Warm the service (decoder threads start on first use).
    for (const img of images.slice(perLevel * 2)) await post(img);
    let offset = 0;
    for (const conc of [8, 32]) {
      const slice = images.slice(offset, offset + perLevel);
      offset += perLevel;
      const lat: number[] = [];
      const cpu0 = procStats(server.child.pid!).cpuMs;
      const t0 = performance.now();
      await runConcurrent(slice, conc, async (img) => {
        const s = performance.now();
        const r = await post(img);
        if (r.body.data?.status !== 'SUCCESS') throw new Error(`unexpected ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        lat.push(performance.now() - s);
      });
      const secs = (performance.now() - t0) / 1000;
      const cpuMs = procStats(server.child.pid!).cpuMs - cpu0;
      const rate = slice.length / secs;
      rows.push([
        `uncached verify, concurrency ${conc}`,
        rate.toFixed(1),
        pct(lat, 50).toFixed(1),
        pct(lat, 99).toFixed(1),
        (cpuMs / slice.length).toFixed(1),
        `${decodeRate[conc].toFixed(1)} decode-only/s; ratio ${((rate / decodeRate[conc]) * 100).toFixed(0)}% (target >= 80%)`,
      ]);
    }

    // Cached replays: the same image again and again (SHA-256 + indexed reads, no decode, no checker).
    const replay = images[0];
    const n = 5000;
    const lat: number[] = [];
    const cpu0 = procStats(server.child.pid!).cpuMs;
    const t0 = performance.now();
    await runConcurrent(Array.from({ length: n }), 32, async () => {
      const s = performance.now();
      const r = await post(replay);
      if (!r.body.data?.cached) throw new Error('not cached');
      lat.push(performance.now() - s);
    });
    const cachedRate = n / ((performance.now() - t0) / 1000);
    const cachedCpu = (procStats(server.child.pid!).cpuMs - cpu0) / n;
    rows.push([
      'cached replay, concurrency 32',
      cachedRate.toFixed(0),
      pct(lat, 50).toFixed(2),
      pct(lat, 99).toFixed(2),
      cachedCpu.toFixed(2),
      `${replay.length} byte JPEG; target >= 5,000/s`,
    ]);

    // The event loop stays free: GET /quota latency while 32 verifies decode.
    const extra: Buffer[] = [];
    for (let i = 0; i < 96; i++) extra.push(Buffer.concat([images[i % images.length], Buffer.from(`x${i}`)]));
    const quotaLat: number[] = [];
    let busy = true;
    const load = runConcurrent(extra, 32, async (img) => {
      await post(img);
    }).finally(() => {
      busy = false;
    });
    while (busy) {
      const s = performance.now();
      const r = await http.request({ method: 'GET', path: '/api/v1/quota', headers: auth });
      await r.body.arrayBuffer();
      quotaLat.push(performance.now() - s);
      await new Promise((r) => setTimeout(r, 5));
    }
    await load;
    rows.push([
      'GET /quota during 32 concurrent verifies',
      '',
      pct(quotaLat, 50).toFixed(1),
      pct(quotaLat, 99).toFixed(1),
      '',
      `${quotaLat.length} samples; target p99 < 50 ms`,
    ]);
    const peak = procStats(server.child.pid!).peakRssMb;
    return {
      rows,
      notes: [
        `service peak RSS ${peak.toFixed(0)} MB (target < 400 MB); the service, the sandbox bank and the load generator are separate processes`,
        `decoder threads ${threads}, cores ${os.availableParallelism()}`,
      ],
    };
  } finally {
    await http.close();
    server.child.kill('SIGTERM');
    child.kill();
  }
}

export function formatE2e(r: E2eReport): string {
  const head = '| scenario | per second | p50 ms | p99 ms | CPU ms / verify | baseline and target |\n|---|---|---|---|---|---|';
  return [head, ...r.rows.map((x) => `| ${x.join(' | ')} |`), '', ...r.notes.map((n) => `- ${n}`)].join('\n');
}
