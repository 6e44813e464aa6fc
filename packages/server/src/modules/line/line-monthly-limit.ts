import type { Clock } from '../../lib/clock.js';
import type { LineClient } from './line-client.js';
import type { LineDeliveryRepo } from './line-delivery-repo.js';

/** How often a node asks LINE whether an official account marked at its monthly limit may push again. */
export const MONTHLY_LIMIT_RECHECK_MS = 10 * 60_000;

/**
 * Whether pushes of an official account are held back by LINE's monthly limit. The mark (set when LINE
 * answered "You have reached your monthly limit.", line-delivery-repo markMonthlyLimit) held every push
 * until the month turned, though the owner e-mail and the LINE page say raising the message plan lifts
 * it: an owner who paid LINE still got no pushes, alerts or summaries for the rest of the month. Now, at
 * most every MONTHLY_LIMIT_RECHECK_MS per node, a marked account's quota is asked of LINE (free calls,
 * no message sent); when it may push again, the mark goes and the push is made. LINE unreachable or
 * still at its limit: the mark stays.
 */
export function createMonthlyLimitGate(deps: {
  delivery: Pick<LineDeliveryRepo, 'monthlyLimitAt' | 'clearMonthlyLimit'>;
  client: Pick<LineClient, 'canPush'>;
  clock: Clock;
}) {
  /** When this node last asked LINE about each marked account (ms). */
  const asked = new Map<string, number>();
  return {
    async blocked(shopId: string, lineChannelId: string, token: string): Promise<boolean> {
      const since = await deps.delivery.monthlyLimitAt(shopId, lineChannelId);
      if (!since) return false;
      const now = deps.clock.now().getTime();
      if (now - Math.max(Date.parse(since), asked.get(lineChannelId) ?? 0) < MONTHLY_LIMIT_RECHECK_MS) return true;
      asked.set(lineChannelId, now);
      if (!(await deps.client.canPush(token).catch(() => false))) return true;
      await deps.delivery.clearMonthlyLimit(shopId, lineChannelId);
      asked.delete(lineChannelId);
      return false;
    },
  };
}
export type MonthlyLimitGate = ReturnType<typeof createMonthlyLimitGate>;
