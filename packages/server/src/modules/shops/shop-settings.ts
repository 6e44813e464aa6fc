import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { Shop } from './shop-types.js';

/**
 * What a shop keeps in `shops.settings` (a JSON column), with the default of every field. Read it only
 * through `settingsOf(shop)`: the column holds whatever older versions and hand edits wrote, so each
 * field is checked on its own and a missing, unknown or invalid value reads as its default (one bad
 * field never costs the others).
 */
export const ShopSettings = Type.Object({
  notifications: Type.Object({
    /** Owner alerts by e-mail. */
    email: Type.Boolean({ default: true }),
    /** Alerts (LINE, e-mail) for genuine slips older than SLIP_STALE_MAX_AGE_HOURS. */
    staleSlipAlerts: Type.Boolean({ default: true }),
  }),
  privacy: Type.Object({
    /** PDPA auto-delete: personal fields of results older than the retention are blanked. */
    autoDelete: Type.Boolean({ default: false }),
    /** Months to keep; null: the service's PDPA_RETENTION_MONTHS. */
    retentionMonths: Type.Union([Type.Integer({ minimum: 1, maximum: 120 }), Type.Null()], { default: null }),
  }),
  dailySummary: Type.Object({
    enabled: Type.Boolean({ default: true }),
    /** HH:MM in the business time zone. */
    time: Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', default: '21:00' }),
    line: Type.Boolean({ default: true }),
    email: Type.Boolean({ default: true }),
    /** Send on days with no results too. */
    sendEmpty: Type.Boolean({ default: false }),
  }),
  /** The trial end the owner was last alerted about (housekeeping's once-per-trial note). */
  trialAlertFor: Type.Union([Type.String(), Type.Null()], { default: null }),
});
export type ShopSettings = Static<typeof ShopSettings>;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readField(schema: TSchema, raw: unknown): unknown {
  const s = schema as { type?: unknown; properties?: Record<string, TSchema>; default?: unknown };
  if (s.type === 'object' && s.properties) {
    const src = isPlainObject(raw) ? raw : {};
    return Object.fromEntries(Object.entries(s.properties).map(([k, p]) => [k, readField(p, Object.hasOwn(src, k) ? src[k] : undefined)]));
  }
  return raw !== undefined && Value.Check(schema, raw) ? raw : structuredClone(s.default);
}

/** The shop's settings, typed, every field present: stored values where valid, defaults otherwise. */
export function settingsOf(shop: Pick<Shop, 'settings'>): ShopSettings {
  return readField(ShopSettings, shop.settings) as ShopSettings;
}

/** A change to some fields: `ShopService.update` merges it into the stored settings field by field within each group. */
export type ShopSettingsPatch = {
  [K in keyof ShopSettings]?: ShopSettings[K] extends Record<string, unknown> ? Partial<ShopSettings[K]> : ShopSettings[K];
};

/** The stored bag with `patch` merged in, two levels deep (a group's other fields stay as stored). */
export function mergeSettings(stored: Record<string, unknown>, patch: ShopSettingsPatch): Record<string, unknown> {
  const out: Record<string, unknown> = { ...stored };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    const before = out[k];
    out[k] = isPlainObject(v) && isPlainObject(before) ? { ...before, ...v } : v;
  }
  return out;
}
