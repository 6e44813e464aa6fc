import { deleteOldest } from '../../db/batched-delete.js';
import { sql } from 'kysely';
import type { Db } from '../../db/db.js';
import type { PasswordResetsTable, RefreshTokensTable, UserSessionsTable, UsersTable } from '../../db/db-schema.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';

/**
 * The SQL of the accounts module's tables (`users`, `user_sessions`, `refresh_tokens`,
 * `password_resets`); no other file names them. The services keep the rules (hashing, token checks,
 * audit, errors). Methods taking `trx` run inside the caller's transaction.
 */
export function createAccountsRepo(db: Db) {
  const activeUser = (id: string) => db.selectFrom('users').selectAll().where('id', '=', id).where('deleted_at', 'is', null);

  return {
    // ---- users

    /** A person who is not removed (disabled ones included: sign-in refuses them with its own answer). */
    async activeUserById(id: string): Promise<UsersTable | undefined> {
      return activeUser(id).executeTakeFirst();
    },
    async activeUserByEmail(email: string): Promise<UsersTable | undefined> {
      return db.selectFrom('users').selectAll().where('email', '=', email).where('deleted_at', 'is', null).executeTakeFirst();
    },
    /** Every not-removed person with this address (one at most: addresses are unique). */
    async activeUsersByEmail(email: string): Promise<UsersTable[]> {
      return db.selectFrom('users').selectAll().where('email', '=', email).where('deleted_at', 'is', null).execute();
    },
    async insertUser(row: UsersTable, trx: Db = db): Promise<void> {
      await trx.insertInto('users').values(row).execute();
    },
    async setPassword(userId: string, passwordHash: string, at: string, trx: Db = db): Promise<void> {
      await trx.updateTable('users').set({ password_hash: passwordHash, password_changed_at: at }).where('id', '=', userId).execute();
    },
    async setLanguage(userId: string, language: 'th' | 'en'): Promise<void> {
      await db.updateTable('users').set({ language }).where('id', '=', userId).where('deleted_at', 'is', null).execute();
    },
    /** Hides every person of the shop and frees each address (`erased+<id>@invalid`: addresses are unique). */
    async eraseUsersOfShop(shopId: string, at: string, trx: Db = db): Promise<void> {
      await trx
        .updateTable('users')
        .set({ deleted_at: at, email: sql<string>`'erased+' || id || '@invalid'` })
        .where('shop_id', '=', shopId)
        .execute();
    },
    /** Soft delete of one person, the address freed as `removed+<id>@invalid`. */
    async removeUser(userId: string, at: string, trx: Db = db): Promise<void> {
      await trx
        .updateTable('users')
        .set({ deleted_at: at, email: `removed+${userId}@invalid` })
        .where('id', '=', userId)
        .execute();
    },
    /** Addresses of the shop's people who may sign in (not removed, not disabled), optionally of one role. */
    async activeEmailsOfShop(shopId: string, role?: UsersTable['role']): Promise<string[]> {
      let query = db
        .selectFrom('users')
        .select('email')
        .where('shop_id', '=', shopId)
        .where('deleted_at', 'is', null)
        .where('disabled_at', 'is', null);
      if (role) query = query.where('role', '=', role);
      const rows = await query.execute();
      return rows.map((r) => r.email);
    },
    async countActiveOfShop(shopId: string, trx: Db = db): Promise<number> {
      const r = await trx
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('shop_id', '=', shopId)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    /** The shop's people (not removed), oldest first. */
    async activeOfShop(shopId: string): Promise<UsersTable[]> {
      return db
        .selectFrom('users')
        .selectAll()
        .where('shop_id', '=', shopId)
        .where('deleted_at', 'is', null)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
    },
    async activeMemberOf(shopId: string, userId: string): Promise<UsersTable | undefined> {
      return activeUser(userId).where('shop_id', '=', shopId).executeTakeFirst();
    },
    async roleOf(userId: string): Promise<UsersTable['role'] | undefined> {
      const row = await db.selectFrom('users').select('role').where('id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
      return row?.role;
    },
    /** The people among `userIds` who may sign in (not removed, not disabled). */
    async usableUsers(userIds: string[]): Promise<UsersTable[]> {
      if (!userIds.length) return []; // `in ()` is not SQL
      return db
        .selectFrom('users')
        .selectAll()
        .where('id', 'in', userIds)
        .where('deleted_at', 'is', null)
        .where('disabled_at', 'is', null)
        .execute();
    },
    async passwordHashOf(userId: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', userId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return row?.password_hash;
    },

    // ---- password_resets

    async insertReset(row: PasswordResetsTable): Promise<void> {
      await db.insertInto('password_resets').values(row).execute();
    },
    async resetByHash(tokenHash: string): Promise<PasswordResetsTable | undefined> {
      return db.selectFrom('password_resets').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    },
    /** Single use: true for exactly one caller while the link is unused. */
    async useReset(tokenHash: string, at: string, trx: Db = db): Promise<boolean> {
      const r = await trx
        .updateTable('password_resets')
        .set({ used_at: at })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** Every unused reset link of the person becomes used. */
    async voidResetsOfUser(userId: string, at: string, trx: Db = db): Promise<void> {
      await trx.updateTable('password_resets').set({ used_at: at }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
    },
    /** Retention: reset links (used or not) that expired before `cutoff`, at most `limit`, oldest first. */
    async deleteResetsExpiredBefore(cutoff: string, limit: number): Promise<number> {
      return deleteOldest(db, { table: 'password_resets', key: 'token_hash', column: 'expires_at' }, cutoff, limit);
    },
    /** The purge of an erased shop: its people's reset links go before the user rows. */
    async deleteResetsOfShop(shopId: string, trx: Db = db): Promise<void> {
      await trx
        .deleteFrom('password_resets')
        .where('user_id', 'in', trx.selectFrom('users').select('id').where('shop_id', '=', shopId))
        .execute();
    },

    // ---- user_sessions and refresh_tokens

    async insertSession(row: UserSessionsTable, trx: Db = db): Promise<void> {
      await trx.insertInto('user_sessions').values(row).execute();
    },
    async sessionById(id: string, trx: Db = db): Promise<UserSessionsTable | undefined> {
      return trx.selectFrom('user_sessions').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async touchSession(id: string, set: { last_used_at: string; expires_at: string; ip: string | null }, trx: Db = db): Promise<void> {
      await trx.updateTable('user_sessions').set(set).where('id', '=', id).execute();
    },
    /** Ends the given sessions that are still live; the number ended. */
    async revokeSessions(ids: string[], at: string, reason: string, trx: Db = db): Promise<number> {
      if (!ids.length) return 0; // `in ()` is not SQL
      const r = await trx
        .updateTable('user_sessions')
        .set({ revoked_at: at, revoke_reason: reason })
        .where('id', 'in', ids)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    /** Ids of the person's unrevoked sessions, optionally but one and of one kind. */
    async unrevokedSessionIds(
      userId: string,
      only: { exceptSessionId?: string; kind?: string; lineUserId?: string },
      trx: Db = db,
    ): Promise<string[]> {
      let q = trx.selectFrom('user_sessions').select('id').where('user_id', '=', userId).where('revoked_at', 'is', null);
      if (only.exceptSessionId) q = q.where('id', '!=', only.exceptSessionId);
      if (only.kind) q = q.where('kind', '=', only.kind);
      if (only.lineUserId) q = q.where('line_user_id', '=', only.lineUserId);
      return (await q.execute()).map((r) => r.id);
    },
    /** One of the person's sessions (revoked ones included), or undefined. */
    async sessionOfUser(userId: string, sessionId: string): Promise<Pick<UserSessionsTable, 'id' | 'revoked_at'> | undefined> {
      return db
        .selectFrom('user_sessions')
        .select(['id', 'revoked_at'])
        .where('id', '=', sessionId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
    },
    /** The person's live sessions (not revoked, not expired at `nowIso`), last used first. */
    async liveSessionsOfUser(userId: string, nowIso: string): Promise<UserSessionsTable[]> {
      return db
        .selectFrom('user_sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', nowIso)
        .orderBy('last_used_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
    },
    /** The session is live at `nowIso` and its person neither removed nor disabled (one indexed read). */
    async isSessionActive(sessionId: string, userId: string, nowIso: string): Promise<boolean> {
      const row = await db
        .selectFrom('user_sessions')
        .innerJoin('users', 'users.id', 'user_sessions.user_id')
        .select(['user_sessions.id'])
        .where('user_sessions.id', '=', sessionId)
        .where('user_sessions.user_id', '=', userId)
        .where('user_sessions.revoked_at', 'is', null)
        .where('user_sessions.expires_at', '>', nowIso)
        .where('users.deleted_at', 'is', null)
        .where('users.disabled_at', 'is', null)
        .executeTakeFirst();
      return !!row;
    },
    /** True when the person ever had a session with this device fingerprint. */
    async hasSessionWithFingerprint(userId: string, fingerprint: string): Promise<boolean> {
      const row = await db
        .selectFrom('user_sessions')
        .select('id')
        .where('user_id', '=', userId)
        .where('fingerprint', '=', fingerprint)
        .limit(1)
        .executeTakeFirst();
      return !!row;
    },
    /** Newest session start per person of the shop. */
    async lastStartsOfShop(shopId: string): Promise<Map<string, string | null>> {
      const rows = await db
        .selectFrom('user_sessions')
        .select(['user_id', (eb) => eb.fn.max('created_at').as('last')])
        .where('shop_id', '=', shopId)
        .groupBy('user_id')
        .execute();
      return new Map(rows.map((r) => [r.user_id, r.last as string | null]));
    },
    /** Every live session of the shop's people ends. */
    async revokeAllOfShop(shopId: string, at: string, reason: string, trx: Db = db): Promise<void> {
      await trx
        .updateTable('user_sessions')
        .set({ revoked_at: at, revoke_reason: reason })
        .where('shop_id', '=', shopId)
        .where('revoked_at', 'is', null)
        .execute();
    },
    async insertRefreshToken(row: RefreshTokensTable, trx: Db = db): Promise<void> {
      await trx.insertInto('refresh_tokens').values(row).execute();
    },
    async refreshTokenByHash(tokenHash: string, trx: Db = db): Promise<RefreshTokensTable | undefined> {
      return trx.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    },
    /** Conditional, so the first rotation's time stands. */
    async markTokenRotated(tokenHash: string, at: string, trx: Db = db): Promise<void> {
      await trx
        .updateTable('refresh_tokens')
        .set({ rotated_at: at })
        .where('token_hash', '=', tokenHash)
        .where('rotated_at', 'is', null)
        .executeTakeFirst();
    },
    /** The session behind a refresh token (rotated or not). */
    async sessionByTokenHash(tokenHash: string): Promise<UserSessionsTable | undefined> {
      return db
        .selectFrom('refresh_tokens')
        .innerJoin('user_sessions', 'user_sessions.id', 'refresh_tokens.session_id')
        .selectAll('user_sessions')
        .where('refresh_tokens.token_hash', '=', tokenHash)
        .executeTakeFirst();
    },
    /**
     * Retention: refresh tokens that expired before `cutoff` (those of ended sessions, and the rotated
     * ones a long-lived session leaves behind), at most `limit`, oldest first.
     */
    async deleteTokensExpiredBefore(cutoff: string, limit: number): Promise<number> {
      return deleteOldest(db, { table: 'refresh_tokens', key: 'token_hash', column: 'expires_at' }, cutoff, limit);
    },
    /** Retention: the refresh tokens (still unexpired) of sessions revoked before `cutoff`, at most `limit`. */
    async deleteTokensOfSessionsRevokedBefore(cutoff: string, limit: number): Promise<number> {
      const r = await db
        .deleteFrom('refresh_tokens')
        .where('token_hash', 'in', (eb) =>
          eb
            .selectFrom('refresh_tokens')
            .select('token_hash')
            .where('session_id', 'in', eb.selectFrom('user_sessions').select('id').where('revoked_at', '<', cutoff))
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /**
     * Retention: sessions that ended (expired or were revoked) before `cutoff` and have no refresh token
     * left (those go first, above), at most `limit`. A person's latest session stays however old: its
     * start is their "last sign-in" on the team page (lastStartsOfShop), which an owner reads to find
     * staff who stopped using the dashboard; it goes with the person (removal, erasure).
     */
    async deleteSessionsEndedBefore(cutoff: string, limit: number): Promise<number> {
      const r = await db
        .deleteFrom('user_sessions')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('user_sessions as s')
            .select('s.id')
            .where((w) => w.or([w('s.expires_at', '<', cutoff), w('s.revoked_at', '<', cutoff)]))
            .where(({ not, exists, selectFrom }) =>
              not(exists(selectFrom('refresh_tokens as t').select('t.token_hash').whereRef('t.session_id', '=', 's.id'))),
            )
            .where(({ exists, selectFrom }) =>
              exists(
                selectFrom('user_sessions as n')
                  .select('n.id')
                  .whereRef('n.user_id', '=', 's.user_id')
                  .whereRef('n.created_at', '>', 's.created_at'),
              ),
            )
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** The purge of an erased shop: its refresh tokens go before the session rows. */
    async deleteTokensOfShop(shopId: string, trx: Db = db): Promise<void> {
      await trx
        .deleteFrom('refresh_tokens')
        .where('session_id', 'in', trx.selectFrom('user_sessions').select('id').where('shop_id', '=', shopId))
        .execute();
    },
  };
}
export type AccountsRepo = ReturnType<typeof createAccountsRepo>;

/** Purge of an erased shop (housekeeping, composed in container.ts): this module's user rows of the shop. */
export const purgeUsersOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['users']);

/** Purge of an erased shop (housekeeping, composed in container.ts): this module's session rows of the shop. */
export const purgeSessionsOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['user_sessions']);
