import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { createSandboxBank } from '@slipcheck/sandbox-bank';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { buildApp } from '../src/http/app.js';
import { phoneSlips } from './bench-slips.js';
import { quantile } from './quantile.js';

/**
 * Decoder fairness: one shop floods POST /api/v1/verify with 40 slow images at once (blank 12 MP
 * PNGs: accepted by the image limits, they run the cascade up to its time budget) while another shop
 * checks real slips one after the other. Its latency is compared with the same checks alone, in
 * the same run. Service, sandbox bank and load generator share this process (real HTTP on loopback).
 */
export interface FairnessReport {
  rows: string[][];
  notes: string[];
}

const pct = (xs: number[], p: number) => quantile(xs, p / 100);

export async function runFairnessBench(opts: { flood?: number; checks?: number } = {}): Promise<FairnessReport> {
  const floodSize = opts.flood ?? 40;
  const checks = opts.checks ?? 10;
  const bank = await createSandboxBank({ port: 0, host: '127.0.0.1' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-fair-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    CHECKER_URL: bank.url,
    RATE_LIMIT_PER_KEY: '100000000',
    RATE_LIMIT_VERIFY_PER_SHOP: '100000000',
    WORKER_MODE: 'off',
    SANDBOX_AUTOSTART: 'false',
    DATABASE_URL: '',
  });
  const c = await createContainer(config);
  const app = await buildApp(c, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  try {
    const shop = async (name: string) => {
      const s = await c.shops.create({ name, planCode: 'BUSINESS' }, 'bench');
      await c.payees.add(s.id, { bankCode: '004', accountNumber: '1234566609', holder: 'ร้านทดสอบ' }, 'bench');
      return { authorization: `Bearer ${(await c.apiKeys.create(s.id, { environment: 'live', scopes: 'verify,read' }, 'bench')).key}` };
    };
    const flooder = await shop('flooder');
    const payer = await shop('payer');
    const slips = await phoneSlips(bank.url, checks * 2 + 2);
    const png = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#ffffff' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    // Bytes after IEND make each copy a different image (no replay cache), readers ignore them.
    const flood = Array.from({ length: floodSize + 1 }, (_, i) => Buffer.concat([png, Buffer.from(`#${i}`)]));
    const verify = async (auth: Record<string, string>, image: Buffer) => {
      const t = performance.now();
      const r = await fetch(`${base}/api/v1/verify`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(image),
      });
      const body = (await r.json()) as { code?: string; data?: { status: string } };
      return { status: r.status, state: body.data?.status ?? body.code ?? '?', ms: performance.now() - t };
    };

    await verify(payer, slips.pop()!); // warm-up
    const alone: number[] = [];
    for (let i = 0; i < checks; i++) alone.push((await verify(payer, slips.pop()!)).ms);
    const slow = await verify(flooder, flood.pop()!);

    const t0 = performance.now();
    const flooding = Promise.all(flood.map((img) => verify(flooder, img)));
    await new Promise((r) => setTimeout(r, 300));
    const during: Awaited<ReturnType<typeof verify>>[] = [];
    for (let i = 0; i < checks; i++) during.push(await verify(payer, slips.pop()!));
    const floodAnswers = await flooding;
    const floodMs = performance.now() - t0;
    const ok = during.filter((d) => d.state === 'SUCCESS').length;
    const busy = during.filter((d) => d.status === 503).length;
    const duringMs = during.map((d) => d.ms);
    const bound = 2 * pct(alone, 50) + 3 * slow.ms;
    return {
      rows: [
        ['other shop alone', String(checks), pct(alone, 50).toFixed(0), pct(alone, 100).toFixed(0), '', ''],
        [
          `other shop during a ${floodSize}-image flood`,
          `${ok}/${checks} SUCCESS, ${busy} x 503`,
          pct(duringMs, 50).toFixed(0),
          pct(duringMs, 100).toFixed(0),
          bound.toFixed(0),
          pct(duringMs, 100) <= bound && busy === 0 ? 'met' : '**not met**',
        ],
        [
          'flooding shop',
          `${floodAnswers.filter((a) => a.state === 'INVALID').length} INVALID (free), ${floodAnswers.filter((a) => a.status === 503).length} x 503 DECODER_BUSY`,
          '',
          '',
          '',
          '',
        ],
      ],
      notes: [
        `one slow image alone: ${slow.ms.toFixed(0)} ms (${slow.state}); the flood took ${(floodMs / 1000).toFixed(1)} s to drain; decoder threads ${c.config.DECODE_THREADS || os.availableParallelism()}, load average at the end ${os
          .loadavg()
          .map((x) => x.toFixed(1))
          .join(', ')}`,
        'bound = 2 x median alone + 3 x one slow image alone (the other shop waits for at most one running flood job); the same bound is asserted in test/slip-qr/decoder-fairness.test.ts',
      ],
    };
  } finally {
    await app.close();
    await c.close();
    await bank.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatFairness(r: FairnessReport): string {
  const head = ['verifies of a real slip (1080x1900 JPEG)', 'n / outcome', 'p50 ms', 'max ms', 'bound ms', 'status'];
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...r.rows.map((x) => `| ${x.join(' | ')} |`),
    '',
    ...r.notes.map((n) => `- ${n}`),
  ].join('\n');
}
