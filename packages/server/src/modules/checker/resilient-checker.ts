// Resilience around one upstream (timeout per attempt, jittered retries inside a deadline,
// circuit breaker) and across upstreams (failover chain). Only UNAVAILABLE is ever retried, and
// UNAVAILABLE or UNSUPPORTED failed over: FOUND / NOT_FOUND / PENDING are the bank's answer and final.
import type { Checker, CheckerQuery, CheckerResult, CheckOptions } from './checker-port.js';
import { unavailable, unsupported } from './checker-port.js';
import { metrics } from '../../lib/metrics.js';

export interface ResilienceDeps {
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** in [0, 1) */
  random?: () => number;
}

export interface BreakerOptions {
  /** consecutive failed attempts that open the breaker */
  failureThreshold?: number;
  /** how long it stays open before letting one probe through */
  cooldownMs?: number;
}

export type BreakerState = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

export interface CircuitBreaker {
  state(): BreakerState;
  /** runs fn unless open; counts its UNAVAILABLE as a failure unless `ignore()` says the caller gave up */
  run(fn: () => Promise<CheckerResult>, ignore?: () => boolean): Promise<CheckerResult>;
}

export function createCircuitBreaker(opts: BreakerOptions = {}, deps: ResilienceDeps = {}): CircuitBreaker {
  const threshold = Math.max(1, opts.failureThreshold ?? 5);
  const cooldownMs = opts.cooldownMs ?? 30_000;
  const now = deps.now ?? Date.now;
  let state: BreakerState = 'CLOSED';
  let failures = 0;
  let openedAt = 0;
  let probing = false;
  // An open breaker answers with what made it open, so an account problem stays visible as one
  // (operator alert, shop wording) instead of turning into an anonymous "circuit open".
  let lastFailure: Extract<CheckerResult, { kind: 'UNAVAILABLE' }> | null = null;
  const openAnswer = (reason: string): CheckerResult => ({
    kind: 'UNAVAILABLE',
    reason,
    retryable: false,
    ...(lastFailure?.account ? { account: lastFailure.account, providerCode: lastFailure.providerCode } : {}),
    ...(lastFailure?.retryAfterSeconds ? { retryAfterSeconds: lastFailure.retryAfterSeconds } : {}),
  });

  function current(): BreakerState {
    if (state === 'OPEN' && now() - openedAt >= cooldownMs) state = 'HALF_OPEN';
    return state;
  }

  return {
    state: current,
    async run(fn, ignore) {
      const s = current();
      if (s === 'OPEN') return openAnswer('circuit open');
      if (s === 'HALF_OPEN' && probing) return openAnswer('circuit half-open, probe in flight');
      const isProbe = s === 'HALF_OPEN';
      if (isProbe) probing = true;
      let r: CheckerResult;
      try {
        r = await fn();
      } catch (err) {
        r = unavailable(`checker threw: ${(err as Error)?.message ?? String(err)}`, true);
      } finally {
        if (isProbe) probing = false;
      }
      if (ignore?.()) return r;
      if (r.kind === 'UNAVAILABLE') {
        lastFailure = r;
        failures++;
        if (isProbe || failures >= threshold) {
          state = 'OPEN';
          openedAt = now();
        }
      } else {
        failures = 0;
        lastFailure = null;
        state = 'CLOSED';
      }
      return r;
    },
  };
}

export interface ResilientOptions {
  /** per attempt; default 10 s */
  timeoutMs?: number;
  /** all attempts and backoff sleeps together; default max(25 s, timeoutMs) */
  deadlineMs?: number;
  /** default 3 */
  maxAttempts?: number;
  /** backoff before attempt n+1 is in [b/2, b] with b = min(maxDelayMs, baseDelayMs * 2^(n-1)) */
  baseDelayMs?: number;
  maxDelayMs?: number;
  breaker?: BreakerOptions | CircuitBreaker | false;
  /**
   * Re-send to this upstream after a timed-out attempt (default true). A timed-out request may have
   * been done, and charged, by the provider: with another provider in the chain the factory sets this
   * false, so a timeout fails over instead of paying twice at the same provider.
   */
  retryTimeouts?: boolean;
  /** sees every attempt's answer (the incident tracker: account problems, alerts, /health) */
  observe?: (upstream: string, result: CheckerResult) => void;
}

export interface ResilientChecker extends Checker {
  breakerState(): BreakerState;
}

