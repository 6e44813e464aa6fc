import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from '../../db/db.js';
import { createPlanRepo } from './plan-repo.js';
import type { PlansTable } from '../../db/db-schema.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';

import type { Plan } from './plan-types.js';
export type { Plan } from './plan-types.js';

export const TRIAL_PLAN = 'TRIAL';
const DEFAULT_FILE = fileURLToPath(new URL('../../../config/plans.json', import.meta.url));

/** The catalogue is configuration (config/plans.json or PLANS_FILE), synced into the table on start. */
export function loadCatalogue(file?: string): Plan[] {
  const raw = JSON.parse(fs.readFileSync(file || DEFAULT_FILE, 'utf8')) as { plans: Plan[] };
  const plans = raw.plans;
  if (!Array.isArray(plans) || !plans.some((p) => p.code === TRIAL_PLAN)) {
    throw new Error(`plan catalogue ${file || DEFAULT_FILE} must list a ${TRIAL_PLAN} plan`);
  }
  for (const p of plans) {
    if (!/^[A-Z][A-Z0-9_]{1,31}$/.test(p.code)) throw new Error(`plan code ${JSON.stringify(p.code)} must be upper-case letters/digits`);
    if (!Number.isInteger(p.monthlyLimit) || p.monthlyLimit < 0)
      throw new Error(`plan ${p.code}: monthlyLimit must be a non-negative integer`);
  }
  return plans;
}

export const planFromRow = (r: PlansTable): Plan => ({
  code: r.code,
  name: r.name,
  monthlyLimit: r.monthly_limit,
  trialDays: r.trial_days,
  apiAccess: !!r.api_access,
  webhooks: !!r.webhooks,
  seats: r.seats,
  groups: r.groups,
  messagingAccounts: r.messaging_accounts,
  allowOverage: !!r.allow_overage,
  freeBuffer: r.free_buffer,
  monthlyCap: r.monthly_cap,
  hardBlockMultiple: r.hard_block_multiple,
  priceThb: r.price_thb,
  overagePriceSatang: r.overage_price_satang,
});

/**
 * The most a shop may use in a period. Without overage: the limit plus the free buffer (grace that is
 * never billed). With overage: billed units up to the monthly cap, and never past the hard block at a
 * multiple of the limit.
 */
/** How long a trial of this plan lasts (a trial plan without its own length gets 7 days). */
export const trialMsOf = (plan: Plan): number => (plan.trialDays || 7) * 86_400_000;

export function hardLimitOf(plan: Plan): number {
  const base = plan.monthlyLimit + plan.freeBuffer;
  if (!plan.allowOverage) return base;
  return Math.min(base + plan.monthlyCap, plan.monthlyLimit * Math.max(1, plan.hardBlockMultiple));
}

export function overageOf(plan: Plan, used: number): number {
  return Math.max(0, used - plan.monthlyLimit - plan.freeBuffer);
}

export function createPlanService(deps: { db: Db; clock: Clock }) {
  const { clock } = deps;
  const repo = createPlanRepo(deps.db);
  // Plans are configuration, written only by sync() at start, and every API request reads one (key
  // authentication): a minute's cache saves that read while another node's new catalogue still shows.
  const cache = new Map<string, { plan: Plan; until: number }>();
  const CACHE_MS = 60_000;
  return {
    async sync(catalogue: Plan[]): Promise<void> {
      const now = clock.now().toISOString();
      for (const p of catalogue) {
        const row: PlansTable = {
          code: p.code,
          name: p.name,
          monthly_limit: p.monthlyLimit,
          trial_days: p.trialDays ?? 0,
          api_access: p.apiAccess ? 1 : 0,
          webhooks: p.webhooks ? 1 : 0,
          seats: p.seats,
          groups: p.groups,
          messaging_accounts: p.messagingAccounts,
          allow_overage: p.allowOverage ? 1 : 0,
          free_buffer: p.freeBuffer ?? 0,
          monthly_cap: p.monthlyCap ?? 0,
          hard_block_multiple: p.hardBlockMultiple ?? 1,
          price_thb: p.priceThb ?? 0,
          overage_price_satang: p.overagePriceSatang ?? 0,
          updated_at: now,
        };
        await repo.upsert(row);
      }
      cache.clear();
    },
    async list(): Promise<Plan[]> {
      return (await repo.list()).map(planFromRow);
    },
    async get(code: string): Promise<Plan> {
      const hit = cache.get(code);
      if (hit && hit.until > Date.now()) return hit.plan;
      const row = await repo.get(code);
      if (!row) throw new AppError('UNKNOWN_PLAN', 400, `Unknown plan ${code}`);
      const plan = planFromRow(row);
      cache.set(code, { plan, until: Date.now() + CACHE_MS });
      return plan;
    },
  };
}
export type PlanService = ReturnType<typeof createPlanService>;
