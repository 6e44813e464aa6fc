import { describe, expect, it } from 'vitest';
import { translate } from '../src/i18n/translate';

describe('English counts agree with their number', () => {
  it('the money card says "1 slip" and "2 slips" (QA: "฿75.25 · 1 slips")', () => {
    expect(translate('en', 'reports.slips', { n: 1 })).toBe('1 slip');
    expect(translate('en', 'reports.slips', { n: 2 })).toBe('2 slips');
    expect(translate('en', 'reports.slips', { n: 0 })).toBe('0 slips');
    expect(translate('en', 'reports.receivedCount', { n: 1 })).toMatch(/^from 1 slip;/);
    expect(translate('en', 'reports.receivedCount', { n: 3 })).toMatch(/^from 3 slips;/);
  });
  it('other counts on the overview too, and Thai (no plural) is unchanged', () => {
    expect(translate('en', 'overview.remaining', { n: '1' })).toBe('1 slip left');
    expect(translate('en', 'overview.remaining', { n: '1,250' })).toBe('1,250 slips left');
    expect(translate('en', 'overview.resetIn', { n: 1 })).toBe('resets in 1 day');
    expect(translate('en', 'overview.trialDaysLeft', { n: 1 })).toBe('1 day of trial left');
    expect(translate('en', 'overview.trialBannerTitle', { n: 1 })).toBe('Free trial: 1 day left');
    expect(translate('th', 'reports.slips', { n: 1 })).toBe('1 สลิป');
  });
});
