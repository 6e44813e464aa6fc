import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/db.js';
import type { UsersTable } from '../../db/db-schema.js';
import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AuditService } from '../audit/audit-service.js';
import type { MailService } from '../mail/mail-service.js';
import { mailTemplates } from '../mail/mail-templates.js';
import type { PlanService } from '../plans/plan-service.js';
import type { Shop, ShopService } from '../shops/shop-service.js';
import { normaliseEmail, validatePassword, type PasswordHasher } from './password-hasher.js';
import { sha256, type ClientInfo, type SessionService, type SessionView } from './session-service.js';
import { createAccountsRepo } from './accounts-repo.js';
import { enqueueOutbox } from '../../outbox/outbox-repo.js';
import { PASSWORD_RESET_JOB } from './password-reset-job.js';
import { deleteInBatches } from '../../db/batched-delete.js';

export const RESET_TTL_MIN = 60;
/**
 * Reset links (used or not) are deleted this long after they expired (`accounts.prune-resets`, hourly):
 * past its expiry a link opens nothing, and a day still lets support see why a link someone reports
 * failed (expired, or already used). The request itself is in the audit log (`auth.password_reset_request`).
 */
export const RESET_RETENTION_DAYS = 1;

export interface User {
  id: string;
  shopId: string;
  email: string;
  language: 'th' | 'en';
  role: 'owner' | 'staff';
  createdAt: string;
}

const userFromRow = (r: UsersTable): User => ({
  id: r.id,
  shopId: r.shop_id,
  email: r.email,
  language: r.language === 'en' ? 'en' : 'th',
  role: r.role === 'staff' ? 'staff' : 'owner',
  createdAt: r.created_at,
});

export interface LoginResult {
  user: User;
  shop: Shop;
  session: SessionView;
  refreshToken: string;
}

export interface AccountDeps {
  db: Db;
  clock: Clock;
  audit: AuditService;
  shops: ShopService;
  plans: PlanService;
  sessions: SessionService;
  mail: MailService;
  hasher: PasswordHasher;
  publicUrl: string;
  timeZone: string;
}

const invalidCredentials = () => new AppError('INVALID_CREDENTIALS', 401, 'E-mail or password is wrong');

