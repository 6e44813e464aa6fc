import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/db.js';
import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AuditService } from '../audit/audit-service.js';
import type { MailService } from '../mail/mail-service.js';
import { mailTemplates } from '../mail/mail-templates.js';
import type { PlanService } from '../plans/plan-service.js';
import { lockShopRow, type ShopService } from '../shops/shop-service.js';
import { normaliseEmail, validatePassword, type PasswordHasher } from '../accounts/password-hasher.js';
import { MEMBER_REMOVED_REASON, sha256, type ClientInfo, type SessionService, type SessionView } from '../accounts/session-service.js';
import type { AccountService } from '../accounts/account-service.js';
import { createTeamRepo } from './team-repo.js';

export const INVITE_TTL_DAYS = 7;
const INVITE_TOKEN = /^inv_[A-Za-z0-9_-]{40,60}$/;
export type Role = 'owner' | 'staff';

export interface MemberView {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  lastLoginAt: string | null;
}
export interface InviteView {
  id: string;
  email: string;
  role: 'staff';
  createdAt: string;
  expiresAt: string;
}
export interface TeamView {
  seats: { used: number; limit: number };
  members: MemberView[];
  invites: InviteView[];
}

const actorOf = (userId: string) => `user:${userId}`;
const inviteInvalid = () =>
  new AppError('INVITE_INVALID', 400, 'This invitation link is invalid, used, revoked or expired; ask the shop owner for a new one');
const emailTaken = () => new AppError('EMAIL_TAKEN', 409, 'An account with this e-mail already exists');
const seatLimit = (used: number, limit: number) =>
  new AppError(
    'PLAN_LIMIT_SEATS',
    403,
    `Your plan includes ${limit} seat(s) and ${used} are in use (members plus pending invites); revoke an invite, remove a member or upgrade the plan`,
    { used, limit },
  );

/**
 * Staff seats. A seat is taken by every active user of the shop and every pending invite, so an
 * owner cannot send more invites than the plan allows and then accept them all. Counts happen under
 * the shop row lock (see lockShopRow) so two concurrent invites cannot both take the last seat.
 */
