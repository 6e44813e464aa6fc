import type { MessageKey } from '../i18n/th';

/** What the overview's quota card needs to say what happens past the limit (the overview's plan and quota). */
export interface QuotaNextInput {
  used: number;
  limit: number;
  /** Checks the service still answers past the limit without charge. */
  freeBuffer: number;
  /** Where checks stop this period (limit + free buffer, plus overage up to its cap). */
  hardLimit: number;
  allowOverage: boolean;
  /** Charged checks so far: past the limit and the free buffer. */
  overage: number;
  /** Integer satang per charged check. */
  overagePriceSatang: number;
  trial: boolean;
}

export type QuotaStage = 'near' | 'buffer' | 'overage' | 'stopped';

export interface QuotaNext {
  stage: QuotaStage;
  title: MessageKey;
  body: MessageKey;
  /** Counts as numbers; `priceSatang` and `amountSatang` are integer satang, formatted by the screen. */
  vars: { limit: number; buffer: number; hard: number; n: number; priceSatang: number; amountSatang: number };
}

/** "Near" is the 80 % the quota alert mail is sent at (QUOTA_80). */
const NEAR_PERCENT = 80;

/**
 * What happens next to a shop near or past its limit, or null while it is well inside it: checks go on
 * through the free buffer and then as charged overage up to the hard block (plans with overage), or
 * stop at the limit plus the free buffer (plans without, and the trial). Integers only: the charge is
 * `overage × price` in satang, never a float.
 */
export function quotaNext(q: QuotaNextInput): QuotaNext | null {
  const vars = {
    limit: q.limit,
    buffer: q.freeBuffer,
    hard: q.hardLimit,
    n: 0,
    priceSatang: q.overagePriceSatang,
    amountSatang: 0,
  };
  const overage = q.allowOverage && q.overagePriceSatang > 0;
  if (q.used >= q.hardLimit)
    return { stage: 'stopped', title: 'quota.next.stoppedTitle', body: q.trial ? 'quota.next.stoppedTrial' : 'quota.next.stopped', vars };
  if (overage && q.overage > 0)
    return {
      stage: 'overage',
      title: 'quota.next.overageTitle',
      body: 'quota.next.overage',
      vars: { ...vars, n: q.overage, amountSatang: q.overage * q.overagePriceSatang },
    };
  if (q.used >= q.limit && q.freeBuffer > 0)
    return {
      stage: 'buffer',
      title: 'quota.next.bufferTitle',
      body: overage ? 'quota.next.bufferOverage' : 'quota.next.bufferStop',
      vars: { ...vars, n: Math.min(q.used - q.limit, q.freeBuffer) },
    };
  if (q.used * 100 < q.limit * NEAR_PERCENT) return null;
  const body: MessageKey = overage
    ? q.freeBuffer > 0
      ? 'quota.next.nearOverage'
      : 'quota.next.nearOverageNoBuffer'
    : q.freeBuffer > 0
      ? 'quota.next.nearStopBuffer'
      : 'quota.next.nearStop';
  return { stage: 'near', title: 'quota.next.nearTitle', body, vars };
}
