import { randomUUID } from 'node:crypto';
import type { WhereInterface } from 'kysely';
import type { Database } from '../../db/db-schema.js';
import { preparedQuery, preparedRowQuery, type Db } from '../../db/db.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { ImageClaimsTable } from '../../db/db-schema.js';

/**
 * Same-image replay as a database claim, so N concurrent uploads of one image make one check on one
 * node or many: the first INSERT wins (`insert`, with the quota unit), the others wait for its record
 * and answer it with cached=true.
 *
 * The check in flight owns its claim by a random token and a short lease it renews while it works
 * (`leaseMs`, renewed every third of it). A node that dies stops renewing: within one lease the claim
 * is orphaned and the next caller takes it over, inheriting the quota unit the dead check reserved
 * (`reserved`), so a retry waits seconds and is charged once. The worker's sweep returns the unit of
 * an orphan nobody retries (verification-service `sweepOrphans`).
 */
export interface ClaimReservation {
  pool: 'live' | 'test';
  period: string;
}

export type ClaimOutcome =
  | { kind: 'owner'; token: string; inherited: ClaimReservation | null }
  /** No claim yet: the caller writes it (`insert`) with its quota unit. */
  | { kind: 'vacant' }
  /** The claim's record is read through the transactions module (this module does not read its table). */
  | {
      kind: 'cached';
      transactionId: string;
      /** The window's end (epoch ms): a replay after it is a new check. */
      replayableUntil: number;
    };

export interface ClaimKey {
  shopId: string;
  scope: string;
  hash: string;
  token: string;
}

const POLL_MS = 25;

/** The claim of one image, prepared: it is the first statement of every verify. */
const claimQuery = preparedQuery((db: Db, shopId: string, scope: string, hash: string) =>
  db
    .selectFrom('image_claims')
    .select([
      'claimed_at as claim_claimed_at',
      'transaction_id as claim_transaction_id',
      'owner as claim_owner',
      'lease_until as claim_lease_until',
      'reserved_pool as claim_reserved_pool',
      'reserved_period as claim_reserved_period',
    ])
    .where('shop_id', '=', shopId)
    .where('scope', '=', scope)
    .where('image_hash', '=', hash),
);

/** A new claim, unless one exists (the first statement that writes on every new image). */
const insertClaimQuery = preparedRowQuery((db: Db, row: ImageClaimsTable) =>
  db
    .insertInto('image_claims')
    .values(row)
    .onConflict((oc) => oc.columns(['shop_id', 'scope', 'image_hash']).doNothing())
    .returning('image_hash'),
);

/**
 * The writes of a check in flight (mark, renew, complete, release) touch its claim only while it is
 * still theirs: this key, their token, no record yet. Kysely's update and delete builders share
 * WhereInterface; each where() answers the same builder.
 */
const ownInFlight = <Q extends WhereInterface<Database, 'image_claims'>>(q: Q, k: ClaimKey): Q =>
  q
    .where('shop_id', '=', k.shopId)
    .where('scope', '=', k.scope)
    .where('image_hash', '=', k.hash)
    .where('owner', '=', k.token)
    .where('transaction_id', 'is', null) as Q;

/** Ties an in-flight claim to its record (every new record's transaction): answers the claim when it was still ours. */
const completeQuery = preparedQuery((db: Db, transactionId: string, shopId: string, scope: string, hash: string, token: string) =>
  ownInFlight(db.updateTable('image_claims').set({ transaction_id: transactionId, reserved_pool: null, reserved_period: null }), {
    shopId,
    scope,
    hash,
    token,
  }).returning('image_hash'),
);

/** Notes the unit an in-flight claim holds (every reserve's transaction). */
const markQuery = preparedQuery((db: Db, pool: string, period: string, shopId: string, scope: string, hash: string, token: string) =>
  ownInFlight(db.updateTable('image_claims').set({ reserved_pool: pool, reserved_period: period }), {
    shopId,
    scope,
    hash,
    token,
  }).returning('image_hash'),
);

const reservationOf = (pool: string | null, period: string | null): ClaimReservation | null =>
  (pool === 'live' || pool === 'test') && period ? { pool, period } : null;

