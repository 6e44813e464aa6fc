import { createHash, randomInt } from 'node:crypto';
import type { Db } from '../../db/db.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { AccountService } from '../accounts/account-service.js';
import type { AuditService } from '../audit/audit-service.js';
import type { ClientInfo, SessionKind, SessionService } from '../accounts/session-service.js';
import { mailTemplates } from '../mail/mail-templates.js';
import type { MailService } from '../mail/mail-service.js';
import type { ShopService } from '../shops/shop-service.js';
import type { LineIdentity } from './line-login-client.js';
import { createLineLoginRepo } from './line-login-repo.js';
import { deleteInBatches } from '../../db/batched-delete.js';

const LINK_CODE_TTL_MS = 10 * 60_000;
/**
 * Link codes are deleted this long after they expired (`line-login.prune`, hourly): past its expiry a
 * code links nothing; a day still tells "used" from "unknown" to someone retyping an old one. Spent ID
 * tokens and nonces (hashes) go as soon as they expire: an expired token is refused before it is looked up.
 */
export const LOGIN_CODE_RETENTION_DAYS = 1;
// No 0/O, 1/I/L: the code is read off a screen and typed on a phone.
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const hashCode = (code: string) =>
  createHash('sha256')
    .update(code.replace(/[^A-Za-z0-9]/g, '').toUpperCase())
    .digest('hex');

export interface Membership {
  userId: string;
  shopId: string;
  shopName: string;
  role: 'owner' | 'staff';
}

const notLinked = () =>
  new AppError(
    'LINE_NOT_LINKED',
    403,
    'This LINE account is not linked to any shop yet. Ask for a link code in the dashboard (Security > Link my LINE) and enter it here.',
  );

const tokenSpent = () =>
  new AppError('LINE_TOKEN_INVALID', 401, 'LINE sign-in failed: this sign-in was already used; open the mini-app from LINE again');

const notResumable = () => new AppError('REFRESH_INVALID', 401, 'No mini-app session of this LINE user to continue; sign in with LINE');

/**
 * Sign-in with LINE. A person (a `users` row, one per shop) links their LINE user once with a one-time
 * code from the dashboard; afterwards a verified LINE ID token opens a session under exactly the
 * dashboard's rules (same session service, refresh rotation and reuse detection), marked `miniapp`.
 */
