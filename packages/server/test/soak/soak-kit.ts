import { randomInt } from 'node:crypto';
import type { FakeLinePlatform } from '../line/fake-line-platform.js';
import { quantile } from '../../bench/quantile.js';

export interface FaultActions {
  restart(which: 'node' | 'worker'): Promise<void>;
  terminateBackends(): Promise<void>;
  cutRedis(ms: number): Promise<void>;
  stallBank(ms: number): Promise<void>;
}

/** Picks the next fault at random (every kind comes up over a run) and runs it, marking its span. */
export function createFaultStepper(a: FaultActions) {
  // Quick faults first, so even the short run meets each of them; restarts take a process start.
  const steps: Array<[string, () => Promise<void>]> = [
    ['terminate database backends', () => a.terminateBackends()],
    ['cut Redis 3 s', () => a.cutRedis(3000)],
    ['stall the bank 4 s', () => a.stallBank(4000)],
    ['kill -9 an API node', () => a.restart('node')],
    ['kill -9 the worker', () => a.restart('worker')],
  ];
  let turn = 0;
  return {
    async next(begin: () => void, end: () => void): Promise<string> {
      // The first rounds go through every kind once, then at random.
      const [name, run] = turn < steps.length ? steps[turn]! : steps[randomInt(steps.length)]!;
      turn++;
      begin();
      try {
        await run();
      } finally {
        end();
      }
      return name;
    },
  };
}

/** One request of the mix: its kind, HTTP status (0: connection cut, -1: waited past the bound), time. */
export interface Sample {
  kind: string;
  status: number;
  ms: number;
  /** A fault was under way at some point while the request ran. */
  duringFault: boolean;
}

/** The benches' quantile (bench/quantile.ts) in whole milliseconds, p in percent; 0 for no sample. */
export const percentile = (xs: number[], p: number) => (xs.length ? Math.round(quantile(xs, p / 100)) : 0);

/**
 * Times every request of the mix and remembers whether a fault overlapped it: one that was under way
 * when it started or ended, or one that began in between (a request can outlive a short fault).
 */
export function createSampler(boundMs: number) {
  const samples: Sample[] = [];
  let active = 0;
  let begun = 0;
  return {
    samples,
    faultBegins() {
      active++;
      begun++;
    },
    faultEnds() {
      active--;
    },
    /** Runs one request under the bound; a thrown TimeoutError is -1, any other throw 0 (a cut connection). */
    async timed<T extends { status: number }>(kind: string, run: (signal: AbortSignal) => Promise<T>): Promise<T | { status: number }> {
      const t0 = performance.now();
      const before = begun;
      const activeAtStart = active > 0;
      let out: T | { status: number };
      try {
        out = await run(AbortSignal.timeout(boundMs));
      } catch (e) {
        out = { status: (e as Error).name === 'TimeoutError' ? -1 : 0 };
      }
      samples.push({ kind, status: out.status, ms: performance.now() - t0, duringFault: activeAtStart || active > 0 || begun !== before });
      return out;
    },
  };
}

/** Requests per kind with their statuses, and latency (p50/p99/max) overall, outside faults and during them. */
export function requestFigures(samples: Sample[]) {
  const kinds = [...new Set(samples.map((s) => s.kind))].sort();
  const byKind = Object.fromEntries(
    kinds.map((k) => {
      const of = samples.filter((s) => s.kind === k);
      const statuses: Record<string, number> = {};
      for (const s of of) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
      return [k, { n: of.length, statuses, maxMs: Math.round(Math.max(...of.map((s) => s.ms))) }];
    }),
  );
  const answered = samples.filter((s) => s.status > 0);
  const lat = (xs: Sample[]) => ({
    n: xs.length,
    p50: percentile(
      xs.map((s) => s.ms),
      50,
    ),
    p99: percentile(
      xs.map((s) => s.ms),
      99,
    ),
  });
  return {
    total: samples.length,
    byKind,
    latencyMs: {
      overall: lat(answered),
      calm: lat(answered.filter((s) => !s.duringFault)),
      duringFaults: lat(answered.filter((s) => s.duringFault)),
    },
  };
}

