import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of the process. One registry per process (metrics describe the process, and
 * instrumented modules import `metrics` directly instead of threading it through every factory);
 * scrape-time gauges (decoder pool, outbox) read from sources a container registers and removes.
 *
 * Labels never carry shop ids, API keys, payees or transaction refs: only small fixed sets
 * (route pattern, status, source, environment, stage, upstream, outcome), so cardinality stays flat.
 */
export const registry = new Registry();
// The event-loop delay histogram samples on a libuv timer. prom-client's default resolution, 10 ms, woke
// an idle node a hundred times a second and a busy one between most requests, and each wake-up costs a
// context switch (docs/benchmarks.md). At 100 ms the percentiles (how late the timer fired) still catch
// every stall longer than 100 ms, and a shorter one in proportion to its length, with a tenth of the
// wake-ups.
collectDefaultMetrics({ register: registry, prefix: 'slipcheck_', eventLoopMonitoringPrecision: 100 });

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20];

export interface DecoderStatsSource {
  (): { threads: number; busy: number; queued: number } | null;
}
export interface OutboxStatsSource {
  (): Promise<{ depth: number; oldestAgeSeconds: number; parked?: { invalid_payload: number; failed: number } }>;
}

const decoderSources = new Set<DecoderStatsSource>();
const outboxSources = new Set<OutboxStatsSource>();

function decoderSnapshot() {
  let threads = 0,
    busy = 0,
    queued = 0;
  for (const s of decoderSources) {
    const v = s();
    if (v) {
      threads += v.threads;
      busy += v.busy;
      queued += v.queued;
    }
  }
  return { threads, busy, queued };
}

async function outboxSnapshot() {
  // Several containers in one process (tests) read the same table: take the largest, not the sum.
  let depth = 0,
    oldestAgeSeconds = 0;
  const parked = { invalid_payload: 0, failed: 0 };
  for (const s of outboxSources) {
    const v = await s().catch(() => null);
    if (v) {
      depth = Math.max(depth, v.depth);
      oldestAgeSeconds = Math.max(oldestAgeSeconds, v.oldestAgeSeconds);
      parked.invalid_payload = Math.max(parked.invalid_payload, v.parked?.invalid_payload ?? 0);
      parked.failed = Math.max(parked.failed, v.parked?.failed ?? 0);
    }
  }
  return { depth, oldestAgeSeconds, parked };
}

