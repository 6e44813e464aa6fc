import { preparedQuery, type Db } from '../../db/db.js';
import type { TransactionsTable } from '../../db/db-schema.js';

/**
 * Same-image replay as a database claim, so N concurrent uploads of one image make one check on one
 * node or many: the first INSERT wins, the others wait for its record and answer it with cached=true.
 */
export type ClaimOutcome =
  | { kind: 'owner' }
  /** `record` is the claimed transaction, read in the same statement as the claim (absent if it is gone). */
  | { kind: 'cached'; transactionId: string; record?: TransactionsTable };

const POLL_MS = 25;

/** The claim and, once there is one, its transaction: one statement on the replay path. */
const claimQuery = preparedQuery((db: Db, shopId: string, scope: string, hash: string) =>
  db.selectFrom('image_claims as c')
    .leftJoin('transactions as t', 't.id', 'c.transaction_id')
    .selectAll('t')
    .select(['c.claimed_at as claim_claimed_at', 'c.transaction_id as claim_transaction_id'])
    .where('c.shop_id', '=', shopId).where('c.scope', '=', scope).where('c.image_hash', '=', hash));

export function createImageClaims(deps: { db: Db; now: () => Date; windowMs: number; inFlightTakeoverMs: number; waitMs: number }) {
  const { db, now } = deps;

  async function tryInsert(shopId: string, scope: string, hash: string, at: string): Promise<boolean> {
    const r = await db.insertInto('image_claims').values({ shop_id: shopId, scope, image_hash: hash, transaction_id: null, claimed_at: at })
      .onConflict((oc) => oc.columns(['shop_id', 'scope', 'image_hash']).doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  return {
    async claim(shopId: string, scope: string, hash: string): Promise<ClaimOutcome> {
      const deadline = Date.now() + deps.waitMs;
      for (;;) {
        const t = now();
        // Read first: a replay (the common repeat) then costs no write at all, and the join hands it
        // the record in the same statement.
        const [row] = await claimQuery(db, shopId, scope, hash);
        if (!row) {
          if (await tryInsert(shopId, scope, hash, t.toISOString())) return { kind: 'owner' };
          continue; // someone else claimed it between our read and insert: read their claim
        }
        const { claim_claimed_at: claimedAt, claim_transaction_id: transactionId, ...tx } = row;
        const age = t.getTime() - Date.parse(claimedAt);
        const expired = transactionId ? age >= deps.windowMs : age >= deps.inFlightTakeoverMs;
        if (expired) {
          // Conditional takeover: only one of several racing callers matches the old claimed_at.
          const u = await db.updateTable('image_claims').set({ claimed_at: t.toISOString(), transaction_id: null })
            .where('shop_id', '=', shopId).where('scope', '=', scope).where('image_hash', '=', hash)
            .where('claimed_at', '=', claimedAt).executeTakeFirst();
          if (Number(u.numUpdatedRows) === 1) return { kind: 'owner' };
          continue;
        }
        if (transactionId) {
          const record = tx.id !== null && tx.shop_id === shopId ? (tx as TransactionsTable) : undefined;
          return { kind: 'cached', transactionId, record };
        }
        if (Date.now() > deadline) return { kind: 'owner' }; // the first check is stuck: check again rather than hang
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    },
    async complete(trx: Db, shopId: string, scope: string, hash: string, transactionId: string) {
      await trx.updateTable('image_claims').set({ transaction_id: transactionId })
        .where('shop_id', '=', shopId).where('scope', '=', scope).where('image_hash', '=', hash).execute();
    },
    /** Results that must not be replayed (provider errors, quota refusals) give the claim back. */
    async release(shopId: string, scope: string, hash: string, trx: Db = db) {
      await trx.deleteFrom('image_claims').where('shop_id', '=', shopId).where('scope', '=', scope).where('image_hash', '=', hash)
        .where('transaction_id', 'is', null).execute();
    },
    async prune() {
      const cutoff = new Date(now().getTime() - deps.windowMs).toISOString();
      await db.deleteFrom('image_claims').where('claimed_at', '<', cutoff).where('transaction_id', 'is not', null).execute();
    },
  };
}
export type ImageClaims = ReturnType<typeof createImageClaims>;