export function createImageClaims(deps: {
  db: Db;
  now: () => Date;
  windowMs: number;
  inFlightTakeoverMs: number;
  waitMs: number;
  leaseMs: number;
}) {
  const { db, now, leaseMs } = deps;
  const leaseFrom = (t: Date) => new Date(t.getTime() + leaseMs).toISOString();

  return {
    leaseMs,
    /**
     * Reads the image's claim: `cached` with its record, `owner` of one taken over, or `vacant` when
     * there is none. A vacant image is claimed with `insert`, in the transaction that takes its quota
     * unit: one write transaction for both.
     */
    async claim(shopId: string, scope: string, hash: string): Promise<ClaimOutcome> {
      const deadline = Date.now() + deps.waitMs;
      for (;;) {
        const t = now();
        const token = randomUUID();
        // Read first: a replay (the common repeat) then costs no write at all.
        const [row] = await claimQuery(db, shopId, scope, hash);
        if (!row) return { kind: 'vacant' };
        const {
          claim_claimed_at: claimedAt,
          claim_transaction_id: transactionId,
          claim_owner: owner,
          claim_lease_until: leaseUntil,
          claim_reserved_pool: pool,
          claim_reserved_period: period,
        } = row;
        const age = t.getTime() - Date.parse(claimedAt);
        // Claims written before 0006 have no lease: the old in-flight takeover rule applies to them.
        const orphaned = leaseUntil ? t.getTime() >= Date.parse(leaseUntil) : age >= deps.inFlightTakeoverMs;
        const expired = transactionId ? age >= deps.windowMs : orphaned;
        if (expired || (!transactionId && Date.now() > deadline)) {
          // Conditional takeover: only one of several racing callers matches the old owner and lease
          // (a renewal by a live owner changes the lease, so it also defeats a stale read).
          const u = await db
            .updateTable('image_claims')
            .set({ claimed_at: t.toISOString(), transaction_id: null, owner: token, lease_until: leaseFrom(t) })
            .where('shop_id', '=', shopId)
            .where('scope', '=', scope)
            .where('image_hash', '=', hash)
            .where('claimed_at', '=', claimedAt)
            .where('owner', owner === null ? 'is' : '=', owner)
            .where('lease_until', leaseUntil === null ? 'is' : '=', leaseUntil)
            .executeTakeFirst();
          // A completed claim holds no unit; an orphan hands its reserved unit to the new owner.
          if (Number(u.numUpdatedRows) === 1)
            return { kind: 'owner', token, inherited: transactionId ? null : reservationOf(pool, period) };
          continue;
        }
        if (transactionId) return { kind: 'cached', transactionId, replayableUntil: Date.parse(claimedAt) + deps.windowMs };
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    },
    /** Renews the owner's lease every third of it until the returned stop function is called. */
    keepAlive(k: ClaimKey): () => void {
      const timer = setInterval(
        () => {
          void ownInFlight(db.updateTable('image_claims').set({ lease_until: leaseFrom(now()) }), k)
            .execute()
            .catch(() => undefined);
        },
        Math.max(50, Math.floor(leaseMs / 3)),
      );
      timer.unref();
      return () => clearInterval(timer);
    },
    /**
     * Claims a vacant image for `k.token`, holding the unit `r` that the same transaction takes; false
     * when another check claimed it first (the caller rolls back, its unit with it, and reads that claim).
     */
    async insert(trx: Db, k: ClaimKey, r: ClaimReservation | null): Promise<boolean> {
      const t = now();
      const inserted = await insertClaimQuery(trx, {
        shop_id: k.shopId,
        scope: k.scope,
        image_hash: k.hash,
        transaction_id: null,
        claimed_at: t.toISOString(),
        owner: k.token,
        lease_until: leaseFrom(t),
        reserved_pool: r?.pool ?? null,
        reserved_period: r?.period ?? null,
      });
      return inserted.length === 1;
    },
    /** Marks the unit this owner reserved; false when the claim is no longer ours (the caller rolls back). */
    async markReserved(trx: Db, k: ClaimKey, r: ClaimReservation): Promise<boolean> {
      return (await markQuery(trx, r.pool, r.period, k.shopId, k.scope, k.hash, k.token)).length === 1;
    },
    /** Ties the claim to its record and clears the reservation mark; false when the claim is no longer ours. */
    async complete(trx: Db, k: ClaimKey, transactionId: string): Promise<boolean> {
      return (await completeQuery(trx, transactionId, k.shopId, k.scope, k.hash, k.token)).length === 1;
    },
    /**
     * Results that must not be replayed (provider errors, quota refusals, failures) give the claim back.
     * Returns the reservation the claim held (the caller returns that unit in the same transaction),
     * or `false` when the claim is no longer ours.
     */
    async release(trx: Db, k: ClaimKey): Promise<ClaimReservation | null | false> {
      const r = await ownInFlight(trx.deleteFrom('image_claims'), k).returning(['reserved_pool', 'reserved_period']).executeTakeFirst();
      return r ? reservationOf(r.reserved_pool, r.reserved_period) : false;
    },
    /** In-flight claims whose owner stopped renewing its lease (a dead node), oldest first. */
    async orphans(limit = 100): Promise<ClaimKey[]> {
      const rows = await db
        .selectFrom('image_claims')
        .select(['shop_id', 'scope', 'image_hash', 'owner'])
        .where('transaction_id', 'is', null)
        .where('lease_until', '<', now().toISOString())
        .where('owner', 'is not', null)
        .orderBy('lease_until')
        .limit(limit)
        .execute();
      return rows.map((r) => ({ shopId: r.shop_id, scope: r.scope, hash: r.image_hash, token: r.owner! }));
    },
    /**
     * Retention: settled claims (with their transaction) older than the same-image window go, in bounded
     * batches (`renew` between them); a claim still in flight is the orphan sweep's. Returns how many.
     */
    async prune(renew?: () => Promise<void>): Promise<number> {
      const cutoff = new Date(now().getTime() - deps.windowMs).toISOString();
      return deleteInBatches(async (limit) => {
        // The primary key has three columns: the batch is picked by the rows' own key, one statement.
        const r = await db
          .deleteFrom('image_claims')
          .where((eb) =>
            eb(
              eb.refTuple('shop_id', 'scope', 'image_hash'),
              'in',
              eb
                .selectFrom('image_claims')
                .select(['shop_id', 'scope', 'image_hash'])
                .where('claimed_at', '<', cutoff)
                .where('transaction_id', 'is not', null)
                .orderBy('claimed_at')
                .limit(limit)
                .$asTuple('shop_id', 'scope', 'image_hash'),
            ),
          )
          .executeTakeFirst();
        return Number(r.numDeletedRows);
      }, renew);
    },
  };
}
export type ImageClaims = ReturnType<typeof createImageClaims>;

/** Purge of an erased shop (housekeeping, composed in container.ts): this module's rows of the shop. */
export const purgeClaimsOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['image_claims']);