export const metrics = {
  httpDuration: new Histogram({
    name: 'slipcheck_http_request_duration_seconds',
    help: 'HTTP request duration by route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: SECONDS,
    registers: [registry],
  }),
  verifyOutcomes: new Counter({
    name: 'slipcheck_verify_outcomes_total',
    help: 'Verifications recorded, by result status, source (api, line, dashboard) and environment (live, test)',
    labelNames: ['status', 'source', 'environment'] as const,
    registers: [registry],
  }),
  stageDuration: new Histogram({
    name: 'slipcheck_verify_stage_duration_seconds',
    help: 'Time spent per verification stage: decode, checker, database',
    labelNames: ['stage'] as const,
    buckets: SECONDS,
    registers: [registry],
  }),
  checkerCalls: new Counter({
    name: 'slipcheck_checker_calls_total',
    help: 'Calls to a checker upstream by outcome (found, not_found, pending, unsupported, failure; skipped = a slip kind it does not check, no call made) and circuit breaker state',
    labelNames: ['upstream', 'outcome', 'breaker'] as const,
    registers: [registry],
  }),
  checkerAccountErrors: new Counter({
    name: 'slipcheck_checker_account_errors_total',
    help: 'Checker answers that say the provider account is the problem, by upstream and reason (quota_exhausted, key_invalid, ip_not_allowed, package_expired, branch_inactive, service_suspended, overage_cap)',
    labelNames: ['upstream', 'reason'] as const,
    registers: [registry],
  }),
  checkerResends: new Counter({
    name: 'slipcheck_checker_resends_total',
    help: 'Checks sent again to the same upstream after a failed attempt, by cause (timeout, failure); a re-send after a timeout may be billed twice by the provider',
    labelNames: ['upstream', 'cause'] as const,
    registers: [registry],
  }),
  checkerQuotaRemaining: new Gauge({
    name: 'slipcheck_checker_quota_remaining',
    help: "Checks left in the provider account's package, as last polled (only upstreams with a quota route)",
    labelNames: ['upstream'] as const,
    registers: [registry],
  }),
  checkerOverage: new Gauge({
    name: 'slipcheck_checker_overage',
    help: 'Checks used past the package quota at the provider (billed as overage), as last polled',
    labelNames: ['upstream'] as const,
    registers: [registry],
  }),
  decoderRejected: new Counter({
    name: 'slipcheck_decoder_rejected_total',
    help: 'Decodes refused because the decoder queue was full (answered 503 DECODER_BUSY)',
    registers: [registry],
  }),
  decoderStopped: new Counter({
    name: 'slipcheck_decoder_stopped_total',
    help: 'Decoder processes that ended during a decode and were replaced: overrun (SIGKILLed past the time limit in running time), starved (kept off the CPU 6 s past it: the node is overloaded) or crash; the image was answered INVALID UNREADABLE_IMAGE',
    labelNames: ['reason'] as const,
    registers: [registry],
  }),
  imageGateRefusals: new Counter({
    name: 'slipcheck_image_gate_refusals_total',
    help: 'Images refused by the byte-level gate before any decoder saw them (answered INVALID UNREADABLE_IMAGE), by format (png, jpeg, other)',
    labelNames: ['format'] as const,
    registers: [registry],
  }),
  webhookDeliveries: new Counter({
    name: 'slipcheck_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, retry, failed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  lineDeliveries: new Counter({
    name: 'slipcheck_line_deliveries_total',
    help: 'Messages sent to the LINE platform by kind (reply, push) and outcome (ok, failed)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  }),
  redisUp: new Gauge({
    name: 'slipcheck_redis_up',
    help: 'Whether this node reaches Redis (1) or not (0); 0 means limits are per node and live updates stay on the node (docs/operations.md)',
    registers: [registry],
  }),
  rateLimitFallback: new Gauge({
    name: 'slipcheck_rate_limit_fallback',
    help: 'Rate limiters enforcing per-node shares because Redis cannot be reached (0 while Redis answers)',
    registers: [registry],
  }),
  rateLimitRefusals: new Counter({
    name: 'slipcheck_rate_limit_refusals_total',
    help: 'Rate-limit refusals (429) by the limit that refused (key, verify, dashboard, login); a sign-in over both its budgets counts twice',
    labelNames: ['limit'] as const,
    registers: [registry],
  }),
};

new Gauge({
  name: 'slipcheck_decoder_threads',
  help: 'Decoder processes (the metric keeps its old name)',
  registers: [registry],
  collect() {
    this.set(decoderSnapshot().threads);
  },
});
new Gauge({
  name: 'slipcheck_decoder_busy',
  help: 'Decoder processes decoding now',
  registers: [registry],
  collect() {
    this.set(decoderSnapshot().busy);
  },
});
new Gauge({
  name: 'slipcheck_decoder_queued',
  help: 'Decodes waiting for a free decoder process',
  registers: [registry],
  collect() {
    this.set(decoderSnapshot().queued);
  },
});
new Gauge({
  name: 'slipcheck_outbox_depth',
  help: 'Outbox jobs pending (webhooks, LINE, alerts)',
  registers: [registry],
  async collect() {
    this.set((await outboxSnapshot()).depth);
  },
});
new Gauge({
  name: 'slipcheck_outbox_parked',
  help: "Outbox jobs parked as failed, kept for the operator (`slipcheck outbox failed`), by cause: invalid_payload (did not match its kind's schema) or failed (its handler kept failing)",
  labelNames: ['cause'],
  registers: [registry],
  async collect() {
    const { parked } = await outboxSnapshot();
    for (const [cause, n] of Object.entries(parked)) this.set({ cause }, n);
  },
});
new Gauge({
  name: 'slipcheck_outbox_oldest_age_seconds',
  help: 'Age of the oldest due outbox job (0 when none is due)',
  registers: [registry],
  async collect() {
    this.set((await outboxSnapshot()).oldestAgeSeconds);
  },
});

/** Registers a scrape-time source; returns its removal (called when the container closes). */
export function addDecoderSource(s: DecoderStatsSource): () => void {
  decoderSources.add(s);
  return () => {
    decoderSources.delete(s);
  };
}
export function addOutboxSource(s: OutboxStatsSource): () => void {
  outboxSources.add(s);
  return () => {
    outboxSources.delete(s);
  };
}

/** Seconds since `startNs` (from process.hrtime.bigint()). */
export const secondsSince = (startNs: bigint) => Number(process.hrtime.bigint() - startNs) / 1e9;

/**
 * The metrics listener: its own port on HOST, never the public one (scrapes stay inside the
 * operator's network, and the public app cannot leak them through a route).
 */
export async function startMetricsServer(
  port: number,
  host: string,
): Promise<{ server: http.Server; port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
