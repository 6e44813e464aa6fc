import { describe, expect, it } from 'vitest';
import type { Checker, CheckerResult } from './checker-port.js';
import { createCircuitBreaker, createFailoverChecker, createResilientChecker, withDeadline } from './resilient-checker.js';

const q = { payload: 'p', bankCode: '004', transRef: 'ref123456789' };
const FOUND: CheckerResult = {
  kind: 'FOUND',
  slip: {
    transRef: 'ref123456789',
    amount: 1,
    transDate: '2026-01-01T00:00:00.000Z',
    sendingBankCode: '004',
    receivingBankCode: '004',
    sender: { name: 'a' },
    receiver: { name: 'b' },
  },
};
const down = (retryable = true): CheckerResult => ({ kind: 'UNAVAILABLE', reason: 'down', retryable });

/** answers from a script (last entry repeats) and counts calls */
function scripted(id: string, script: CheckerResult[]): Checker & { calls: number } {
  const c = {
    id,
    calls: 0,
    async check() {
      const r = script[Math.min(c.calls, script.length - 1)];
      c.calls++;
      return r;
    },
  };
  return c;
}

function fakeTime() {
  const t = { now: 1_000_000, sleeps: [] as number[] };
  return {
    t,
    deps: {
      now: () => t.now,
      sleep: async (ms: number) => {
        t.sleeps.push(ms);
        t.now += ms;
      },
      random: () => 0.5,
    },
  };
}

