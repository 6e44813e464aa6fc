import type { Db } from '../../db/db.js';
import type { TeamInvitesTable } from '../../db/db-schema.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';

/** The SQL of staff invites (table `team_invites`); no other file names the table. */
export function createTeamRepo(db: Db) {
  const pending = (trx: Db, shopId: string, nowIso: string) =>
    trx
      .selectFrom('team_invites')
      .where('shop_id', '=', shopId)
      .where('used_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', nowIso);
  return {
    async countPending(shopId: string, nowIso: string, trx: Db = db): Promise<number> {
      const r = await pending(trx, shopId, nowIso)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async listPending(
      shopId: string,
      nowIso: string,
    ): Promise<Array<Pick<TeamInvitesTable, 'id' | 'email' | 'created_at' | 'expires_at'>>> {
      return pending(db, shopId, nowIso)
        .select(['id', 'email', 'created_at', 'expires_at'])
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
    },
    /** Revokes the address's pending invite (a resend replaces it); true when there was one. */
    async revokePendingFor(shopId: string, email: string, nowIso: string, trx: Db = db): Promise<boolean> {
      const r = await trx
        .updateTable('team_invites')
        .set({ revoked_at: nowIso })
        .where('shop_id', '=', shopId)
        .where('email', '=', email)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', nowIso)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async insert(row: TeamInvitesTable, trx: Db = db): Promise<void> {
      await trx.insertInto('team_invites').values(row).execute();
    },
    /** True when exactly this pending (unused, unrevoked) invite of the shop was revoked. */
    async revoke(shopId: string, inviteId: string, nowIso: string): Promise<boolean> {
      const r = await db
        .updateTable('team_invites')
        .set({ revoked_at: nowIso })
        .where('id', '=', inviteId)
        .where('shop_id', '=', shopId)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async byTokenHash(tokenHash: string): Promise<TeamInvitesTable | undefined> {
      return db.selectFrom('team_invites').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    },
    /** Single use: true for exactly one caller while the invite is still pending. */
    async markUsed(inviteId: string, userId: string, nowIso: string, trx: Db = db): Promise<boolean> {
      const r = await trx
        .updateTable('team_invites')
        .set({ used_at: nowIso, accepted_user_id: userId })
        .where('id', '=', inviteId)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', nowIso)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
  };
}

/** Purge of an erased shop (housekeeping, composed in container.ts): this module's rows of the shop. */
export const purgeInvitesOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['team_invites']);
