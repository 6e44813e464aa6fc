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