/** One upstream: retry(breaker(timeout(inner))). The breaker lives as long as the returned checker. */
export function createResilientChecker(inner: Checker, opts: ResilientOptions = {}, deps: ResilienceDeps = {}): ResilientChecker {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const deadlineMs = opts.deadlineMs ?? Math.max(25_000, timeoutMs);
  const maxAttempts = Math.max(1, opts.maxAttempts ?? 3);
  const baseDelayMs = opts.baseDelayMs ?? 200;
  const maxDelayMs = opts.maxDelayMs ?? 2_000;
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? abortableSleep;
  const random = deps.random ?? Math.random;
  const breaker = opts.breaker === false ? null : isBreaker(opts.breaker) ? opts.breaker : createCircuitBreaker(opts.breaker ?? {}, deps);

  const retryTimeouts = opts.retryTimeouts ?? true;

  return {
    id: inner.id,
    supports: inner.supports,
    breakerState: () => breaker?.state() ?? 'CLOSED',
    async check(q: CheckerQuery, o?: CheckOptions): Promise<CheckerResult> {
      const kind = q.kind ?? 'BANK';
      if (inner.supports && !inner.supports.includes(kind)) {
        metrics.checkerCalls.inc({ upstream: inner.id, outcome: 'skipped', breaker: (breaker?.state() ?? 'CLOSED').toLowerCase() });
        return unsupported(`${inner.id}: does not check ${kind} slips`);
      }
      const outer = o?.signal;
      const deadline = now() + deadlineMs;
      let last: CheckerResult | null = null;
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        if (outer?.aborted) break;
        const remaining = deadline - now();
        if (remaining <= 0) break;
        const attemptMs = Math.min(timeoutMs, remaining);
        const call = () => callWithTimeout(inner, q, attemptMs, outer);
        const r = breaker ? await breaker.run(call, () => outer?.aborted === true) : await call();
        metrics.checkerCalls.inc({
          upstream: inner.id,
          outcome: r.kind === 'UNAVAILABLE' ? 'failure' : r.kind.toLowerCase(),
          breaker: (breaker?.state() ?? 'CLOSED').toLowerCase(),
        });
        if (r.kind === 'UNAVAILABLE' && r.account) metrics.checkerAccountErrors.inc({ upstream: inner.id, reason: r.account });
        opts.observe?.(inner.id, r);
        if (r.kind !== 'UNAVAILABLE') return r;
        last = r;
        if (r.retryable === false || attempt === maxAttempts) break;
        if (r.timeout && !retryTimeouts) break;
        const cap = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
        const delay = cap / 2 + random() * (cap / 2);
        if (now() + delay >= deadline) break;
        await sleep(delay, outer);
        // Each re-send may be billed by the provider if the earlier attempt reached it (a timeout).
        metrics.checkerResends.inc({ upstream: inner.id, cause: r.timeout ? 'timeout' : 'failure' });
      }
      if (outer?.aborted && last === null) return unavailable('aborted by caller', false);
      return last ?? unavailable('deadline exceeded', true);
    },
  };
}

/**
 * Race the adapter against a timer, and abort its request when the timer fires, so an adapter
 * that ignores its signal still cannot hold the pipeline past the attempt budget.
 */
export async function callWithTimeout(inner: Checker, q: CheckerQuery, ms: number, outer?: AbortSignal): Promise<CheckerResult> {
  const ac = new AbortController();
  const onOuter = () => ac.abort(outer?.reason);
  if (outer) {
    if (outer.aborted) return unavailable('aborted by caller', false);
    outer.addEventListener('abort', onOuter, { once: true });
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<CheckerResult>((resolve) => {
    timer = setTimeout(() => {
      // resolve first: abort listeners run synchronously and would win the race otherwise
      resolve({ kind: 'UNAVAILABLE', reason: `timeout after ${ms} ms`, retryable: true, timeout: true });
      ac.abort(new Error('attempt timeout'));
    }, ms);
  });
  const aborted = new Promise<CheckerResult>((resolve) => {
    ac.signal.addEventListener('abort', () => resolve(unavailable('aborted', !outer?.aborted)), { once: true });
  });
  try {
    const work = inner
      .check(q, { signal: ac.signal })
      .catch((err: unknown) => unavailable(`checker threw: ${(err as Error)?.message ?? String(err)}`, true));
    return await Promise.race([work, timedOut, aborted]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  }
}

/**
 * Ask each checker in turn; UNAVAILABLE and UNSUPPORTED move on to the next. The chain's own answer
 * when nobody answered: UNSUPPORTED when every member said it cannot check this kind; otherwise
 * UNAVAILABLE, flagged `account` when every failure was an account problem (shops are then told the
 * service cannot check for now rather than "send again in a minute").
 */
export function createFailoverChecker(checkers: Checker[]): Checker {
  if (checkers.length === 0) throw new Error('createFailoverChecker needs at least one checker');
  if (checkers.length === 1) return checkers[0];
  return {
    id: checkers.map((c) => c.id).join(','),
    async check(q, o) {
      const reasons: string[] = [];
      const failures: Array<Extract<CheckerResult, { kind: 'UNAVAILABLE' }>> = [];
      for (const c of checkers) {
        if (o?.signal?.aborted) {
          reasons.push('aborted by caller');
          break;
        }
        let r: CheckerResult;
        try {
          r = await c.check(q, o);
        } catch (err) {
          r = unavailable(`checker threw: ${(err as Error)?.message ?? String(err)}`, true);
        }
        if (r.kind !== 'UNAVAILABLE' && r.kind !== 'UNSUPPORTED') return r;
        reasons.push(`${c.id}: ${r.reason}`);
        if (r.kind === 'UNAVAILABLE') failures.push(r);
      }
      if (failures.length === 0 && reasons.length === checkers.length) return unsupported(reasons.join('; '));
      const allAccount = failures.length > 0 && failures.every((f) => f.account);
      const hint = Math.max(0, ...failures.map((f) => f.retryAfterSeconds ?? 0));
      return {
        kind: 'UNAVAILABLE',
        reason: reasons.join('; '),
        retryable: false,
        ...(allAccount ? { account: failures[0].account, providerCode: failures[0].providerCode } : {}),
        ...(hint > 0 && failures.every((f) => f.retryAfterSeconds || f.account) ? { retryAfterSeconds: hint } : {}),
      };
    },
  };
}

/** Caps a whole check (for example a failover chain) with one overall deadline. */
export function withDeadline(inner: Checker, deadlineMs: number): Checker {
  return {
    id: inner.id,
    check: (q, o) => callWithTimeout(inner, q, deadlineMs, o?.signal),
  };
}

function isBreaker(v: unknown): v is CircuitBreaker {
  return typeof v === 'object' && v !== null && typeof (v as CircuitBreaker).run === 'function';
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
