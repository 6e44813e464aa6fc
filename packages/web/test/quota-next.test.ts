import { describe, expect, it } from 'vitest';
import { quotaNext, type QuotaNextInput } from '../src/lib/quota-next';
import { translate } from '../src/i18n/translate';

// The shipped plans (packages/server/config/plans.json) as the overview reports them.
const GROWTH = { limit: 2000, freeBuffer: 50, hardLimit: 4050, allowOverage: true, overagePriceSatang: 50, trial: false };
const STARTER = { limit: 500, freeBuffer: 10, hardLimit: 510, allowOverage: false, overagePriceSatang: 0, trial: false };
const TRIAL = { limit: 50, freeBuffer: 0, hardLimit: 50, allowOverage: false, overagePriceSatang: 0, trial: true };
/** The service's overageOf: past the limit and the free buffer. */
const at = (plan: Omit<QuotaNextInput, 'used' | 'overage'>, used: number) =>
  quotaNext({ ...plan, used, overage: Math.max(0, used - plan.limit - plan.freeBuffer) });

describe('the quota card: what happens next', () => {
  it('says nothing below 80 % of the limit (the quota alert mail threshold)', () => {
    expect(at(GROWTH, 1599)).toBeNull();
    expect(at(GROWTH, 1600)?.stage).toBe('near');
    expect(at(TRIAL, 39)).toBeNull();
    expect(at(TRIAL, 40)?.body).toBe('quota.next.nearStop');
  });

  it('a plan with overage: free buffer, then charged per slip in integer satang, then the hard block', () => {
    expect(at(GROWTH, 1999)?.body).toBe('quota.next.nearOverage');
    expect(at(GROWTH, 2000)).toMatchObject({ stage: 'buffer', body: 'quota.next.bufferOverage', vars: { n: 0 } });
    expect(at(GROWTH, 2050)).toMatchObject({ stage: 'buffer', vars: { n: 50 } });
    expect(at(GROWTH, 2051)).toMatchObject({ stage: 'overage', vars: { n: 1, amountSatang: 50 } });
    // 1,999 x 50 satang, exact (a float of 0.5 baht would be too, but 0.35 x 3 is not: see below).
    expect(at(GROWTH, 4049)).toMatchObject({ stage: 'overage', vars: { n: 1999, amountSatang: 99_950 } });
    expect(at(GROWTH, 4050)).toMatchObject({ stage: 'stopped', body: 'quota.next.stopped' });
    const business = { limit: 10_000, freeBuffer: 200, hardLimit: 30_000, allowOverage: true, overagePriceSatang: 35, trial: false };
    expect(at(business, 10_203)?.vars.amountSatang).toBe(105); // 3 x ฿0.35 = ฿1.05, not 1.0499999999999998
  });

  it('a plan without overage and the trial: checks stop at the limit plus the free buffer, never a charge', () => {
    expect(at(STARTER, 400)?.body).toBe('quota.next.nearStopBuffer');
    expect(at(STARTER, 505)).toMatchObject({ stage: 'buffer', body: 'quota.next.bufferStop', vars: { n: 5, amountSatang: 0 } });
    expect(at(STARTER, 510)).toMatchObject({ stage: 'stopped', body: 'quota.next.stopped' });
    expect(at(TRIAL, 50)).toMatchObject({ stage: 'stopped', body: 'quota.next.stoppedTrial' });
    // A plan that allows overage at no price charges nothing: it reads as one that stops.
    expect(at({ ...GROWTH, overagePriceSatang: 0 }, 1900)?.body).toBe('quota.next.nearStopBuffer');
  });

  it('every sentence reads in Thai and English with its figures filled in', () => {
    const vars = { limit: '2,000', buffer: '50', hard: '4,050', n: '1', price: '฿0.50', amount: '฿0.50', days: 3 };
    for (const used of [1700, 2020, 2051, 4050])
      for (const lang of ['th', 'en'] as const) {
        const n = at(GROWTH, used)!;
        const text = `${translate(lang, n.title)} ${translate(lang, n.body, vars)}`;
        expect(text, `${lang} ${used}`).not.toMatch(/[{}]/);
      }
    expect(translate('en', 'quota.next.overage', vars)).toBe('1 slip charged so far: ฿0.50 (฿0.50 each). Checks stop at 4,050.');
  });
});
