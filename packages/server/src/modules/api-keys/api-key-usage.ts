import type { Db } from '../../db/db.js';

/** Calls of one key in a period, split by result status (from the transactions it created). */
export interface KeyUsage {
  total: number;
  byStatus: Record<string, number>;
}

/**
 * Per-key usage since `since` (the start of the quota period), for the dashboard's keys screen and
 * `slipcheck key list`. One grouped query on the shop's transactions; keys without calls are absent.
 * Counted from records, so it matches what the transactions list shows (cached answers included).
 */
export async function usageByKey(db: Db, shopId: string, since: string): Promise<Map<string, KeyUsage>> {
  const rows = await db
    .selectFrom('transactions')
    .select(['api_key_id', 'status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('shop_id', '=', shopId)
    .where('api_key_id', 'is not', null)
    .where('created_at', '>=', since)
    .groupBy(['api_key_id', 'status'])
    .execute();
  const out = new Map<string, KeyUsage>();
  for (const r of rows) {
    const u = out.get(r.api_key_id as string) ?? { total: 0, byStatus: {} };
    u.byStatus[r.status] = Number(r.n);
    u.total += Number(r.n);
    out.set(r.api_key_id as string, u);
  }
  return out;
}

export const NO_USAGE: KeyUsage = Object.freeze({ total: 0, byStatus: {} }) as KeyUsage;
