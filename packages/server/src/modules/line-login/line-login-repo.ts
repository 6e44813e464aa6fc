import { deleteOldest } from '../../db/batched-delete.js';
import type { Db } from '../../db/db.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';
import type { LineLoginCodesTable, LineLoginsTable } from './line-login-tables.js';

/**
 * Data access of `line_logins` (person -> LINE user) and `line_login_codes` (one-time link codes,
 * SHA-256 only). Only SQL lives here; the rules live in line-login-service.ts.
 */
export function createLineLoginRepo(db: Db) {
  return {
    /** The people (users rows, one per shop) a LINE user is linked to. */
    async userIdsOf(lineUserId: string): Promise<string[]> {
      const rows = await db.selectFrom('line_logins').select('user_id').where('line_user_id', '=', lineUserId).execute();
      return rows.map((r) => r.user_id);
    },
    linkOf(userId: string): Promise<Pick<LineLoginsTable, 'linked_at' | 'line_user_id'> | undefined> {
      return db.selectFrom('line_logins').select(['linked_at', 'line_user_id']).where('user_id', '=', userId).executeTakeFirst();
    },
    async tokenSeen(tokenHash: string, trx: Db = db): Promise<boolean> {
      return !!(await trx.selectFrom('line_id_tokens').select('token_hash').where('token_hash', '=', tokenHash).executeTakeFirst());
    },
    /**
     * Conditional: of two sign-ins with one token, exactly one gets true. Expired entries are deleted by
     * the hourly prune (`deleteTokensExpiredBy`), not here: a sign-in does one insert, however many expired.
     */
    async spendToken(tokenHash: string, expiresAt: string, trx: Db): Promise<boolean> {
      const r = await trx
        .insertInto('line_id_tokens')
        .values({ token_hash: tokenHash, expires_at: expiresAt })
        .onConflict((oc) => oc.column('token_hash').doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    /** Retention: spent ID tokens and nonces expired by `nowIso` (no longer accepted anyway), at most `limit`. */
    async deleteTokensExpiredBy(nowIso: string, limit: number): Promise<number> {
      return deleteOldest(db, { table: 'line_id_tokens', key: 'token_hash', column: 'expires_at' }, nowIso, limit, { inclusive: true });
    },
    /** Retention: login link codes (used or not) that expired before `cutoff`, at most `limit`. */
    async deleteCodesExpiredBefore(cutoff: string, limit: number): Promise<number> {
      return deleteOldest(db, { table: 'line_login_codes', key: 'code_hash', column: 'expires_at' }, cutoff, limit);
    },
    /** A person's new link replaces their old one and any other person's link of this LINE user in the shop. */
    async replaceLink(row: LineLoginsTable, trx: Db): Promise<void> {
      await trx.deleteFrom('line_logins').where('shop_id', '=', row.shop_id).where('line_user_id', '=', row.line_user_id).execute();
      await trx.deleteFrom('line_logins').where('user_id', '=', row.user_id).execute();
      await trx.insertInto('line_logins').values(row).execute();
    },
    /** Returns whether a link was there. */
    async deleteLink(userId: string, shopId: string): Promise<boolean> {
      const r = await db.deleteFrom('line_logins').where('user_id', '=', userId).where('shop_id', '=', shopId).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    /** One live code per person: a new one voids the old (in the same transaction). */
    async replaceCode(row: LineLoginCodesTable, trx: Db): Promise<void> {
      await trx
        .updateTable('line_login_codes')
        .set({ used_at: row.created_at })
        .where('user_id', '=', row.user_id)
        .where('used_at', 'is', null)
        .execute();
      await trx.insertInto('line_login_codes').values(row).execute();
    },
    codeByHash(codeHash: string, trx: Db): Promise<LineLoginCodesTable | undefined> {
      return trx.selectFrom('line_login_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
    },
    /** Conditional: two phones entering one code, exactly one gets true. */
    async consumeCode(codeHash: string, at: string, trx: Db): Promise<boolean> {
      const r = await trx
        .updateTable('line_login_codes')
        .set({ used_at: at })
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
  };
}
export type LineLoginRepo = ReturnType<typeof createLineLoginRepo>;

/**
 * Purge of an erased shop (housekeeping, composed in container.ts): its people's LINE links (LINE user
 * ids) and link codes. `line_id_tokens` holds only token hashes tied to no shop; they go when they expire.
 */
export const purgeLineLoginsOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['line_login_codes', 'line_logins']);