export interface Invariant {
  name: string;
  ok: boolean;
  detail: string;
}

/** The figures as the soak prints them: one readable block, then the same as one JSON line. */
export function printFigures(
  head: string,
  figures: ReturnType<typeof requestFigures>,
  faults: Record<string, number>,
  invariants: Invariant[],
  extra: Record<string, unknown>,
) {
  const lines = [`[soak] ${head}`, `[soak] requests: ${figures.total}`];
  for (const [k, v] of Object.entries(figures.byKind))
    lines.push(`[soak]   ${k.padEnd(18)} ${String(v.n).padStart(6)}  statuses ${JSON.stringify(v.statuses)}  max ${v.maxMs} ms`);
  lines.push(`[soak] faults injected: ${Object.values(faults).reduce((a, b) => a + b, 0)}`);
  for (const [k, n] of Object.entries(faults)) lines.push(`[soak]   ${k.padEnd(30)} ${n}`);
  const l = figures.latencyMs;
  lines.push(
    `[soak] latency (answered requests) p50/p99 ms: overall ${l.overall.p50}/${l.overall.p99} (n ${l.overall.n}), ` +
      `outside faults ${l.calm.p50}/${l.calm.p99} (n ${l.calm.n}), during faults ${l.duringFaults.p50}/${l.duringFaults.p99} (n ${l.duringFaults.n})`,
  );
  for (const [k, v] of Object.entries(extra)) lines.push(`[soak] ${k}: ${JSON.stringify(v)}`);
  lines.push('[soak] invariants:');
  for (const i of invariants) lines.push(`[soak]   ${i.ok ? 'held  ' : 'BROKEN'} ${i.name}: ${i.detail}`);
  console.log(lines.join('\n'));
  console.log(`[soak] ${JSON.stringify({ requests: figures, faults, ...extra, invariants })}`);
}

/** A LINE webhook event as the soak sent it: its id, reply token and the (one-event) user it came from. */
interface SentLineEvent {
  webhookEventId: string;
  replyToken: string;
  userId: string;
  /** Some delivery answered 200 (the service took it). */
  accepted: boolean;
  deliveries: number;
}

/**
 * What the soak sent to the LINE webhook and what the LINE platform then carried to the chats. Each
 * event comes from a LINE user of its own, so an answer belongs to one event: a reply by its reply
 * token, a push by its recipient.
 */
export function createLineLedger(fake: Pick<FakeLinePlatform, 'replies' | 'pushes' | 'rejected'>) {
  const events: SentLineEvent[] = [];
  let redeliveries = 0;
  let deduped = 0;
  const answersOf = () => {
    const byToken = new Map<string, number>();
    const byUser = new Map<string, number>();
    for (const r of fake.replies) if (r.body.replyToken) byToken.set(r.body.replyToken, (byToken.get(r.body.replyToken) ?? 0) + 1);
    for (const p of fake.pushes) if (p.body.to) byUser.set(p.body.to, (byUser.get(p.body.to) ?? 0) + 1);
    return events.map((e) => ({
      e,
      replies: byToken.get(e.replyToken) ?? 0,
      pushes: byUser.get(e.userId) ?? 0,
    }));
  };
  return {
    sent(e: { webhookEventId: string; replyToken: string; source: { userId?: string } }): SentLineEvent {
      const s = { webhookEventId: e.webhookEventId, replyToken: e.replyToken, userId: e.source.userId!, accepted: false, deliveries: 0 };
      events.push(s);
      return s;
    },
    /** One POST of the event; `redelivery` when LINE sends it again (isRedelivery), `received` what the service said it took. */
    delivery(s: SentLineEvent, o: { redelivery: boolean; status: number; received?: number }) {
      s.deliveries++;
      if (o.redelivery) redeliveries++;
      if (o.status !== 200) return;
      // A redelivery of an event the service already holds is taken once: it says it received nothing new.
      if (o.redelivery && o.received === 0) deduped++;
      s.accepted = true;
    },
    /** True once every accepted event has at least one reply or push. */
    allAnswered: () => answersOf().every((a) => !a.e.accepted || a.replies + a.pushes > 0),
    summary() {
      const a = answersOf();
      const accepted = a.filter((x) => x.e.accepted);
      return {
        events: events.length,
        accepted: accepted.length,
        neverAccepted: events.length - accepted.length,
        redeliveries,
        redeliveriesTakenOnce: deduped,
        answeredByReply: accepted.filter((x) => x.replies === 1 && x.pushes === 0).length,
        answeredByPush: accepted.filter((x) => x.replies === 0 && x.pushes === 1).length,
        unanswered: accepted.filter((x) => x.replies + x.pushes === 0).length,
        answeredMoreThanOnce: a.filter((x) => x.replies + x.pushes > 1).length,
        refusedByLine: fake.rejected.length,
      };
    },
  };
}