export function createAccountService(deps: AccountDeps) {
  const { db, clock, audit, shops, plans, sessions, mail, hasher } = deps;
  const base = deps.publicUrl.replace(/\/+$/, '');
  const actorOf = (userId: string) => `user:${userId}`;
  const repo = createAccountsRepo(db);
  const activeUserByEmail = (email: string) => repo.activeUserByEmail(email);

  async function getUser(id: string): Promise<User> {
    const row = await repo.activeUserById(id);
    if (!row) throw notFound('User');
    return userFromRow(row);
  }

  return {
    getUser,

    /** Retention (`accounts.prune-resets`, hourly): reset links expired more than RESET_RETENTION_DAYS ago, in bounded batches. */
    async pruneResets(renew?: () => Promise<void>, olderThanDays = RESET_RETENTION_DAYS): Promise<number> {
      const cutoff = new Date(clock.now().getTime() - olderThanDays * 86_400_000).toISOString();
      return deleteInBatches((limit) => repo.deleteResetsExpiredBefore(cutoff, limit), renew);
    },

    /** The shop starts on TRIAL whatever card was chosen; the card is remembered as chosenPlanCode. */
    async signup(
      input: { email: string; password: string; shopName: string; planCode: string; language?: 'th' | 'en' },
      client: ClientInfo,
    ): Promise<LoginResult> {
      const email = normaliseEmail(input.email);
      const password = validatePassword(input.password);
      const chosen = await plans.get(input.planCode); // 400 UNKNOWN_PLAN before any work
      if (await activeUserByEmail(email))
        throw new AppError('EMAIL_TAKEN', 409, 'An account with this e-mail already exists; sign in or reset the password');
      const passwordHash = await hasher.hash(password);
      const userId = newId('usr');
      const now = clock.now().toISOString();
      const language = input.language ?? 'th';
      // shops.create reads plans through the main handle, which would wait forever for the one SQLite
      // connection held by a transaction; so the shop is created first and an orphan (lost race for the
      // address) is soft-deleted.
      const shop = await shops.create({ name: input.shopName, chosenPlanCode: chosen.code, language }, actorOf(userId));
      let out: { shop: Shop; session: SessionView; refreshToken: string };
      try {
        out = await db.transaction().execute(async (trx) => {
          await repo.insertUser(
            {
              id: userId,
              shop_id: shop.id,
              email,
              password_hash: passwordHash,
              role: 'owner',
              language,
              created_at: now,
              password_changed_at: null,
              disabled_at: null,
              deleted_at: null,
            },
            trx,
          );
          await audit.record(
            {
              shopId: shop.id,
              actor: actorOf(userId),
              action: 'user.signup',
              target: userId,
              ip: client.ip,
              detail: { chosenPlan: chosen.code },
            },
            trx,
          );
          const s = await sessions.start({ id: userId, shopId: shop.id }, client, trx);
          return { shop, ...s };
        });
      } catch (e) {
        await shops.softDelete(shop.id, now);
        // Two sign-ups racing for one address: the unique index decides.
        if (/unique|duplicate/i.test(String((e as Error).message)))
          throw new AppError('EMAIL_TAKEN', 409, 'An account with this e-mail already exists; sign in or reset the password');
        throw e;
      }
      const trialPlan = await plans.get(out.shop.planCode);
      await mail.send(
        email,
        mailTemplates.welcome({
          shopName: out.shop.name,
          trialEndsAt: out.shop.trialEndsAt,
          chosenPlanName: chosen.code !== trialPlan.code ? chosen.name : null,
          dashboardUrl: base,
          timeZone: deps.timeZone,
        }),
        out.shop.id,
      );
      const user = await getUser(userId);
      return { user, shop: out.shop, session: out.session, refreshToken: out.refreshToken };
    },

    async login(input: { email: string; password: string }, client: ClientInfo): Promise<LoginResult> {
      let email: string;
      try {
        email = normaliseEmail(input.email);
      } catch {
        await hasher.burn(String(input.password));
        throw invalidCredentials();
      }
      const row = await activeUserByEmail(email);
      if (!row) {
        await hasher.burn(String(input.password));
        await audit.record({
          shopId: null,
          actor: 'anonymous',
          action: 'auth.login_failed',
          ip: client.ip,
          detail: { reason: 'unknown_account' },
        });
        throw invalidCredentials();
      }
      if (!(await hasher.verify(row.password_hash, String(input.password)))) {
        await audit.record({
          shopId: row.shop_id,
          actor: 'anonymous',
          action: 'auth.login_failed',
          target: row.id,
          ip: client.ip,
          detail: { reason: 'wrong_password', userAgent: client.userAgent?.slice(0, 200) ?? null },
        });
        throw invalidCredentials();
      }
      if (row.disabled_at) throw new AppError('ACCOUNT_DISABLED', 403, 'This account is disabled; contact support');
      const shop = await shops.get(row.shop_id);
      const newDevice = await sessions.isNewDevice(row.id, client);
      const s = await sessions.start({ id: row.id, shopId: row.shop_id }, client);
      await audit.record({
        shopId: row.shop_id,
        actor: actorOf(row.id),
        action: 'auth.login',
        target: s.session.id,
        ip: client.ip,
        detail: { newDevice, userAgent: client.userAgent?.slice(0, 200) ?? null },
      });
      if (newDevice) {
        await mail.send(
          row.email,
          mailTemplates.newDeviceLogin({
            at: clock.now(),
            userAgent: client.userAgent?.slice(0, 200) || 'unknown',
            ip: client.ip ?? 'unknown',
            securityUrl: `${base}/security`,
            timeZone: deps.timeZone,
          }),
          row.shop_id,
        );
      }
      return { user: userFromRow(row), shop, session: s.session, refreshToken: s.refreshToken };
    },

    /** Keeps the current session; signs out every other one. */
    async changePassword(userId: string, sessionId: string, currentPassword: string, newPassword: string, client: ClientInfo) {
      const row = await repo.activeUserById(userId);
      if (!row) throw notFound('User');
      if (!(await hasher.verify(row.password_hash, currentPassword))) {
        await audit.record({
          shopId: row.shop_id,
          actor: actorOf(userId),
          action: 'auth.password_change_failed',
          target: userId,
          ip: client.ip,
        });
        throw new AppError('WRONG_PASSWORD', 400, 'The current password is wrong');
      }
      const hash = await hasher.hash(validatePassword(newPassword));
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        await repo.setPassword(userId, hash, now.toISOString(), trx);
        // A reset link mailed before the change must not undo it.
        await repo.voidResetsOfUser(userId, now.toISOString(), trx);
        await audit.record(
          { shopId: row.shop_id, actor: actorOf(userId), action: 'auth.password_change', target: userId, ip: client.ip },
          trx,
        );
        await sessions.revokeAll(
          userId,
          { actor: actorOf(userId), shopId: row.shop_id, ip: client.ip, reason: 'password_change', exceptSessionId: sessionId },
          trx,
        );
      });
      await mail.send(
        row.email,
        mailTemplates.passwordChanged({ at: now, timeZone: deps.timeZone, securityUrl: `${base}/login` }),
        row.shop_id,
      );
    },

    /**
     * Same answer and the same work whether or not the address has an account (no account discovery,
     * by content or by time): one outbox row, whatever the address. The worker runs deliverPasswordReset.
     */
    async requestPasswordReset(emailInput: string, client: ClientInfo): Promise<void> {
      let email: string;
      try {
        email = normaliseEmail(emailInput);
      } catch {
        return; // the address's shape is the requester's own input: refusing it tells nothing
      }
      await enqueueOutbox(
        db,
        { kind: PASSWORD_RESET_JOB, payload: { email, ip: client.ip, userAgent: client.userAgent?.slice(0, 200) ?? null } },
        clock.now(),
      );
    },

    /** The worker's half of a reset request: a link for an account, nothing for an unknown address. */
    async deliverPasswordReset(email: string, client: ClientInfo): Promise<void> {
      const row = await activeUserByEmail(email);
      if (!row) return;
      const token = `pr_${randomBytes(32).toString('base64url')}`;
      const now = clock.now();
      await repo.insertReset({
        token_hash: sha256(token),
        user_id: row.id,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + RESET_TTL_MIN * 60_000).toISOString(),
        used_at: null,
      });
      await audit.record({ shopId: row.shop_id, actor: 'anonymous', action: 'auth.password_reset_request', target: row.id, ip: client.ip });
      await mail.send(
        row.email,
        mailTemplates.passwordReset({ link: `${base}/reset-password?token=${token}`, minutes: RESET_TTL_MIN }),
        row.shop_id,
      );
    },

    /** Single use: the conditional update lets exactly one confirm through; every session is signed out. */
    async confirmPasswordReset(token: string, newPassword: string, client: ClientInfo): Promise<void> {
      const bad = () => new AppError('RESET_TOKEN_INVALID', 400, 'This reset link is invalid, used or expired; ask for a new one');
      if (!/^pr_[A-Za-z0-9_-]{40,60}$/.test(token)) throw bad();
      const password = validatePassword(newPassword);
      const now = clock.now().toISOString();
      const rec = await repo.resetByHash(sha256(token));
      if (!rec || rec.used_at || rec.expires_at <= now) throw bad();
      const user = await repo.activeUserById(rec.user_id);
      if (!user) throw bad();
      const hash = await hasher.hash(password);
      await db.transaction().execute(async (trx) => {
        if (!(await repo.useReset(rec.token_hash, now, trx))) throw bad();
        // Other outstanding links for the account die with this one.
        await repo.voidResetsOfUser(user.id, now, trx);
        await repo.setPassword(user.id, hash, now, trx);
        await audit.record(
          { shopId: user.shop_id, actor: actorOf(user.id), action: 'auth.password_reset', target: user.id, ip: client.ip },
          trx,
        );
        await sessions.revokeAll(user.id, { actor: actorOf(user.id), shopId: user.shop_id, ip: client.ip, reason: 'password_reset' }, trx);
      });
      await mail.send(
        user.email,
        mailTemplates.passwordChanged({ at: clock.now(), timeZone: deps.timeZone, securityUrl: `${base}/login` }),
        user.shop_id,
      );
    },

    /** The person's dashboard language (the EN/ไทย switch); the shop's language for LINE and mails is separate. */
    async setLanguage(userId: string, language: 'th' | 'en'): Promise<User> {
      await repo.setLanguage(userId, language);
      return getUser(userId);
    },
    /**
     * Erasure of a shop's people: hidden at once and each address freed (a new sign-up with it is
     * allowed); the rows themselves go at the purge. Each person's own id is in the freed address: e-mail
     * is unique, and a shop with staff has several rows.
     */
    async eraseShopUsers(shopId: string, at: string, trx: Db = db): Promise<void> {
      await repo.eraseUsersOfShop(shopId, at, trx);
    },
    /** The purge of an erased shop: its people's reset links go before the user rows (housekeeping deletes those). */
    async deleteResetsOfShop(shopId: string, trx: Db = db): Promise<void> {
      await repo.deleteResetsOfShop(shopId, trx);
    },
    /** Addresses of the shop's people who may sign in (not removed, not disabled), optionally of one role: owner alerts go to each, daily summaries to owners. */
    async activeEmailsOfShop(shopId: string, only: { role?: User['role'] } = {}): Promise<string[]> {
      return repo.activeEmailsOfShop(shopId, only.role);
    },
    // ---- for the team module (staff seats): people of a shop, always through this service

    /** People of the shop who hold a seat (not removed); inside the caller's transaction for seat counts. */
    async countMembers(shopId: string, trx: Db = db): Promise<number> {
      return repo.countActiveOfShop(shopId, trx);
    },
    /** The shop's people, oldest first. */
    async members(shopId: string): Promise<User[]> {
      return (await repo.activeOfShop(shopId)).map(userFromRow);
    },
    /** A person of this shop (not removed), or null. */
    async memberOf(shopId: string, userId: string): Promise<User | null> {
      const row = await repo.activeMemberOf(shopId, userId);
      return row ? userFromRow(row) : null;
    },
    /** A new staff account (an accepted invite), inside the caller's transaction. */
    async insertStaff(user: { id: string; shopId: string; email: string; passwordHash: string; at: string }, trx: Db = db): Promise<void> {
      await repo.insertUser(
        {
          id: user.id,
          shop_id: user.shopId,
          email: user.email,
          password_hash: user.passwordHash,
          role: 'staff',
          language: 'th',
          created_at: user.at,
          password_changed_at: null,
          disabled_at: null,
          deleted_at: null,
        },
        trx,
      );
    },
    /** Removal: soft delete, the address freed (`removed+<id>@invalid`), outstanding reset links void. */
    async removeMember(userId: string, at: string, trx: Db = db): Promise<void> {
      await repo.removeUser(userId, at, trx);
      await repo.voidResetsOfUser(userId, at, trx);
    },
    /** Active people with this (normalised) address: one per shop at most, since addresses are unique. */
    async findByEmail(email: string): Promise<User[]> {
      return (await repo.activeUsersByEmail(email)).map(userFromRow);
    },
    /** The person's role, or null for a missing or removed person (the owner guard refuses both). */
    async roleOf(userId: string): Promise<User['role'] | null> {
      const role = await repo.roleOf(userId);
      return role === undefined ? null : role === 'staff' ? 'staff' : 'owner';
    },
    /** The people among `userIds` who may sign in (not removed, not disabled); for sign-in with LINE. */
    async activeUsers(userIds: string[]): Promise<User[]> {
      return (await repo.usableUsers(userIds)).map(userFromRow);
    },
    async verifyPassword(userId: string, password: string): Promise<boolean> {
      const passwordHash = await repo.passwordHashOf(userId);
      return passwordHash !== undefined && hasher.verify(passwordHash, password);
    },
  };
}
export type AccountService = ReturnType<typeof createAccountService>;
