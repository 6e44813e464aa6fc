import { useEffect, useState } from 'react';
import { api, withQuery } from '../api/client';
import { ROUTES } from '../api/routes';
import type { TransactionRecord } from '../api/types';

// One request per transfer reference, shared by every row and card that shows it on this page.
const cache = new Map<string, Promise<TransactionRecord | null>>();

/**
 * A duplicate's first record: the transfer's verified check in the shop's own data (same reference and
 * key environment): when and where the transfer was first used. A duplicate found from the slip's
 * reference alone repeats the first check's amount and sender since 2026-11-27; for an older one,
 * stored without them, this is where the screen finds the money and the sender too.
 */
export function useOriginal(r: Pick<TransactionRecord, 'status' | 'transRef' | 'environment'>): TransactionRecord | null {
  const [original, setOriginal] = useState<TransactionRecord | null>(null);
  const key = r.status === 'DUPLICATE' && r.transRef ? `${r.environment}|${r.transRef}` : null;
  useEffect(() => {
    if (!key) return;
    let alive = true;
    let p = cache.get(key);
    if (!p) {
      p = api<{ items: TransactionRecord[] }>(
        withQuery(ROUTES.transactions, { transRef: r.transRef, status: 'SUCCESS', environment: r.environment, limit: 1 }),
      )
        .then((d) => d.items[0] ?? null)
        .catch(() => null);
      cache.set(key, p);
    }
    void p.then((o) => alive && setOriginal(o));
    return () => {
      alive = false;
    };
  }, [key, r.transRef, r.environment]);
  return original;
}