describe('retries', () => {
  it('retries retryable UNAVAILABLE with growing jittered backoff, then succeeds', async () => {
    const { t, deps } = fakeTime();
    const inner = scripted('a', [down(), down(), FOUND]);
    const c = createResilientChecker(inner, { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000, breaker: false }, deps);
    expect(await c.check(q)).toEqual(FOUND);
    expect(inner.calls).toBe(3);
    // backoff in [b/2, b]; random=0.5 -> 0.75 b with b = 100, 200
    expect(t.sleeps).toEqual([75, 150]);
  });

  it('stops after maxAttempts and returns the last UNAVAILABLE', async () => {
    const { deps } = fakeTime();
    const inner = scripted('a', [down()]);
    const c = createResilientChecker(inner, { maxAttempts: 4, breaker: false }, deps);
    expect(await c.check(q)).toMatchObject({ kind: 'UNAVAILABLE' });
    expect(inner.calls).toBe(4);
  });

  it.each<[string, CheckerResult]>([
    ['NOT_FOUND', { kind: 'NOT_FOUND' }],
    ['PENDING', { kind: 'PENDING', retryAfterSeconds: 60 }],
    ['non-retryable UNAVAILABLE (4xx)', down(false)],
  ])('does not retry %s', async (_l, r) => {
    const { deps } = fakeTime();
    const inner = scripted('a', [r, FOUND]);
    const c = createResilientChecker(inner, { maxAttempts: 5, breaker: false }, deps);
    expect(await c.check(q)).toEqual(r);
    expect(inner.calls).toBe(1);
  });

  it('never sleeps past the overall deadline', async () => {
    const { t, deps } = fakeTime();
    const inner = scripted('a', [down()]);
    const c = createResilientChecker(inner, { maxAttempts: 10, baseDelayMs: 400, maxDelayMs: 400, deadlineMs: 1000, breaker: false }, deps);
    await c.check(q);
    // 300 ms sleeps: 3 fit inside 1000 ms (next would end at 1200)
    expect(t.sleeps).toEqual([300, 300, 300]);
    expect(inner.calls).toBe(4);
  });

  it('times out a hanging attempt and retries it', async () => {
    let calls = 0;
    const inner: Checker = {
      id: 'slow',
      check: (_q, o) =>
        new Promise((resolve) => {
          calls++;
          if (calls === 2) return resolve(FOUND);
          // ignores its signal on purpose: the wrapper must still give up
          void o;
        }),
    };
    const c = createResilientChecker(inner, { timeoutMs: 40, maxAttempts: 3, baseDelayMs: 1, breaker: false });
    const t0 = Date.now();
    expect(await c.check(q)).toEqual(FOUND);
    expect(calls).toBe(2);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('aborts the attempt signal on timeout', async () => {
    let seen: AbortSignal | undefined;
    const inner: Checker = {
      id: 'slow',
      check: (_q, o) =>
        new Promise((resolve) => {
          seen = o?.signal;
          o?.signal?.addEventListener('abort', () => resolve(down()));
        }),
    };
    const c = createResilientChecker(inner, { timeoutMs: 20, maxAttempts: 1, breaker: false });
    expect(await c.check(q)).toMatchObject({ kind: 'UNAVAILABLE', reason: expect.stringContaining('timeout') });
    expect(seen?.aborted).toBe(true);
  });

  it('a thrown error becomes UNAVAILABLE', async () => {
    const inner: Checker = {
      id: 'x',
      check: async () => {
        throw new Error('bug');
      },
    };
    const c = createResilientChecker(inner, { maxAttempts: 1, breaker: false });
    expect(await c.check(q)).toMatchObject({ kind: 'UNAVAILABLE' });
  });

  it('stops retrying when the caller aborts', async () => {
    const ac = new AbortController();
    const inner = scripted('a', [down()]);
    const c = createResilientChecker(
      inner,
      { maxAttempts: 5, breaker: false },
      {
        sleep: async () => {
          ac.abort();
        },
      },
    );
    expect(await c.check(q, { signal: ac.signal })).toMatchObject({ kind: 'UNAVAILABLE' });
    expect(inner.calls).toBe(1);
  });
});

describe('circuit breaker', () => {
  it('opens after N consecutive failures, answers at once while open, probes after the cool-down', async () => {
    const { t, deps } = fakeTime();
    const inner = scripted('a', [down(), down(), down(), FOUND]);
    const c = createResilientChecker(inner, { maxAttempts: 1, breaker: { failureThreshold: 3, cooldownMs: 10_000 } }, deps);
    for (let i = 0; i < 3; i++) await c.check(q);
    expect(c.breakerState()).toBe('OPEN');
    expect(await c.check(q)).toMatchObject({ kind: 'UNAVAILABLE', reason: 'circuit open', retryable: false });
    expect(inner.calls).toBe(3);
    t.now += 10_000;
    expect(c.breakerState()).toBe('HALF_OPEN');
    expect(await c.check(q)).toEqual(FOUND);
    expect(c.breakerState()).toBe('CLOSED');
    expect(inner.calls).toBe(4);
  });

  it('a failed probe re-opens for another cool-down', async () => {
    const { t, deps } = fakeTime();
    const inner = scripted('a', [down()]);
    const c = createResilientChecker(inner, { maxAttempts: 1, breaker: { failureThreshold: 2, cooldownMs: 5_000 } }, deps);
    await c.check(q);
    await c.check(q);
    t.now += 5_000;
    await c.check(q);
    expect(c.breakerState()).toBe('OPEN');
    expect(inner.calls).toBe(3);
    t.now += 4_999;
    await c.check(q);
    expect(inner.calls).toBe(3);
  });

  it('lets a single probe through while half-open', async () => {
    const { t, deps } = fakeTime();
    const br = createCircuitBreaker({ failureThreshold: 1, cooldownMs: 100 }, deps);
    await br.run(async () => down());
    t.now += 100;
    let release!: (r: CheckerResult) => void;
    const probe = br.run(() => new Promise<CheckerResult>((r) => (release = r)));
    const second = await br.run(async () => FOUND);
    expect(second).toMatchObject({ kind: 'UNAVAILABLE', retryable: false });
    release(FOUND);
    expect(await probe).toEqual(FOUND);
    expect(br.state()).toBe('CLOSED');
  });

  it('successes (including NOT_FOUND and PENDING) reset the failure count', async () => {
    const { deps } = fakeTime();
    const inner = scripted('a', [
      down(),
      down(),
      { kind: 'NOT_FOUND' },
      down(),
      down(),
      { kind: 'PENDING', retryAfterSeconds: 1 },
      down(),
      down(),
    ]);
    const c = createResilientChecker(inner, { maxAttempts: 1, breaker: { failureThreshold: 3 } }, deps);
    for (let i = 0; i < 8; i++) await c.check(q);
    expect(c.breakerState()).toBe('CLOSED');
  });

  it('a retry burst counts each attempt; the open breaker ends the burst', async () => {
    const { deps } = fakeTime();
    const inner = scripted('a', [down()]);
    const c = createResilientChecker(inner, { maxAttempts: 5, breaker: { failureThreshold: 2 } }, deps);
    expect(await c.check(q)).toMatchObject({ kind: 'UNAVAILABLE' });
    expect(inner.calls).toBe(2);
  });
});

describe('failover', () => {
  it('asks the next checker only on UNAVAILABLE', async () => {
    const a = scripted('a', [down(false)]);
    const b = scripted('b', [FOUND]);
    const chain = createFailoverChecker([a, b]);
    expect(await chain.check(q)).toEqual(FOUND);
    expect([a.calls, b.calls]).toEqual([1, 1]);
  });

  it.each<[string, CheckerResult]>([
    ['FOUND', FOUND],
    ['NOT_FOUND', { kind: 'NOT_FOUND' }],
    ['PENDING', { kind: 'PENDING', retryAfterSeconds: 30 }],
  ])('%s from the first is final', async (_l, r) => {
    const a = scripted('a', [r]);
    const b = scripted('b', [FOUND]);
    expect(await createFailoverChecker([a, b]).check(q)).toEqual(r);
    expect(b.calls).toBe(0);
  });

  it('all down -> one UNAVAILABLE naming each member internally', async () => {
    const chain = createFailoverChecker([scripted('a', [down()]), scripted('b', [down(false)])]);
    const r = await chain.check(q);
    expect(r).toMatchObject({ kind: 'UNAVAILABLE', retryable: false });
    expect(r.kind === 'UNAVAILABLE' && r.reason).toMatch(/a: down; b: down/);
  });

  it('an open breaker on the first member fails over immediately', async () => {
    const { deps } = fakeTime();
    const a = scripted('a', [down()]);
    const ra = createResilientChecker(a, { maxAttempts: 1, breaker: { failureThreshold: 1 } }, deps);
    const b = scripted('b', [FOUND]);
    const chain = createFailoverChecker([ra, b]);
    await chain.check(q);
    await chain.check(q);
    expect(a.calls).toBe(1);
    expect(b.calls).toBe(2);
  });

  it('withDeadline caps the whole chain', async () => {
    const hang: Checker = { id: 'h', check: () => new Promise(() => {}) };
    const t0 = Date.now();
    const r = await withDeadline(createFailoverChecker([hang, hang]), 50).check(q);
    expect(r.kind).toBe('UNAVAILABLE');
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
