import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/db.js';
import type { UserSessionsTable } from '../../db/db-schema.js';
import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { deleteInBatches } from '../../db/batched-delete.js';
import { newId } from '../../lib/ids.js';
import type { AuditService } from '../audit/audit-service.js';
import { createAccountsRepo } from './accounts-repo.js';

export const REFRESH_TTL_MS = 7 * 86_400_000;
/**
 * Ended sessions (expired or revoked) and their refresh tokens are deleted this long after they ended
 * (`sessions.prune`, hourly): they hold the person's IP, browser and LINE user id. Long enough to look
 * into a theft report or a `session.refresh_reuse` with the session rows at hand; the sign-ins themselves
 * stay in the audit log for its 90 days (`auth.login` with the IP). A device unseen for longer than the
 * session's last week plus this counts as new again (sign-in notice). Each person's latest session is
 * kept however old (the team page's "last sign-in"). See modules/privacy/README.md.
 */
export const SESSION_RETENTION_DAYS = 30;
/** Two tabs refreshing with one cookie, or a reload mid-refresh, is normal: inside this window a just-rotated token gets a successor of its own; after it, its use is theft. */
export const REUSE_GRACE_MS = 10_000;
export const REFRESH_COOKIE = 'slipcheck_refresh';
/** The revoke reason of the sessions of a person the owner removed from the shop (team.removeMember). */
export const MEMBER_REMOVED_REASON = 'team_remove';

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
  const repo = createAccountsRepo(db);

  async function insertToken(trx: Db, sessionId: string, now: Date) {
    const token = newRefreshToken();
    await repo.insertRefreshToken(
      {
        token_hash: sha256(token),
        session_id: sessionId,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + REFRESH_TTL_MS).toISOString(),
        rotated_at: null,
      },
      trx,
    );
    return token;
  }

  async function revokeWhere(trx: Db, ids: string[], reason: string) {
    return repo.revokeSessions(ids, clock.now().toISOString(), reason, trx);
  }

  return {
    /** Last sign-in per person of the shop = newest session start (login, sign-up or accepted invite). */
    async lastStartsOfShop(shopId: string): Promise<Map<string, string | null>> {
      return repo.lastStartsOfShop(shopId);
    },
    /**
     * Retention (`sessions.prune`, hourly): sessions that ended more than SESSION_RETENTION_DAYS ago go
     * with their refresh tokens, and so do the expired (rotated) tokens of live sessions, tokens first.
     * In bounded batches, `renew` (the lease) between them. Returns the rows deleted.
     */
    async prune(renew?: () => Promise<void>, olderThanDays = SESSION_RETENTION_DAYS): Promise<number> {
      const cutoff = new Date(clock.now().getTime() - olderThanDays * 86_400_000).toISOString();
      let n = await deleteInBatches((limit) => repo.deleteTokensExpiredBefore(cutoff, limit), renew);
      n += await deleteInBatches((limit) => repo.deleteTokensOfSessionsRevokedBefore(cutoff, limit), renew);
      return n + (await deleteInBatches((limit) => repo.deleteSessionsEndedBefore(cutoff, limit), renew));
    },
    /** The purge of an erased shop: its refresh tokens go before the session rows (housekeeping deletes those). */
    async deleteTokensOfShop(shopId: string, trx: Db = db): Promise<void> {
      await repo.deleteTokensOfShop(shopId, trx);
    },
    /** Every live session of the shop's people ends (erasure); inside the caller's transaction. */
    async revokeAllOfShop(shopId: string, at: string, reason: string, trx: Db = db): Promise<void> {
      await repo.revokeAllOfShop(shopId, at, reason, trx);
    },
    /** True when this user never had a session from this user-agent and address (checked before start). */
    async isNewDevice(userId: string, client: ClientInfo): Promise<boolean> {
      return !(await repo.hasSessionWithFingerprint(userId, deviceFingerprint(client.userAgent, client.ip)));
    },

    /** `lineUserId`: the LINE user whose ID token opened it (unlinking that LINE user ends the session). */
    async start(
      user: { id: string; shopId: string },
      client: ClientInfo,
      trx: Db = db,
      kind: SessionKind = 'dashboard',
      lineUserId: string | null = null,
    ) {
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
        line_user_id: lineUserId,
      };
      await repo.insertSession(row, trx);
      const refreshToken = await insertToken(trx, row.id, now);
      return { session: view(row), refreshToken };
    },

    /** Rotates a refresh token. Throws REFRESH_INVALID, MEMBER_REMOVED (the person left the shop) or REFRESH_REUSED (family revoked). */
    async rotate(
      presented: string,
      client: ClientInfo,
    ): Promise<{ session: SessionView; userId: string; shopId: string; refreshToken: string; lineUserId: string | null }> {
      const invalid = () => new AppError('REFRESH_INVALID', 401, 'The session has ended; sign in again');
      if (!/^rt_[A-Za-z0-9_-]{40,60}$/.test(presented)) throw invalid();
      const now = clock.now();
      const nowIso = now.toISOString();
      const out = await db.transaction().execute(async (trx) => {
        const tok = await repo.refreshTokenByHash(sha256(presented), trx);
        if (!tok) return { kind: 'invalid' as const };
        const ses = await repo.sessionById(tok.session_id, trx);
        // Removed from the shop by its owner (team.removeMember ends every session with this reason): said
        // apart from an ordinary end, so the sign-in page can tell them to ask the owner rather than
        // leaving them to sign in again and fail. Only the holder of this session's token learns it.
        if (ses?.revoked_at && ses.revoke_reason === MEMBER_REMOVED_REASON) return { kind: 'removed' as const };
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
        if (!recentlyRotated) await repo.markTokenRotated(tok.token_hash, nowIso, trx);
        const refreshToken = await insertToken(trx, ses.id, now);
        const expires = new Date(now.getTime() + REFRESH_TTL_MS).toISOString();
        await repo.touchSession(ses.id, { last_used_at: nowIso, expires_at: expires, ip: client.ip ?? ses.ip }, trx);
        return { kind: 'ok' as const, refreshToken, row: { ...ses, last_used_at: nowIso, expires_at: expires, ip: client.ip ?? ses.ip } };
      });
      if (out.kind === 'invalid') throw invalid();
      if (out.kind === 'removed')
        throw new AppError('MEMBER_REMOVED', 401, "The shop's owner removed your access to this shop; ask the owner to invite you again");
      if (out.kind === 'reused')
        throw new AppError('REFRESH_REUSED', 401, 'This sign-in link was used twice, so the session was ended for safety; sign in again');
      return {
        session: view(out.row),
        userId: out.row.user_id,
        shopId: out.row.shop_id,
        refreshToken: out.refreshToken,
        lineUserId: out.row.line_user_id ?? null,
      };
    },

    /** The session behind a refresh token, without rotating (logout). */
    async findByRefreshToken(presented: string): Promise<UserSessionsTable | null> {
      if (!/^rt_[A-Za-z0-9_-]{40,60}$/.test(presented)) return null;
      return (await repo.sessionByTokenHash(sha256(presented))) ?? null;
    },

    /** Active = not revoked, not expired, and the user not deleted; checked on every bearer request so a revoke bites at once. */
    async isActive(sessionId: string, userId: string): Promise<boolean> {
      return repo.isSessionActive(sessionId, userId, clock.now().toISOString());
    },

    async list(userId: string): Promise<SessionView[]> {
      return (await repo.liveSessionsOfUser(userId, clock.now().toISOString())).map(view);
    },

    /** Revokes one of the user's sessions (404 for unknown ids and other users' ids alike). */
    async revoke(userId: string, sessionId: string, ctx: { actor: string; shopId: string; ip: string | null; reason: string }) {
      const row = await repo.sessionOfUser(userId, sessionId);
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
      ctx: {
        actor: string;
        shopId: string;
        ip: string | null;
        reason: string;
        exceptSessionId?: string;
        kind?: SessionKind;
        /** Only the sessions this LINE user's ID tokens opened, on every surface. */
        lineUserId?: string;
      },
      trx: Db = db,
    ): Promise<number> {
      const ids = await repo.unrevokedSessionIds(
        userId,
        { exceptSessionId: ctx.exceptSessionId, kind: ctx.kind, lineUserId: ctx.lineUserId },
        trx,
      );
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
