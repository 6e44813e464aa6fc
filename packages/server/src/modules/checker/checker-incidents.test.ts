// Provider account incidents: logged with the provider's code, the operator told once per incident,
// closed by the next bank answer; overage warned near the cap and capped at it.
import { describe, expect, it } from 'vitest';
import { createCheckerIncidents, type OperatorNotice } from './checker-accounts.js';
import { accountError } from './checker-port.js';

function setup(maxOverage = 0) {
  const warn: unknown[] = [];
  const notices: OperatorNotice[] = [];
  const inc = createCheckerIncidents({
    now: () => new Date('2026-01-01T00:00:00Z'),
    log: { warn: (o) => warn.push(o), info: () => {} },
    notify: (n) => void notices.push(n),
    maxOverage,
  });
  return { inc, warn, notices };
}

describe('checker incidents', () => {
  it('an account error opens one incident: logged with the provider code, one notice, /health degraded', () => {
    const { inc, warn, notices } = setup();
    for (let i = 0; i < 5; i++) inc.observe('slipok#0', accountError('package_expired', '1003', 'slipok: code 1003'));
    expect(warn).toEqual([{ upstream: 'slipok#0', reason: 'package_expired', providerCode: '1003' }]);
    expect(notices).toEqual([
      { type: 'ACCOUNT_PROBLEM', upstream: 'slipok#0', reason: 'package_expired', providerCode: '1003', since: '2026-01-01T00:00:00.000Z' },
    ]);
    expect(inc.health()).toEqual({
      status: 'degraded',
      upstreams: [{ upstream: 'slipok#0', problem: 'package_expired', since: '2026-01-01T00:00:00.000Z' }],
    });

    // outages and "cannot check this kind" do not end it; a bank answer does
    inc.observe('slipok#0', { kind: 'UNAVAILABLE', reason: 'timeout', timeout: true });
    inc.observe('slipok#0', { kind: 'UNSUPPORTED', reason: 'no image' });
    expect(inc.health().status).toBe('degraded');
    inc.observe('slipok#0', { kind: 'NOT_FOUND' });
    expect(inc.health()).toEqual({ status: 'up', upstreams: [] });
    expect(notices.map((n) => n.type)).toEqual(['ACCOUNT_PROBLEM', 'ACCOUNT_RECOVERED']);

    // a new incident after recovery is told again
    inc.observe('slipok#0', accountError('key_invalid', '1002', 'x'));
    expect(notices.map((n) => n.type)).toEqual(['ACCOUNT_PROBLEM', 'ACCOUNT_RECOVERED', 'ACCOUNT_PROBLEM']);
  });

  it('overage: warned once at 80 % of the cap, capped at it, released when the overage falls', () => {
    const { inc, notices } = setup(100);
    inc.recordAccount('slipok#0', { reachable: true, credentialsAccepted: true, quotaRemaining: 0, overage: 79 });
    expect(notices).toEqual([]);
    inc.recordAccount('slipok#0', { reachable: true, credentialsAccepted: true, quotaRemaining: 0, overage: 80 });
    inc.recordAccount('slipok#0', { reachable: true, credentialsAccepted: true, quotaRemaining: 0, overage: 90 });
    expect(notices.map((n) => n.type)).toEqual(['OVERAGE_NEAR_CAP']);
    expect(inc.isCapped('slipok#0')).toBe(false);
    inc.recordAccount('slipok#0', { reachable: true, credentialsAccepted: true, quotaRemaining: 0, overage: 100 });
    inc.recordAccount('slipok#0', { reachable: true, credentialsAccepted: true, quotaRemaining: 0, overage: 101 });
    expect(inc.isCapped('slipok#0')).toBe(true);
    expect(notices.map((n) => n.type)).toEqual(['OVERAGE_NEAR_CAP', 'OVERAGE_CAP_REACHED']);
    expect(inc.health().upstreams).toEqual([expect.objectContaining({ upstream: 'slipok#0', problem: 'overage_cap' })]);
    // a bank answer does not lift our own cap; a poll below it does
    inc.observe('slipok#0', { kind: 'NOT_FOUND' });
    expect(inc.isCapped('slipok#0')).toBe(true);
    inc.recordAccount('slipok#0', { reachable: true, credentialsAccepted: true, quotaRemaining: 3000, overage: 0 });
    expect(inc.isCapped('slipok#0')).toBe(false);
    expect(inc.health().status).toBe('up');
  });

  it('a notifier that throws or rejects never breaks a check', async () => {
    const inc = createCheckerIncidents({
      notify: () => {
        throw new Error('smtp down');
      },
    });
    expect(() => inc.observe('a', accountError('quota_exhausted', 'QUOTA_EXCEEDED', 'x'))).not.toThrow();
    const inc2 = createCheckerIncidents({ notify: () => Promise.reject(new Error('smtp down')) });
    expect(() => inc2.observe('a', accountError('quota_exhausted', 'QUOTA_EXCEEDED', 'x'))).not.toThrow();
    await new Promise((r) => setTimeout(r, 10));
  });
});
