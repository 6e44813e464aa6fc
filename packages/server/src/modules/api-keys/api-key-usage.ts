import type { TransactionService } from '../transactions/transaction-service.js';

/** Calls of one key in a period, split by result status (from the transactions it created). */
export interface KeyUsage {
  total: number;
  byStatus: Record<string, number>;
}

/**
 * Per-key usage since `since` (the start of the quota period), for the dashboard's keys screen and
 * `slipcheck key list`. One grouped query on the shop's transactions (owned by the transactions module);
 * keys without calls are absent. Counted from records, so it matches what the transactions list shows
 * (cached answers included).
 */
export async function usageByKey(
  transactions: Pick<TransactionService, 'countsByApiKey'>,
  shopId: string,
  since: string,
): Promise<Map<string, KeyUsage>> {
  const out = new Map<string, KeyUsage>();
  for (const { apiKeyId, status, count } of await transactions.countsByApiKey(shopId, since)) {
    const u = out.get(apiKeyId) ?? { total: 0, byStatus: {} };
    u.byStatus[status] = count;
    u.total += count;
    out.set(apiKeyId, u);
  }
  return out;
}

export const NO_USAGE: KeyUsage = Object.freeze({ total: 0, byStatus: {} }) as KeyUsage;
