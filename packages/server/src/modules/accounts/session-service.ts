import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/db.js';
import type { UserSessionsTable } from '../../db/db-schema.js';
import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AuditService } from '../audit/audit-service.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';

export const REFRESH_TTL_MS = 7 * 86_400_000;
/** Two tabs refreshing with one cookie, or a reload mid-refresh, is normal: inside this window a just-rotated token gets a successor of its own; after it, its use is theft. */
export const REUSE_GRACE_MS = 10_000;
export const REFRESH_COOKIE = 'slipcheck_refresh';

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
export const deviceFingerprint = (userAgent: string | null, ip: string | null) => sha256(`${userAgent ?? ''}|${ip ?? ''}`);

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

export interface SessionView {
  id: string;
  userAgent: string | null;
  ip: string | null;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  kind: SessionKind;
}

export type SessionKind = 'dashboard' | 'miniapp';

const view = (r: UserSessionsTable): SessionView => ({
  id: r.id,
  userAgent: r.user_agent,
  ip: r.ip,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  expiresAt: r.expires_at,
  kind: r.kind === 'miniapp' ? 'miniapp' : 'dashboard',
});

const newRefreshToken = () => `rt_${randomBytes(32).toString('base64url')}`;

/**
 * Sessions are refresh-token families. Every refresh rotates the token (the old one is kept, marked
 * rotated, so a second use is recognised); a rotated token presented again after the grace window
 * means it was copied, so the whole family is revoked.
 */
