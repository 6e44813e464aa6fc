/**
 * `shops.settings` is read through one typed `settingsOf(shop)` (issue 25): every field present, a
 * stored value used only when it is valid, the default otherwise, and one bad field never costs the
 * others. Writers merge field by field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonymizeCutoff } from '../../src/modules/housekeeping/housekeeping-service.js';
import { summarySettingsOf } from '../../src/modules/reports/reports-summary.js';
import { mergeSettings, settingsOf, type ShopSettings } from '../../src/modules/shops/shop-settings.js';
import { createServiceHarness, DB_KINDS, type ServiceHarness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';

const DEFAULTS: ShopSettings = {
  notifications: { email: true, staleSlipAlerts: true },
  privacy: { autoDelete: false, retentionMonths: null },
  dailySummary: { enabled: true, time: '21:00', line: true, email: true, sendEmpty: false },
  trialAlertFor: null,
};

describe('settingsOf', () => {
  it('an empty or missing bag reads as the defaults', () => {
    expect(settingsOf({ settings: {} })).toEqual(DEFAULTS);
    expect(settingsOf({ settings: null as unknown as Record<string, unknown> })).toEqual(DEFAULTS);
  });

  it('keeps valid stored values', () => {
    const s = settingsOf({
      settings: {
        notifications: { email: false, staleSlipAlerts: false },
        privacy: { autoDelete: true, retentionMonths: 6 },
        dailySummary: { enabled: false, time: '07:30', line: false, email: false, sendEmpty: true },
        trialAlertFor: '2026-11-28T00:00:00.000Z',
      },
    });
    expect(s).toEqual({
      notifications: { email: false, staleSlipAlerts: false },
      privacy: { autoDelete: true, retentionMonths: 6 },
      dailySummary: { enabled: false, time: '07:30', line: false, email: false, sendEmpty: true },
      trialAlertFor: '2026-11-28T00:00:00.000Z',
    });
  });

  it('an invalid or unknown stored value falls back to its default, field by field', () => {
    const s = settingsOf({
      settings: {
        notifications: { email: 'no', staleSlipAlerts: false, extra: 1 },
        privacy: { autoDelete: 'yes', retentionMonths: -3 },
        dailySummary: { enabled: 0, time: '25:99', line: false, sendEmpty: 'true' },
        trialAlertFor: 42,
        somethingOld: { x: 1 },
      },
    });
    expect(s).toEqual({
      notifications: { email: true, staleSlipAlerts: false },
      privacy: { autoDelete: false, retentionMonths: null },
      dailySummary: { enabled: true, time: '21:00', line: false, email: true, sendEmpty: false },
      trialAlertFor: null,
    });
    // A group that is not an object at all reads as its defaults.
    expect(settingsOf({ settings: { notifications: 'off', privacy: [true], dailySummary: null } })).toEqual(DEFAULTS);
    expect(settingsOf({ settings: { privacy: { autoDelete: true, retentionMonths: 2.5 } } }).privacy).toEqual({
      autoDelete: true,
      retentionMonths: null,
    });
  });

  it('the readers of each part use it: PDPA cutoff, daily summary', () => {
    const now = new Date('2026-11-21T00:00:00Z');
    expect(anonymizeCutoff({ privacy: { autoDelete: 'yes' } }, now, 24)).toBeNull();
    expect(anonymizeCutoff({ privacy: { autoDelete: true, retentionMonths: 0 } }, now, 24)?.toISOString()).toBe('2024-11-21T00:00:00.000Z');
    expect(anonymizeCutoff({ privacy: { autoDelete: true, retentionMonths: 3 } }, now, 24)?.toISOString()).toBe('2026-08-21T00:00:00.000Z');
    expect(summarySettingsOf({ settings: { dailySummary: { time: '9:00' } } }).time).toBe('21:00');
  });

  it('merging a patch keeps the other fields of a group and everything else stored', () => {
    const stored = { notifications: { email: false, staleSlipAlerts: false }, legacy: 'kept' };
    expect(mergeSettings(stored, { notifications: { staleSlipAlerts: true } })).toEqual({
      notifications: { email: false, staleSlipAlerts: true },
      legacy: 'kept',
    });
    expect(mergeSettings(stored, { trialAlertFor: 'x' })).toMatchObject({ trialAlertFor: 'x', notifications: stored.notifications });
  });
});

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`shop settings stored and read [${kind}]${skipNote(kind)}`, () => {
    let h: ServiceHarness;
    beforeAll(async () => {
      h = await createServiceHarness(kind);
    });
    afterAll(async () => h.close());

    it('a bad value written by an older version reads as its default; an update merges without losing it', async () => {
      const { shop } = await seedShop(h);
      await h.c.db
        .updateTable('shops')
        .set({ settings: JSON.stringify({ notifications: { email: false, staleSlipAlerts: 'maybe' }, dailySummary: { time: 'noon' } }) })
        .where('id', '=', shop.id)
        .execute();
      const read = settingsOf(await h.c.shops.get(shop.id));
      expect(read.notifications).toEqual({ email: false, staleSlipAlerts: true });
      expect(read.dailySummary.time).toBe('21:00');

      const updated = await h.c.shops.update(shop.id, { settings: { dailySummary: { sendEmpty: true } } }, 'test');
      expect(settingsOf(updated).dailySummary).toMatchObject({ sendEmpty: true, time: '21:00' });
      expect(settingsOf(updated).notifications.email).toBe(false);
    });
  });
}