export function createTeamService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  plans: PlanService;
  shops: ShopService;
  sessions: SessionService;
  accounts: Pick<AccountService, 'countMembers' | 'members' | 'memberOf' | 'findByEmail' | 'getUser' | 'insertStaff' | 'removeMember'>;
  mail: MailService;
  hasher: PasswordHasher;
  publicUrl: string;
  /**
   * In the removal's transaction, for what other modules hold of the person (the LINE module: alert
   * links made with their codes). A hook, not a reach into those tables.
   */
  onMemberRemoved?: (shopId: string, memberId: string, actor: string, trx: Db) => Promise<void>;
}) {
  const { db, clock, audit, plans, shops, sessions, accounts, mail, hasher } = deps;
  const invites = createTeamRepo(db);
  const base = deps.publicUrl.replace(/\/+$/, '');

  async function seatsUsed(trx: Db, shopId: string, nowIso: string) {
    return { users: await accounts.countMembers(shopId, trx), invites: await invites.countPending(shopId, nowIso, trx) };
  }

  async function limitOf(shopId: string) {
    const shop = await shops.get(shopId);
    return { shop, limit: (await plans.get(shop.planCode)).seats };
  }

  return {
    async list(shopId: string): Promise<TeamView> {
      const nowIso = clock.now().toISOString();
      const { limit } = await limitOf(shopId);
      const people = await accounts.members(shopId);
      // Last sign-in = newest session start (login, sign-up or accepted invite); no extra column to keep in step.
      const last = await sessions.lastStartsOfShop(shopId);
      const pendingInvites = await invites.listPending(shopId, nowIso);
      return {
        seats: { used: people.length + pendingInvites.length, limit },
        members: people.map((person) => ({
          id: person.id,
          email: person.email,
          role: person.role,
          createdAt: person.createdAt,
          lastLoginAt: last.get(person.id) ?? null,
        })),
        invites: pendingInvites.map((r) => ({
          id: r.id,
          email: r.email,
          role: 'staff' as const,
          createdAt: r.created_at,
          expiresAt: r.expires_at,
        })),
      };
    },

    /** Re-inviting an address with a pending invite replaces it (a resend), so it takes no second seat. */
    async invite(shopId: string, inviterId: string, emailInput: string, client: ClientInfo): Promise<InviteView> {
      const email = normaliseEmail(emailInput);
      if ((await accounts.findByEmail(email)).length) throw emailTaken();
      const { shop, limit } = await limitOf(shopId);
      const inviter = await accounts.getUser(inviterId);
      const token = `inv_${randomBytes(32).toString('base64url')}`;
      const now = clock.now();
      const nowIso = now.toISOString();
      const row = {
        id: newId('inv'),
        shop_id: shopId,
        email,
        role: 'staff',
        token_hash: sha256(token),
        invited_by: inviterId,
        created_at: nowIso,
        expires_at: new Date(now.getTime() + INVITE_TTL_DAYS * 86_400_000).toISOString(),
        used_at: null,
        revoked_at: null,
        accepted_user_id: null,
      };
      await db.transaction().execute(async (trx) => {
        await lockShopRow(trx, shopId);
        const resent = await invites.revokePendingFor(shopId, email, nowIso, trx);
        const used = await seatsUsed(trx, shopId, nowIso);
        if (used.users + used.invites + 1 > limit) throw seatLimit(used.users + used.invites, limit);
        await invites.insert(row, trx);
        await audit.record(
          {
            shopId,
            actor: actorOf(inviterId),
            action: 'team.invite',
            target: row.id,
            ip: client.ip,
            detail: { email, resent },
          },
          trx,
        );
      });
      await mail.send(
        email,
        mailTemplates.teamInvite({
          shopName: shop.name,
          inviterEmail: inviter.email,
          link: `${base}/accept-invite?token=${token}`,
          days: INVITE_TTL_DAYS,
        }),
        shopId,
      );
      return { id: row.id, email, role: 'staff', createdAt: row.created_at, expiresAt: row.expires_at };
    },

    /** 404 for unknown ids, other shops' ids and invites that are no longer pending alike. */
    async revokeInvite(shopId: string, actorId: string, inviteId: string, ip: string | null): Promise<void> {
      const nowIso = clock.now().toISOString();
      if (!(await invites.revoke(shopId, inviteId, nowIso))) throw notFound('Invite');
      await audit.record({ shopId, actor: actorOf(actorId), action: 'team.invite_revoke', target: inviteId, ip });
    },

    /** Soft delete: the address is freed (it may be invited again), every session ends at once. */
    async removeMember(shopId: string, actorId: string, memberId: string, ip: string | null): Promise<void> {
      const row = await accounts.memberOf(shopId, memberId);
      if (!row) throw notFound('Member');
      if (row.role === 'owner') throw new AppError('OWNER_NOT_REMOVABLE', 403, 'The shop owner cannot be removed');
      const nowIso = clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        await accounts.removeMember(row.id, nowIso, trx);
        await sessions.revokeAll(row.id, { actor: actorOf(actorId), shopId, ip, reason: MEMBER_REMOVED_REASON }, trx);
        await deps.onMemberRemoved?.(shopId, row.id, actorOf(actorId), trx);
        await audit.record(
          { shopId, actor: actorOf(actorId), action: 'team.remove', target: row.id, ip, detail: { email: row.email } },
          trx,
        );
      });
    },

    /** Single use under the shop lock: exactly one accept of a token wins; the seat is re-checked (the plan may have shrunk). */
    async accept(
      token: string,
      passwordInput: string,
      client: ClientInfo,
    ): Promise<{ userId: string; shopId: string; session: SessionView; refreshToken: string }> {
      if (!INVITE_TOKEN.test(token)) throw inviteInvalid();
      const password = validatePassword(passwordInput);
      const nowIso = clock.now().toISOString();
      const inv = await invites.byTokenHash(sha256(token));
      if (!inv || inv.used_at || inv.revoked_at || inv.expires_at <= nowIso) throw inviteInvalid();
      let limit: number;
      try {
        ({ limit } = await limitOf(inv.shop_id));
      } catch {
        throw inviteInvalid();
      } // erased shop
      if ((await accounts.findByEmail(inv.email)).length) throw emailTaken();
      const passwordHash = await hasher.hash(password);
      const userId = newId('usr');
      try {
        return await db.transaction().execute(async (trx) => {
          await lockShopRow(trx, inv.shop_id);
          if (!(await invites.markUsed(inv.id, userId, nowIso, trx))) throw inviteInvalid();
          const used = await seatsUsed(trx, inv.shop_id, nowIso); // this invite no longer counts: it is used
          if (used.users + used.invites + 1 > limit) throw seatLimit(used.users + used.invites, limit);
          await accounts.insertStaff({ id: userId, shopId: inv.shop_id, email: inv.email, passwordHash, at: nowIso }, trx);
          await audit.record(
            {
              shopId: inv.shop_id,
              actor: actorOf(userId),
              action: 'team.accept',
              target: inv.id,
              ip: client.ip,
              detail: { invitedBy: inv.invited_by },
            },
            trx,
          );
          const s = await sessions.start({ id: userId, shopId: inv.shop_id }, client, trx);
          return { userId, shopId: inv.shop_id, ...s };
        });
      } catch (e) {
        if (/unique|duplicate/i.test(String((e as Error).message))) throw emailTaken();
        throw e;
      }
    },
  };
}
export type TeamService = ReturnType<typeof createTeamService>;
