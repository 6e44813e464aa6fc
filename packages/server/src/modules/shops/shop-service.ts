import type { Db } from '../../db/db.js';
import type { ShopsTable } from '../../db/db-schema.js';
import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AuditService } from '../audit/audit-service.js';
import { TRIAL_PLAN, trialMsOf, type PlanService } from '../plans/plan-service.js';
import { createShopRepo, ERASED_NAME, lockShopRow } from './shop-repo.js';

import { mergeSettings, type ShopSettingsPatch } from './shop-settings.js';
import { SHOP_STATES, type Shop, type ShopState } from './shop-types.js';
export { SHOP_STATES } from './shop-types.js';
export { settingsOf, ShopSettings, type ShopSettingsPatch } from './shop-settings.js';
export type { Shop, ShopState } from './shop-types.js';

export const shopFromRow = (r: ShopsTable): Shop => ({
  id: r.id,
  name: r.name,
  state: r.state as ShopState,
  planCode: r.plan_code,
  chosenPlanCode: r.chosen_plan_code,
  trialEndsAt: r.trial_ends_at,
  language: r.language === 'en' ? 'en' : 'th',
  settings: JSON.parse(r.settings || '{}'),
  createdAt: r.created_at,
});

// The row lock lives with the table's SQL; callers keep importing it from the service.
export { lockShopRow };

export function validateShopName(name: unknown): string {
  const n = typeof name === 'string' ? name.trim() : '';
  if (!n || n.length > 120) throw new AppError('VALIDATION_ERROR', 400, 'Shop name must be 1 to 120 characters');
  return n;
}

export function createShopService(deps: { db: Db; clock: Clock; audit: AuditService; plans: PlanService }) {
  const { clock, audit, plans } = deps;
  const baseRepo = createShopRepo(deps.db);
  // Every write of a shop row tells this node's listeners (API-key authentication keeps shops for up
  // to a second and drops them here at once; other nodes' copies run out by their own short TTL).
  const listeners = new Set<(shopId: string) => void>();
  const changed = (id: string) => {
    for (const fn of listeners) fn(id);
  };
  const repo = {
    ...baseRepo,
    async update(id: string, set: Partial<ShopsTable>, trx?: Db): Promise<void> {
      changed(id); // before and after: a read racing the write cannot keep a copy from before it
      await baseRepo.update(id, set, trx);
      changed(id);
    },
  };

  async function get(id: string): Promise<Shop> {
    const row = await repo.getLive(id);
    if (!row) throw notFound('Shop');
    return shopFromRow(row);
  }

  return {
    get,
    /** Calls `fn(shopId)` on every change of a shop row made through this service (this node only); returns the unsubscribe. */
    onChange(fn: (shopId: string) => void): () => void {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    /** Shops erased before `cutoff` and not yet purged (the purge turns the row into a tombstone). */
    async erasedBefore(cutoff: string): Promise<string[]> {
      return repo.erasedBefore(cutoff);
    },
    /** The purged shop's row stays as an anonymous tombstone for the audit trail. */
    async markPurged(id: string, trx?: Db): Promise<void> {
      await repo.update(id, { name: ERASED_NAME, settings: '{}' }, trx);
    },
    /** Every shop not erased (hourly retention rules). */
    async listLive(): Promise<Shop[]> {
      return (await repo.listLive()).map(shopFromRow);
    },
    /** Shops on trial whose trial ends in (after, until]. */
    async trialsEnding(after: string, until: string): Promise<Shop[]> {
      return (await repo.trialsEnding(after, until)).map(shopFromRow);
    },
    /** Replaces the settings object as given (callers merge), without an audit entry: for system bookkeeping. */
    async replaceSettings(id: string, settings: Record<string, unknown>, trx?: Db): Promise<void> {
      await repo.update(id, { settings: JSON.stringify(settings) }, trx);
    },
    /** Hides the shop (erasure, or the orphan of a lost sign-up race); the row goes at the purge. */
    async softDelete(id: string, at: string, trx?: Db): Promise<void> {
      await repo.update(id, { deleted_at: at }, trx);
    },
    /**
     * A shop without a paid plan starts on TRIAL (7 days); a chosen plan card is remembered but
     * entitlements start only when the operator records the payment with set-plan.
     */
    async create(
      input: { name: string; planCode?: string; state?: ShopState; chosenPlanCode?: string; language?: 'th' | 'en' },
      actor: string,
      trx?: Db,
    ): Promise<Shop> {
      const name = validateShopName(input.name);
      const planCode = input.planCode ?? TRIAL_PLAN;
      const plan = await plans.get(planCode);
      if (input.chosenPlanCode) await plans.get(input.chosenPlanCode);
      const now = clock.now();
      const isTrial = plan.code === TRIAL_PLAN;
      const state: ShopState = input.state ?? (isTrial ? 'trial' : 'active');
      if (!SHOP_STATES.includes(state)) throw new AppError('VALIDATION_ERROR', 400, `state must be one of ${SHOP_STATES.join(', ')}`);
      const row: ShopsTable = {
        id: newId('shop'),
        name,
        state,
        plan_code: plan.code,
        chosen_plan_code: input.chosenPlanCode ?? null,
        trial_ends_at: isTrial ? new Date(now.getTime() + trialMsOf(plan)).toISOString() : null,
        language: input.language ?? 'th',
        settings: '{}',
        created_at: now.toISOString(),
        deleted_at: null,
      };
      await repo.insert(row, trx);
      await audit.record({ shopId: row.id, actor, action: 'shop.create', target: row.id, detail: { plan: plan.code, state } }, trx);
      return shopFromRow(row);
    },
    async setPlan(id: string, planCode: string, actor: string): Promise<Shop> {
      const before = await get(id);
      const plan = await plans.get(planCode);
      const isTrial = plan.code === TRIAL_PLAN;
      await repo.update(id, {
        plan_code: plan.code,
        state: isTrial ? 'trial' : before.state === 'trial' ? 'active' : before.state,
        trial_ends_at: isTrial ? before.trialEndsAt : null,
      });
      await audit.record({ shopId: id, actor, action: 'plan.change', target: id, detail: { from: before.planCode, to: plan.code } });
      return get(id);
    },
    async setState(id: string, state: ShopState, actor: string): Promise<Shop> {
      if (!SHOP_STATES.includes(state)) throw new AppError('VALIDATION_ERROR', 400, `state must be one of ${SHOP_STATES.join(', ')}`);
      const before = await get(id);
      await repo.update(id, { state });
      await audit.record({ shopId: id, actor, action: 'shop.state', target: id, detail: { from: before.state, to: state } });
      return get(id);
    },
    async update(id: string, patch: { name?: string; language?: 'th' | 'en'; settings?: ShopSettingsPatch }, actor: string): Promise<Shop> {
      const before = await get(id);
      const set: Partial<ShopsTable> = {};
      if (patch.name !== undefined) set.name = validateShopName(patch.name);
      if (patch.language !== undefined) set.language = patch.language === 'en' ? 'en' : 'th';
      if (patch.settings !== undefined) set.settings = JSON.stringify(mergeSettings(before.settings, patch.settings));
      if (Object.keys(set).length) await repo.update(id, set);
      await audit.record({ shopId: id, actor, action: 'shop.update', target: id, detail: { fields: Object.keys(set) } });
      return get(id);
    },
  };
}
export type ShopService = ReturnType<typeof createShopService>;
