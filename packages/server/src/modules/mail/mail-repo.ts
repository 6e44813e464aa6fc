import { deleteOldest } from '../../db/batched-delete.js';
import type { Db } from '../../db/db.js';
import type { MailMessagesTable } from '../../db/db-schema.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';

/** The SQL of the mail sink and send log (table `mail_messages`); no other file names the table. */
export function createMailRepo(db: Db) {
  return {
    /** Idempotent by id (a retried job derives the same id): false when the row was already there. */
    async insertOnce(row: MailMessagesTable): Promise<boolean> {
      const r = await db
        .insertInto('mail_messages')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 1n) !== 0;
    },
    async setOutcome(id: string, outcome: { status: 'sent' } | { status: 'failed'; error: string }): Promise<void> {
      await db.updateTable('mail_messages').set(outcome).where('id', '=', id).execute();
    },
    /** Deletes at most `limit` messages created before `cutoff` (the oldest first); returns how many. */
    async deleteBefore(cutoff: string, limit: number): Promise<number> {
      return deleteOldest(db, { table: 'mail_messages', key: 'id', column: 'created_at' }, cutoff, limit);
    },
    /**
     * For a person's data export: messages to `address` of the shop (any time) or without a shop sent
     * since `since` (the account's creation: an earlier holder of the address is another person), plus,
     * with `invitesOfShop`, the shop's invitations to any address. Oldest first; never the body.
     */
    async forExport(f: { shopId: string; address: string; since: string; invitesOfShop: boolean }) {
      return db
        .selectFrom('mail_messages')
        .select(['to_addr', 'subject', 'template', 'status', 'created_at'])
        .where((eb) =>
          eb.or([
            eb.and([eb('to_addr', '=', f.address), eb('shop_id', '=', f.shopId)]),
            eb.and([eb('to_addr', '=', f.address), eb('shop_id', 'is', null), eb('created_at', '>=', f.since)]),
            ...(f.invitesOfShop ? [eb.and([eb('shop_id', '=', f.shopId), eb('template', '=', 'team_invite')])] : []),
          ]),
        )
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },
    async list(opts: { to?: string; limit: number }): Promise<MailMessagesTable[]> {
      let q = db.selectFrom('mail_messages').selectAll();
      if (opts.to) q = q.where('to_addr', '=', opts.to);
      return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit).execute();
    },
  };
}

/** Purge of an erased shop (housekeeping, composed in container.ts): this module's rows of the shop. */
export const purgeMailOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['mail_messages']);