export function createSessionService(deps: { db: Db; clock: Clock; audit: AuditService }) {
  const { db, clock, audit } = deps;

  async function insertToken(trx: Db, sessionId: string, now: Date) {
    const token = newRefreshToken();
    await trx
      .insertInto('refresh_tokens')
      .values({
        token_hash: sha256(token),
        session_id: sessionId,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + REFRESH_TTL_MS).toISOString(),
        rotated_at: null,
      })
      .execute();
    return token;
  }

  async function revokeWhere(trx: Db, ids: string[], reason: string) {
    if (!ids.length) return 0;
    const r = await trx
      .updateTable('user_sessions')
      .set({ revoked_at: clock.now().toISOString(), revoke_reason: reason })
      .where('id', 'in', ids)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  return {
    /** Last sign-in per person of the shop = newest session start (login, sign-up or accepted invite). */
    async lastStartsOfShop(shopId: string): Promise<Map<string, string | null>> {
      const rows = await db
        .selectFrom('user_sessions')
        .select(['user_id', (eb) => eb.fn.max('created_at').as('last')])
        .where('shop_id', '=', shopId)
        .groupBy('user_id')
        .execute();
      return new Map(rows.map((r) => [r.user_id, r.last as string | null]));
    },
    /** The purge of an erased shop: its refresh tokens go before the session rows (housekeeping deletes those). */
    async deleteTokensOfShop(shopId: string, trx: Db = db): Promise<void> {
      await trx
        .deleteFrom('refresh_tokens')
        .where('session_id', 'in', trx.selectFrom('user_sessions').select('id').where('shop_id', '=', shopId))
        .execute();
    },
    /** Every live session of the shop's people ends (erasure); inside the caller's transaction. */
    async revokeAllOfShop(shopId: string, at: string, reason: string, trx: Db = db): Promise<void> {
      await trx
        .updateTable('user_sessions')
        .set({ revoked_at: at, revoke_reason: reason })
        .where('shop_id', '=', shopId)
        .where('revoked_at', 'is', null)
        .execute();
    },
    /** True when this user never had a session from this user-agent and address (checked before start). */
    async isNewDevice(userId: string, client: ClientInfo): Promise<boolean> {
      const row = await db
        .selectFrom('user_sessions')
        .select('id')
        .where('user_id', '=', userId)
        .where('fingerprint', '=', deviceFingerprint(client.userAgent, client.ip))
        .limit(1)
        .executeTakeFirst();
      return !row;
    },

    async start(user: { id: string; shopId: string }, client: ClientInfo, trx: Db = db, kind: SessionKind = 'dashboard') {
      const now = clock.now();
      const row: UserSessionsTable = {
        id: newId('ses'),
        user_id: user.id,
        shop_id: user.shopId,
        user_agent: client.userAgent?.slice(0, 300) ?? null,
        ip: client.ip,
        fingerprint: deviceFingerprint(client.userAgent, client.ip),
        created_at: now.toISOString(),
        last_used_at: now.toISOString(),
        expires_at: new Date(now.getTime() + REFRESH_TTL_MS).toISOString(),
        revoked_at: null,
        revoke_reason: null,
        kind,
      };
      await trx.insertInto('user_sessions').values(row).execute();
      const refreshToken = await insertToken(trx, row.id, now);
      return { session: view(row), refreshToken };
    },

    /** Rotates a refresh token. Throws REFRESH_INVALID or REFRESH_REUSED (family revoked). */
    async rotate(
      presented: string,
      client: ClientInfo,
    ): Promise<{ session: SessionView; userId: string; shopId: string; refreshToken: string }> {
      const invalid = () => new AppError('REFRESH_INVALID', 401, 'The session has ended; sign in again');
      if (!/^rt_[A-Za-z0-9_-]{40,60}$/.test(presented)) throw invalid();
      const now = clock.now();
      const nowIso = now.toISOString();
      const out = await db.transaction().execute(async (trx) => {
        const tok = await trx.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', sha256(presented)).executeTakeFirst();
        if (!tok) return { kind: 'invalid' as const };
        const ses = await trx.selectFrom('user_sessions').selectAll().where('id', '=', tok.session_id).executeTakeFirst();
        if (!ses || ses.revoked_at || ses.expires_at <= nowIso) return { kind: 'invalid' as const };
        // A token rotated moments ago is presented again when the answer that carried its successor never
        // reached the browser (a reload or a closed tab mid-refresh) or by a second tab: inside the grace
        // window that is not theft, so it gets a successor of its own instead of a sign-out.
        const recentlyRotated = !!tok.rotated_at && now.getTime() - Date.parse(tok.rotated_at) < REUSE_GRACE_MS;
        if (tok.rotated_at && !recentlyRotated) {
          await revokeWhere(trx, [ses.id], 'refresh_reuse');
          await audit.record(
            {
              shopId: ses.shop_id,
              actor: `user:${ses.user_id}`,
              action: 'session.refresh_reuse',
              target: ses.id,
              ip: client.ip,
              detail: { userAgent: client.userAgent?.slice(0, 200) ?? null },
            },
            trx,
          );
          return { kind: 'reused' as const };
        }
        if (tok.expires_at <= nowIso) return { kind: 'invalid' as const };
        // Conditional, so the first rotation's time stands (it starts the grace window); a concurrent
        // second rotation of the same token lands in that window and gets its own successor.
        if (!recentlyRotated) {
          await trx
            .updateTable('refresh_tokens')
            .set({ rotated_at: nowIso })
            .where('token_hash', '=', tok.token_hash)
            .where('rotated_at', 'is', null)
            .executeTakeFirst();
        }
        const refreshToken = await insertToken(trx, ses.id, now);
        const expires = new Date(now.getTime() + REFRESH_TTL_MS).toISOString();
        await trx
          .updateTable('user_sessions')
          .set({ last_used_at: nowIso, expires_at: expires, ip: client.ip ?? ses.ip })
          .where('id', '=', ses.id)
          .execute();
        return { kind: 'ok' as const, refreshToken, row: { ...ses, last_used_at: nowIso, expires_at: expires, ip: client.ip ?? ses.ip } };
      });
      if (out.kind === 'invalid') throw invalid();
      if (out.kind === 'reused')
        throw new AppError('REFRESH_REUSED', 401, 'This sign-in link was used twice, so the session was ended for safety; sign in again');
      return { session: view(out.row), userId: out.row.user_id, shopId: out.row.shop_id, refreshToken: out.refreshToken };
    },

    /** The session behind a refresh token, without rotating (logout). */
    async findByRefreshToken(presented: string): Promise<UserSessionsTable | null> {
      if (!/^rt_[A-Za-z0-9_-]{40,60}$/.test(presented)) return null;
      const row = await db
        .selectFrom('refresh_tokens')
        .innerJoin('user_sessions', 'user_sessions.id', 'refresh_tokens.session_id')
        .selectAll('user_sessions')
        .where('refresh_tokens.token_hash', '=', sha256(presented))
        .executeTakeFirst();
      return row ?? null;
    },

    /** Active = not revoked, not expired, and the user not deleted; checked on every bearer request so a revoke bites at once. */
    async isActive(sessionId: string, userId: string): Promise<boolean> {
      const row = await db
        .selectFrom('user_sessions')
        .innerJoin('users', 'users.id', 'user_sessions.user_id')
        .select(['user_sessions.id'])
        .where('user_sessions.id', '=', sessionId)
        .where('user_sessions.user_id', '=', userId)
        .where('user_sessions.revoked_at', 'is', null)
        .where('user_sessions.expires_at', '>', clock.now().toISOString())
        .where('users.deleted_at', 'is', null)
        .where('users.disabled_at', 'is', null)
        .executeTakeFirst();
      return !!row;
    },

    async list(userId: string): Promise<SessionView[]> {
      const rows = await db
        .selectFrom('user_sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', clock.now().toISOString())
        .orderBy('last_used_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(view);
    },

    /** Revokes one of the user's sessions (404 for unknown ids and other users' ids alike). */
    async revoke(userId: string, sessionId: string, ctx: { actor: string; shopId: string; ip: string | null; reason: string }) {
      const row = await db
        .selectFrom('user_sessions')
        .select(['id', 'revoked_at'])
        .where('id', '=', sessionId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (!row || row.revoked_at) throw notFound('Session');
      await revokeWhere(db, [sessionId], ctx.reason);
      await audit.record({
        shopId: ctx.shopId,
        actor: ctx.actor,
        action: 'session.revoke',
        target: sessionId,
        ip: ctx.ip,
        detail: { reason: ctx.reason },
      });
    },

    async revokeAll(
      userId: string,
      ctx: { actor: string; shopId: string; ip: string | null; reason: string; exceptSessionId?: string; kind?: SessionKind },
      trx: Db = db,
    ): Promise<number> {
      let q = trx.selectFrom('user_sessions').select('id').where('user_id', '=', userId).where('revoked_at', 'is', null);
      if (ctx.exceptSessionId) q = q.where('id', '!=', ctx.exceptSessionId);
      if (ctx.kind) q = q.where('kind', '=', ctx.kind);
      const ids = (await q.execute()).map((r) => r.id);
      const n = await revokeWhere(trx, ids, ctx.reason);
      if (n)
        await audit.record(
          {
            shopId: ctx.shopId,
            actor: ctx.actor,
            action: 'session.revoke',
            target: userId,
            ip: ctx.ip,
            detail: { reason: ctx.reason, count: n, all: true },
          },
          trx,
        );
      return n;
    },

    async markRevoked(sessionId: string, reason: string) {
      return revokeWhere(db, [sessionId], reason);
    },
  };
}
export type SessionService = ReturnType<typeof createSessionService>;

/** Purge of an erased shop (housekeeping, composed in container.ts): this module's rows of the shop. */
export const purgeSessionsOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['user_sessions']);