/**
 * An owner signed in over HTTP as the dashboard does (`POST /api/dashboard/auth/login`); signs in again
 * before the 15-minute access token runs out, so a long soak keeps reading.
 */
export function dashboardSession(email: string, password: string) {
  let token: { value: string; at: number } | null = null;
  return async (baseUrl: string): Promise<{ authorization: string }> => {
    if (!token || Date.now() - token.at > 10 * 60_000) {
      try {
        const r = await fetch(`${baseUrl}/api/dashboard/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'Mozilla/5.0 (soak) SoakTest/1.0' },
          body: JSON.stringify({ email, password }),
        });
        if (r.status !== 200) throw new Error(`dashboard sign-in answered ${r.status}: ${await r.text()}`);
        token = { value: ((await r.json()) as { data: { accessToken: string } }).data.accessToken, at: Date.now() };
      } catch (e) {
        // A renewal cut by a fault keeps the token it has (valid 5 more minutes) and tries again next read.
        if (!token) throw e;
      }
    }
    return { authorization: `Bearer ${token.value}` };
  };
}

/**
 * What an operator reads in the services' logs: every warn and error line (pino JSON), by message
 * (with `where` for background steps), counted over every process the soak started, killed ones too.
 */
export function warningsOf(logs: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const log of logs)
    for (const line of log.split('\n')) {
      let msg: string;
      if (line.startsWith('{')) {
        let j: { level?: number; msg?: string; where?: string; code?: string; message?: string };
        try {
          j = JSON.parse(line);
        } catch {
          continue;
        }
        const level = j.level ?? 0;
        // Start-up noise of a test process, not a fault: the soak serves no dashboard bundle.
        if (level < 40 || !j.msg || j.msg.startsWith('dashboard build not found')) continue;
        const cause = j.where ? ` (where ${j.where}${j.code ? `, code ${j.code}` : ''}: ${(j.message ?? '').slice(0, 60)})` : '';
        msg = `${level >= 50 ? 'error' : 'warn'} ${j.msg.slice(0, 90)}${cause}`;
      } else if (line.trim()) msg = `stderr ${line.trim().slice(0, 90)}`;
      else continue;
      out[msg] = (out[msg] ?? 0) + 1;
    }
  return out;
}

/** One look at a node as an operator would take it during a fault: /health's status and body, two Redis gauges. */
export async function operatorView(node: { url: string; metricsUrl: string }): Promise<string> {
  const health = await fetch(`${node.url}/health`, { signal: AbortSignal.timeout(5000) }).then(
    async (r) => {
      const b = (await r.json()) as { status: string; checks: Record<string, { status: string }> };
      return `/health ${r.status} ${b.status} (${Object.entries(b.checks)
        .map(([k, v]) => `${k} ${v.status}`)
        .join(', ')})`;
    },
    () => '/health no answer',
  );
  const gauges = await fetch(node.metricsUrl, { signal: AbortSignal.timeout(5000) }).then(
    async (r) => {
      const t = await r.text();
      return ['slipcheck_redis_up', 'slipcheck_rate_limit_fallback']
        .map((k) => `${k} ${new RegExp(`^${k} (\\S+)$`, 'm').exec(t)?.[1] ?? '-'}`)
        .join(', ');
    },
    () => 'metrics no answer',
  );
  return `${health}; ${gauges}`;
}