export function createLineLoginService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  sessions: Pick<SessionService, 'revokeAll' | 'isNewDevice' | 'start' | 'rotate' | 'markRevoked' | 'findByRefreshToken'>;
  /** People and shops are the accounts and shops modules' tables: read through their services. */
  accounts: Pick<AccountService, 'activeUsers' | 'getUser'>;
  shops: Pick<ShopService, 'get'>;
  mail: Pick<MailService, 'send'>;
  securityUrl: string;
  timeZone: string;
}) {
  const { db, clock, audit, sessions } = deps;
  const repo = createLineLoginRepo(db);

  /** The shops a LINE user may sign in to, by shop name (then id): people not removed or disabled, shops not erased. */
  async function memberships(lineUserId: string): Promise<Membership[]> {
    const users = await deps.accounts.activeUsers(await repo.userIdsOf(lineUserId));
    const all: Membership[] = [];
    for (const u of users) {
      const shop = await deps.shops.get(u.shopId).catch((e: unknown) => {
        if (e instanceof AppError && e.statusCode === 404) return null; // an erased shop
        throw e;
      });
      if (shop) all.push({ userId: u.id, shopId: u.shopId, shopName: shop.name, role: u.role });
    }
    const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return all.sort((a, b) => order(a.shopName, b.shopName) || order(a.shopId, b.shopId));
  }

  return {
    /**
     * Retention (`line-login.prune`, hourly): spent ID tokens and nonces once expired, link codes
     * LOGIN_CODE_RETENTION_DAYS after they expired; in bounded batches, `renew` between them.
     */
    async prune(renew?: () => Promise<void>, olderThanDays = LOGIN_CODE_RETENTION_DAYS): Promise<number> {
      const now = clock.now();
      const cutoff = new Date(now.getTime() - olderThanDays * 86_400_000).toISOString();
      const tokens = await deleteInBatches((limit) => repo.deleteTokensExpiredBy(now.toISOString(), limit), renew);
      return tokens + (await deleteInBatches((limit) => repo.deleteCodesExpiredBefore(cutoff, limit), renew));
    },
    /** The person's own link, for their data export: the LINE user id and when it was linked, or null. */
    async linkOf(userId: string): Promise<{ lineUserId: string; linkedAt: string } | null> {
      const row = await repo.linkOf(userId);
      return row ? { lineUserId: row.line_user_id, linkedAt: row.linked_at } : null;
    },

    async status(userId: string) {
      const row = await repo.linkOf(userId);
      return { linked: !!row, linkedAt: row?.linked_at ?? null };
    },

    /** A one-time code (shown once) that links the LINE user who enters it in the mini-app to this person. */
    async createCode(user: { id: string; shopId: string }) {
      const now = clock.now();
      const raw = Array.from({ length: 8 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
      const code = `${raw.slice(0, 4)}-${raw.slice(4)}`;
      const expiresAt = new Date(now.getTime() + LINK_CODE_TTL_MS).toISOString();
      const row = {
        code_hash: hashCode(code),
        user_id: user.id,
        shop_id: user.shopId,
        created_at: now.toISOString(),
        expires_at: expiresAt,
        used_at: null,
      };
      await db.transaction().execute((trx) => repo.replaceCode(row, trx));
      return { code, expiresAt };
    },

    /** Consumes a code for a verified LINE user. A LINE user links to at most one person per shop. */
    async linkWithCode(identity: LineIdentity, code: string, client: ClientInfo) {
      const now = clock.now().toISOString();
      // A spent token must not spend a link code either (signIn refuses it right after).
      if (await repo.tokenSeen(identity.tokenHash)) throw tokenSpent();
      const linked = await db.transaction().execute(async (trx) => {
        const row = await repo.codeByHash(hashCode(code), trx);
        if (!row || row.used_at || row.expires_at <= now) return null;
        if (!(await repo.consumeCode(row.code_hash, now, trx))) return null;
        await repo.replaceLink({ user_id: row.user_id, shop_id: row.shop_id, line_user_id: identity.lineUserId, linked_at: now }, trx);
        await audit.record(
          { shopId: row.shop_id, actor: `user:${row.user_id}`, action: 'line_login.link', target: row.user_id, ip: client.ip, detail: {} },
          trx,
        );
        return row;
      });
      if (!linked)
        throw new AppError('LINK_CODE_INVALID', 400, 'This link code is wrong, used or expired; create a new one in the dashboard');
      return { userId: linked.user_id, shopId: linked.shop_id };
    },

    /**
     * Unlinking ends every session that LINE user opened for the person, on every surface (mini-app and
     * the dashboard's "Log in with LINE"); password sessions stay. Mini-app sessions are LINE's whatever
     * their column says (sessions from before it was kept).
     */
    async unlink(user: { id: string; shopId: string }, client: ClientInfo) {
      const link = await repo.linkOf(user.id);
      if (!link || !(await repo.deleteLink(user.id, user.shopId))) throw new AppError('NOT_FOUND', 404, 'No LINE account is linked');
      const ctx = { actor: `user:${user.id}`, shopId: user.shopId, ip: client.ip, reason: 'line_unlinked' };
      await sessions.revokeAll(user.id, { ...ctx, lineUserId: link.line_user_id });
      await sessions.revokeAll(user.id, { ...ctx, kind: 'miniapp' });
      await audit.record({
        shopId: user.shopId,
        actor: `user:${user.id}`,
        action: 'line_login.unlink',
        target: user.id,
        ip: client.ip,
        detail: {},
      });
    },

    /** A mini-app sign-in nonce is good for one attempt: false when it was already presented. */
    async spendNonce(nonce: string, expiresAt: Date): Promise<boolean> {
      const hash = createHash('sha256').update(`nonce:${nonce}`).digest('hex');
      return db.transaction().execute((trx) => repo.spendToken(hash, expiresAt.toISOString(), trx));
    },

    /**
     * The mini-app's shop switcher: an ID token opens one session, so switching shops moves the current
     * LINE session (its refresh token) to another shop of the same LINE user instead of signing in again.
     */
    async switchShop(refreshToken: string, shopId: string, client: ClientInfo) {
      const current = await sessions.rotate(refreshToken, client);
      if (!current.lineUserId) throw notLinked();
      const all = await memberships(current.lineUserId);
      const chosen = all.find((m) => m.shopId === shopId);
      if (!chosen) throw notLinked();
      const started = await sessions.start({ id: chosen.userId, shopId: chosen.shopId }, client, db, 'miniapp', current.lineUserId);
      await sessions.markRevoked(current.session.id, 'shop_switch');
      await audit.record({
        shopId: chosen.shopId,
        actor: `user:${chosen.userId}`,
        action: 'auth.login',
        target: started.session.id,
        ip: client.ip,
        detail: { method: 'line', kind: 'miniapp', switchedFrom: current.shopId },
      });
      return { membership: chosen, memberships: all, session: started.session, refreshToken: started.refreshToken };
    },

    /**
     * A reload of the mini-app: LIFF hands the page the ID token it cached, which already opened a
     * session, so the session behind the refresh cookie continues instead, but only when it is a
     * mini-app session opened for exactly the LINE user the token names (a verified `sub`). Anything
     * else (another person's dashboard session in the browser, another LINE user's session, a
     * revoked one) answers REFRESH_INVALID before the cookie is rotated, so that session is left as it
     * was, and the page signs in afresh. `verify` runs only when there is a session to compare with.
     */
    async resume(refreshToken: string, verify: () => Promise<LineIdentity>, client: ClientInfo) {
      const held = await sessions.findByRefreshToken(refreshToken);
      const nowIso = clock.now().toISOString();
      if (!held || held.kind !== 'miniapp' || !held.line_user_id || held.revoked_at || held.expires_at <= nowIso) throw notResumable();
      const identity = await verify();
      if (identity.lineUserId !== held.line_user_id) throw notResumable();
      // Still allowed in: unlinking, removal, a disabled person or an erased shop end the way back.
      const all = await memberships(identity.lineUserId);
      const membership = all.find((m) => m.userId === held.user_id && m.shopId === held.shop_id);
      if (!membership) throw notResumable();
      // The dashboard's rotation with its reuse detection: a copied cookie ends the session here too.
      // (A session's person and LINE user never change, so what was compared above is what rotates.)
      const rotated = await sessions.rotate(refreshToken, client);
      // A token LIFF renewed meanwhile is spent by the resume: no ID token opens a session after it was shown.
      await db.transaction().execute((trx) => repo.spendToken(identity.tokenHash, identity.expiresAt.toISOString(), trx));
      return { membership, memberships: all, session: rotated.session, refreshToken: rotated.refreshToken };
    },

    /**
     * Opens a session for a verified LINE user in `shopId` (or the first of their shops). Another shop's
     * id answers like an unlinked one: nothing tells a LINE user which shops exist.
     */
    async signIn(identity: LineIdentity, shopId: string | undefined, client: ClientInfo, kind: SessionKind) {
      const all = await memberships(identity.lineUserId);
      const chosen = shopId ? all.find((m) => m.shopId === shopId) : all[0];
      if (!chosen) throw notLinked();
      const newDevice = await sessions.isNewDevice(chosen.userId, client);
      // One ID token, one session: the token is spent in the transaction that opens the session.
      const started = await db.transaction().execute(async (trx) => {
        if (!(await repo.spendToken(identity.tokenHash, identity.expiresAt.toISOString(), trx))) throw tokenSpent();
        return sessions.start({ id: chosen.userId, shopId: chosen.shopId }, client, trx, kind, identity.lineUserId);
      });
      await audit.record({
        shopId: chosen.shopId,
        actor: `user:${chosen.userId}`,
        action: 'auth.login',
        target: started.session.id,
        ip: client.ip,
        detail: { newDevice, method: 'line', kind, userAgent: client.userAgent?.slice(0, 200) ?? null },
      });
      if (newDevice) {
        const user = await deps.accounts.getUser(chosen.userId);
        await deps.mail.send(
          user.email,
          mailTemplates.newDeviceLogin({
            at: clock.now(),
            userAgent: client.userAgent?.slice(0, 200) || 'unknown',
            ip: client.ip ?? 'unknown',
            securityUrl: deps.securityUrl,
            timeZone: deps.timeZone,
          }),
          chosen.shopId,
        );
      }
      return { membership: chosen, memberships: all, session: started.session, refreshToken: started.refreshToken };
    },
  };
}
export type LineLoginService = ReturnType<typeof createLineLoginService>;
