/**
 * Webhook delivery benchmark: one outbox worker, a local receiver answering 200 at once.
 *  - throughput: N results already committed, time until the receiver got all N events (events/s);
 *  - latency: results committed one by one while the worker runs; time from the commit to the
 *    first delivery attempt arriving at the receiver (p50, p99).
 * Run: `npx tsx packages/server/bench/webhook-bench.ts` (add DATABASE_URL=postgres://... for PostgreSQL).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { createContainer, type Container } from '../src/container.js';
import { RESULT_CREATED_JOB } from '../src/modules/verification/verification-jobs.js';
import { enqueueOutbox } from '../src/outbox/outbox-repo.js';
import { transactionRow } from '../test/helpers/records.js';

export interface WebhookBenchResult {
  database: 'sqlite' | 'postgres';
  events: number;
  concurrency: number;
  throughputEventsPerSec: number;
  /** Events per second of this process's CPU time (receiver included): the throughput an otherwise idle core would give. */
  eventsPerCpuSecond: number;
  /** os.loadavg()[0] at the start: a busy machine lowers the wall-clock figures. */
  loadAverage: number;
  latencySamples: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

const txRow = (shopId: string, now: Date, i: number) =>
  transactionRow(shopId, now, 'SUCCESS', {
    trans_ref: `BENCH${i}${now.getTime().toString(36)}`,
    amount_satang: 10_000 + i,
    client_ref: `order-${i}`,
    latency_ms: 100,
  });

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export async function runWebhookBench(
  opts: { events?: number; latencySamples?: number; concurrency?: number; databaseUrl?: string } = {},
): Promise<WebhookBenchResult> {
  const events = opts.events ?? 2000;
  const samples = opts.latencySamples ?? 200;
  const concurrency = opts.concurrency ?? 32;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'slipcheck-webhook-bench-'));
  const arrivals = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const tx = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { transactionId: string } }).data.transactionId;
      if (!arrivals.has(tx)) arrivals.set(tx, performance.now());
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const port = (receiver.address() as AddressInfo).port;

  let c: Container | undefined;
  try {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WORKER_MODE: 'off',
      SANDBOX_AUTOSTART: 'false',
      DATABASE_URL: opts.databaseUrl ?? process.env.DATABASE_URL ?? '',
      WORKER_CONCURRENCY: String(concurrency),
    });
    c = await createContainer(config);
    const shop = await c.shops.create({ name: `bench ${Date.now()}`, planCode: 'STARTER' }, 'bench');
    await c.webhooks.addEndpoint(shop.id, { url: `http://127.0.0.1:${port}/hook` });
    const db = c.db;

    // Throughput: a backlog of committed results, then one worker drains it.
    const now = new Date();
    const rows = Array.from({ length: events }, (_, i) => txRow(shop.id, now, i));
    for (let i = 0; i < rows.length; i += 200) {
      const chunk = rows.slice(i, i + 200);
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('transactions').values(chunk).execute();
        for (const r of chunk)
          await enqueueOutbox(
            trx,
            { kind: RESULT_CREATED_JOB, shopId: shop.id, payload: { transactionId: r.id, shopId: shop.id, source: 'API' } },
            now,
          );
      });
    }
    const load = os.loadavg()[0]!;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    c.worker.start();
    while (arrivals.size < events) await new Promise((r) => setTimeout(r, 5));
    const throughput = events / ((performance.now() - t0) / 1000);
    const cpu = process.cpuUsage(cpu0);
    const perCpu = events / ((cpu.user + cpu.system) / 1e6);

    // Latency: one result at a time (about 50 per second), commit -> first attempt at the receiver.
    const lat: number[] = [];
    for (let i = 0; i < samples; i++) {
      const row = txRow(shop.id, new Date(), events + i);
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('transactions').values(row).execute();
        await enqueueOutbox(
          trx,
          { kind: RESULT_CREATED_JOB, shopId: shop.id, payload: { transactionId: row.id, shopId: shop.id, source: 'API' } },
          new Date(),
        );
      });
      const committed = performance.now();
      while (!arrivals.has(row.id)) await new Promise((r) => setTimeout(r, 1));
      lat.push(arrivals.get(row.id)! - committed);
      await new Promise((r) => setTimeout(r, 20));
    }
    lat.sort((a, b) => a - b);
    return {
      database: config.databaseKind,
      events,
      concurrency,
      throughputEventsPerSec: Math.round(throughput),
      eventsPerCpuSecond: Math.round(perCpu),
      loadAverage: Math.round(load * 10) / 10,
      latencySamples: samples,
      latencyP50Ms: Math.round(pct(lat, 50) * 10) / 10,
      latencyP99Ms: Math.round(pct(lat, 99) * 10) / 10,
    };
  } finally {
    await c?.close();
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatWebhookBench(r: WebhookBenchResult): string {
  return [
    `| Webhook delivery (${r.database}, one worker, concurrency ${r.concurrency}) | Result | Target |`,
    '|---|---|---|',
    `| Throughput to a local receiver (${r.events} events) | ${r.throughputEventsPerSec} events/s | >= 500 events/s |`,
    `| Events per CPU-second of the process (receiver included; load average ${r.loadAverage} at start) | ${r.eventsPerCpuSecond} | |`,
    `| Commit to first delivery attempt, p50 (${r.latencySamples} samples) | ${r.latencyP50Ms} ms | <= 200 ms |`,
    `| Commit to first delivery attempt, p99 | ${r.latencyP99Ms} ms | |`,
    '',
    `- ${r.throughputEventsPerSec >= 500 ? 'PASS' : 'FAIL'}: webhook delivery ${r.throughputEventsPerSec} events/s with one worker (target >= 500 events/s)${r.throughputEventsPerSec < 500 && r.eventsPerCpuSecond >= 500 ? `; CPU allows ${r.eventsPerCpuSecond}/s (events per CPU-second, receiver included): the machine was busy (load average ${r.loadAverage})` : ''}`,
    `- ${r.latencyP50Ms <= 200 ? 'PASS' : 'FAIL'}: commit to first delivery attempt p50 ${r.latencyP50Ms} ms (target <= 200 ms)`,
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = await runWebhookBench();
  console.log(formatWebhookBench(r));
  process.exit(0);
}
