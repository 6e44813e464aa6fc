import { sql } from 'kysely';
import type { Db } from './db.js';

/** Rows one retention delete removes at most: a backlog never becomes one long transaction. */
export const PRUNE_BATCH = 500;

/**
 * Runs `deleteBatch(limit)` (one statement, its own transaction, deleting at most `limit` rows) until a
 * batch deletes fewer than `limit`. Between batches it calls `renew` (the scheduled task's lease
 * renewal) and yields to the event loop, so on SQLite (synchronous under its promises) a large backlog
 * does not keep the process from answering its sockets. Returns the rows deleted in all.
 */
export async function deleteInBatches(
  deleteBatch: (limit: number) => Promise<number>,
  renew: () => Promise<void> = async () => undefined,
  limit = PRUNE_BATCH,
): Promise<number> {
  let total = 0;
  for (;;) {
    await renew();
    const n = await deleteBatch(limit);
    total += n;
    if (n < limit) return total;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * One batch of a retention prune: at most `limit` rows of `table` whose `column` is before `cutoff`
 * (at or before it with `inclusive`), the oldest first, picked by their one-column key; returns how
 * many went. For `deleteInBatches`. Each module calls it for its own tables, as `deleteShopRows`.
 */
export async function deleteOldest(
  db: Db,
  t: { table: string; key: string; column: string },
  cutoff: string,
  limit: number,
  opts: { inclusive?: boolean } = {},
): Promise<number> {
  const [table, key, column] = [sql.table(t.table), sql.ref(t.key), sql.ref(t.column)];
  const before = opts.inclusive ? sql`<=` : sql`<`;
  const r =
    await sql`delete from ${table} where ${key} in (select ${key} from ${table} where ${column} ${before} ${cutoff} order by ${column} limit ${limit})`.execute(
      db,
    );
  return Number(r.numAffectedRows ?? 0);
}
