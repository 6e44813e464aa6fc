import { preparedRowQuery, type Db } from '../../db/db.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './webhook-tables.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';

// Every delivery round writes these (SQL built once, see preparedRowQuery).
const insertDeliveryQuery = preparedRowQuery((db: Db, row: WebhookDeliveriesTable) => db.insertInto('webhook_deliveries').values(row));
const recordRoundQuery = preparedRowQuery(
  (db: Db, row: Omit<Partial<WebhookDeliveriesTable>, 'attempts'> & { id: string; status: string; updated_at: string }) => {
    const { id, ...set } = row;
    return db
      .updateTable('webhook_deliveries')
      .set((eb) => ({ ...set, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', id);
  },
);
const insertAttemptQuery = preparedRowQuery((db: Db, row: WebhookAttemptsTable) => db.insertInto('webhook_attempts').values(row));

/**
 * Data access of the webhooks module: the only place that names its tables (webhook_endpoints,
 * webhook_deliveries, webhook_attempts). Writes that must commit with something else (an audit
 * entry, the outbox completion) take the caller's transaction.
 */
export function createWebhookRepo(db: Db) {
  return {
    endpoint(shopId: string, endpointId: string): Promise<WebhookEndpointsTable | undefined> {
      return db.selectFrom('webhook_endpoints').selectAll().where('shop_id', '=', shopId).where('id', '=', endpointId).executeTakeFirst();
    },
    endpointsOf(shopId: string): Promise<WebhookEndpointsTable[]> {
      return db.selectFrom('webhook_endpoints').selectAll().where('shop_id', '=', shopId).orderBy('id').execute();
    },
    enabledEndpointsOf(shopId: string): Promise<WebhookEndpointsTable[]> {
      return db.selectFrom('webhook_endpoints').selectAll().where('shop_id', '=', shopId).where('status', '=', 'enabled').execute();
    },
    async countEndpoints(shopId: string): Promise<number> {
      const r = await db
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('shop_id', '=', shopId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async insertEndpoint(row: WebhookEndpointsTable, trx: Db = db): Promise<void> {
      await trx.insertInto('webhook_endpoints').values(row).execute();
    },
    async updateEndpoint(shopId: string, endpointId: string, set: Partial<WebhookEndpointsTable>, trx: Db = db): Promise<void> {
      await trx.updateTable('webhook_endpoints').set(set).where('shop_id', '=', shopId).where('id', '=', endpointId).execute();
    },
    /** The endpoint and its whole delivery history. */
    async deleteEndpoint(shopId: string, endpointId: string, trx: Db): Promise<void> {
      await trx.deleteFrom('webhook_attempts').where('shop_id', '=', shopId).where('endpoint_id', '=', endpointId).execute();
      await trx.deleteFrom('webhook_deliveries').where('shop_id', '=', shopId).where('endpoint_id', '=', endpointId).execute();
      await trx.deleteFrom('webhook_endpoints').where('shop_id', '=', shopId).where('id', '=', endpointId).execute();
    },
    /** Every endpoint's sealed secrets (a master-key rotation re-seals them). */
    sealedSecrets(): Promise<Array<Pick<WebhookEndpointsTable, 'id' | 'secret_enc' | 'previous_secret_enc'>>> {
      return db.selectFrom('webhook_endpoints').select(['id', 'secret_enc', 'previous_secret_enc']).execute();
    },
    /** Guarded by the sealed value read before: a rotation that happened meanwhile wins. */
    async resealSecrets(
      endpointId: string,
      readSecretEnc: string,
      resealed: Pick<WebhookEndpointsTable, 'secret_enc' | 'previous_secret_enc'>,
    ): Promise<void> {
      await db
        .updateTable('webhook_endpoints')
        .set(resealed)
        .where('id', '=', endpointId)
        .where('secret_enc', '=', readSecretEnc)
        .execute();
    },

    delivery(shopId: string, deliveryId: string, trx: Db = db): Promise<WebhookDeliveriesTable | undefined> {
      return trx.selectFrom('webhook_deliveries').selectAll().where('shop_id', '=', shopId).where('id', '=', deliveryId).executeTakeFirst();
    },
    /** A delivery by id alone: outbox jobs carry only the id. */
    deliveryById(deliveryId: string): Promise<WebhookDeliveriesTable | undefined> {
      return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirst();
    },
    /** Newest first, `limit` rows after the cursor (a delivery id). */
    listDeliveries(shopId: string, f: { endpointId?: string; statuses?: string[]; before?: string; limit: number }) {
      let q = db.selectFrom('webhook_deliveries').selectAll().where('shop_id', '=', shopId);
      if (f.endpointId) q = q.where('endpoint_id', '=', f.endpointId);
      if (f.statuses) q = q.where('status', 'in', f.statuses);
      if (f.before) q = q.where('id', '<', f.before);
      return q.orderBy('id', 'desc').limit(f.limit).execute();
    },
    async insertDelivery(row: WebhookDeliveriesTable, trx: Db = db): Promise<void> {
      await insertDeliveryQuery(trx, row);
    },
    /** After one attempt round: the delivery's state, its attempt count raised by one. */
    async recordRound(
      deliveryId: string,
      set: Omit<Partial<WebhookDeliveriesTable>, 'attempts'> & { status: string; updated_at: string },
      trx: Db,
    ): Promise<void> {
      await recordRoundQuery(trx, { ...set, id: deliveryId });
    },
    async cancelDelivery(deliveryId: string, reason: string, at: string, trx: Db): Promise<void> {
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'cancelled', last_error: reason, next_attempt_at: null, updated_at: at })
        .where('id', '=', deliveryId)
        .execute();
    },
    /** A delivery whose job the worker gave up on, unless it finished meanwhile. */
    async failUnsent(deliveryId: string, reason: string, at: string): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', last_error: reason, next_attempt_at: null, updated_at: at })
        .where('id', '=', deliveryId)
        .where('status', 'in', ['pending', 'retrying'])
        .execute();
    },
    /** Reopens a finished delivery for one manual round; false when another request did it first. */
    async reopen(deliveryId: string, fromStatus: string, at: string, trx: Db): Promise<boolean> {
      const r = await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: at, updated_at: at })
        .where('id', '=', deliveryId)
        .where('status', '=', fromStatus)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    attemptsOf(shopId: string, deliveryId: string): Promise<WebhookAttemptsTable[]> {
      return db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('shop_id', '=', shopId)
        .where('delivery_id', '=', deliveryId)
        .orderBy('started_at')
        .orderBy('id')
        .execute();
    },
    async insertAttempt(row: WebhookAttemptsTable, trx: Db = db): Promise<void> {
      await insertAttemptQuery(trx, row);
    },

    /**
     * Up to `limit` finished deliveries created before `cutoff`, the oldest first, then their attempts;
     * returns how many deliveries went. `shopId`: only that shop's (PDPA auto-delete); without it, every
     * shop's (the retention prune). The status is checked by the delete itself, so a delivery reopened
     * by a manual redelivery meanwhile stays (with its attempts) until it finishes.
     */
    async deleteFinishedBefore(cutoff: string, limit: number, shopId?: string): Promise<number> {
      return db.transaction().execute(async (trx) => {
        const gone = await trx
          .deleteFrom('webhook_deliveries')
          .where('id', 'in', (eb) => {
            let q = eb
              .selectFrom('webhook_deliveries')
              .select('id')
              .where('created_at', '<', cutoff)
              .where('status', 'not in', ['pending', 'retrying']);
            if (shopId !== undefined) q = q.where('shop_id', '=', shopId);
            return q.orderBy('created_at').limit(limit);
          })
          .where('status', 'not in', ['pending', 'retrying'])
          .returning('id')
          .execute();
        if (gone.length)
          await trx
            .deleteFrom('webhook_attempts')
            .where(
              'delivery_id',
              'in',
              gone.map((r) => r.id),
            )
            .execute();
        return gone.length;
      });
    },

    /**
     * Up to `limit` attempts started before `cutoff` whose delivery is gone, the oldest first; returns how
     * many. A send in flight when its endpoint was deleted records its attempt after the delete took the
     * delivery: nothing else would ever remove that row. Bounded by `started_at` (an index), so a run
     * reads only the attempts older than the retention (after the delivery prune: those of deliveries
     * still being sent, and the orphans), never the whole table.
     */
    async deleteOrphanAttemptsBefore(cutoff: string, limit: number): Promise<number> {
      const r = await db
        .deleteFrom('webhook_attempts')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('webhook_attempts as a')
            .select('a.id')
            .where('a.started_at', '<', cutoff)
            .where(({ not, exists, selectFrom }) =>
              not(exists(selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.id', '=', 'a.delivery_id'))),
            )
            .orderBy('a.started_at')
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
export type WebhookRepo = ReturnType<typeof createWebhookRepo>;

/** A new delivery row, before its first attempt (D73: the worker's fan-out and the test send build the same row). */
export function newDeliveryRow(
  fields: Pick<WebhookDeliveriesTable, 'id' | 'shop_id' | 'endpoint_id' | 'event_id' | 'event_kind' | 'transaction_id' | 'payload'> & {
    isTest: boolean;
    nextAttemptAt: string | null;
    at: string;
  },
): WebhookDeliveriesTable {
  const { isTest, nextAttemptAt, at, ...ids } = fields;
  return {
    ...ids,
    is_test: isTest ? 1 : 0,
    status: 'pending',
    attempts: 0,
    round: 0,
    last_status_code: null,
    last_error: null,
    last_duration_ms: null,
    next_attempt_at: nextAttemptAt,
    delivered_at: null,
    created_at: at,
    updated_at: at,
  };
}

/** Purge of an erased shop (housekeeping, composed in container.ts): this module's rows of the shop. */
export const purgeWebhooksOfShop: ShopPurge = (trx, shopId) =>
  deleteShopRows(trx, shopId, ['webhook_attempts', 'webhook_deliveries', 'webhook_endpoints']);
