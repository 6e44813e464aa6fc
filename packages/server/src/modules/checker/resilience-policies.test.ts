// The per-provider policies the issue asks for, at the unit level: kinds a provider does not check are
// skipped without a call; account errors are never retried and survive an open breaker; a timed-out
// attempt is re-sent only when no other provider exists, and every re-send is counted.
import { describe, expect, it } from 'vitest';
import type { Checker, CheckerResult } from './checker-port.js';
import { accountError } from './checker-port.js';
import { createFailoverChecker, createResilientChecker } from './resilient-checker.js';
import { registry } from '../../lib/metrics.js';

const FOUND: CheckerResult = {
  kind: 'FOUND',
  slip: {
    transRef: 'r',
    amount: 1,
    transDate: '2026-01-01T00:00:00.000Z',
    sendingBankCode: '004',
    receivingBankCode: null,
    sender: { name: '' },
    receiver: { name: '' },
  },
};
const q = { payload: 'p', bankCode: '004', transRef: 'ref123456789' };

function scripted(id: string, script: CheckerResult[], supports?: Checker['supports']): Checker & { calls: number } {
  const c = {
    id,
    supports,
    calls: 0,
    async check() {
      return script[Math.min(c.calls++, script.length - 1)];
    },
  };
  return c;
}
const fast = { sleep: async () => {}, random: () => 0 };
async function counter(name: string, labels: Record<string, string>): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
  const v = m?.values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val));
  return Number(v?.value ?? 0);
}

describe('resilience policies per provider', () => {
  it('a kind the provider does not check is skipped without a call; the next provider is asked', async () => {
    const bankOnly = scripted('bankonly', [FOUND], ['BANK']);
    const both = scripted('both', [FOUND]);
    const chain = createFailoverChecker([
      createResilientChecker(bankOnly, { breaker: false }, fast),
      createResilientChecker(both, { breaker: false }, fast),
    ]);
    expect((await chain.check({ ...q, kind: 'TRUEMONEY' })).kind).toBe('FOUND');
    expect(bankOnly.calls).toBe(0);
    expect(both.calls).toBe(1);
    const alone = createResilientChecker(scripted('b2', [FOUND], ['BANK']), { breaker: false }, fast);
    expect(await alone.check({ ...q, kind: 'TRUEMONEY' })).toMatchObject({ kind: 'UNSUPPORTED' });
  });

  it('every member unsupported -> UNSUPPORTED; one unavailable among them -> UNAVAILABLE', async () => {
    const u: CheckerResult = { kind: 'UNSUPPORTED', reason: 'x' };
    const a = createFailoverChecker([scripted('a', [u]), scripted('b', [u])]);
    expect((await a.check(q)).kind).toBe('UNSUPPORTED');
    const b = createFailoverChecker([scripted('a', [u]), scripted('b', [{ kind: 'UNAVAILABLE', reason: 'down', retryable: true }])]);
    expect((await b.check(q)).kind).toBe('UNAVAILABLE');
  });

  it('an account error is never retried, and an open breaker still says it is an account problem', async () => {
    const inner = scripted('acct', [accountError('quota_exhausted', 'QUOTA_EXCEEDED', 'x')]);
    const c = createResilientChecker(inner, { maxAttempts: 3, breaker: { failureThreshold: 1, cooldownMs: 60_000 } }, fast);
    expect(await c.check(q)).toMatchObject({ kind: 'UNAVAILABLE', account: 'quota_exhausted' });
    expect(inner.calls).toBe(1);
    // breaker now open: answered without a call, still flagged
    expect(await c.check(q)).toMatchObject({ kind: 'UNAVAILABLE', account: 'quota_exhausted', reason: 'circuit open' });
    expect(inner.calls).toBe(1);
  });

  it('all members down with account errors -> the chain answer is an account problem (shops: CHECK_UNAVAILABLE)', async () => {
    const chain = createFailoverChecker([
      scripted('a', [accountError('key_invalid', '1002', 'x')]),
      scripted('b', [accountError('ip_not_allowed', 'IP_NOT_ALLOWED', 'y')]),
    ]);
    expect(await chain.check(q)).toMatchObject({ kind: 'UNAVAILABLE', account: 'key_invalid' });
    const mixed = createFailoverChecker([
      scripted('a', [accountError('key_invalid', '1002', 'x')]),
      scripted('b', [{ kind: 'UNAVAILABLE', reason: '5xx' }]),
    ]);
    expect((await mixed.check(q)) as { account?: string }).not.toHaveProperty('account');
  });

  it('timeouts: re-sent (and counted) only when retryTimeouts; otherwise failover', async () => {
    const timeout: CheckerResult = { kind: 'UNAVAILABLE', reason: 'timeout', retryable: true, timeout: true };
    const before = await counter('slipcheck_checker_resends_total', { upstream: 'single', cause: 'timeout' });
    const single = scripted('single', [timeout, FOUND]);
    expect((await createResilientChecker(single, { breaker: false, retryTimeouts: true }, fast).check(q)).kind).toBe('FOUND');
    expect(single.calls).toBe(2);
    expect(await counter('slipcheck_checker_resends_total', { upstream: 'single', cause: 'timeout' })).toBe(before + 1);

    const chained = scripted('chained', [timeout, FOUND]);
    expect((await createResilientChecker(chained, { breaker: false, retryTimeouts: false }, fast).check(q)).kind).toBe('UNAVAILABLE');
    expect(chained.calls).toBe(1);
  });

  it('account errors are counted with a bounded reason label', async () => {
    const before = await counter('slipcheck_checker_account_errors_total', { upstream: 'metered', reason: 'package_expired' });
    await createResilientChecker(scripted('metered', [accountError('package_expired', '1003', 'x')]), { breaker: false }, fast).check(q);
    expect(await counter('slipcheck_checker_account_errors_total', { upstream: 'metered', reason: 'package_expired' })).toBe(before + 1);
  });
});
