import { createHash, randomInt } from 'node:crypto';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { AuditService } from '../audit/audit-service.js';
import type { ShopService } from '../shops/shop-service.js';
import type { LineGroupService, RedeemResult } from './line-group-service.js';
import type { LineOwnerService } from './line-owner-service.js';
import type { LineRepo } from './line-repo.js';
import type { LineChannelsTable } from './line-tables.js';

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // no 0/O, 1/I
/** A code as typed: 8 characters from the alphabet, optionally split by a dash or space. */
export const LINK_CODE_PATTERN = /^[A-Za-z0-9]{4}[- ]?[A-Za-z0-9]{4}$/;
/**
 * A text that could be one of our codes as the dashboard shows it: `XXXX-XXXX` from the code alphabet
 * (so never 0, O, 1 or I) with a letter in it. Only such a text gets the "invalid code" answer: an order
 * number of the same shape ("SO24-0001") typed by a customer in 1:1, or by staff in a group, was told to
 * check the code in the dashboard.
 */
export const looksLikeLinkCode = (t: string) => /^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/i.test(t) && /[A-Z]/i.test(t);
const normalizeCode = (s: string) => s.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
const hashCode = (code: string) =>
  createHash('sha256')
    .update(`line-link:${normalizeCode(code)}`)
    .digest('hex');

/**
 * One-time link codes (stored as SHA-256 only): typed in a group a code links the group, typed in a
 * 1:1 chat it links that LINE user as an owner recipient.
 */
/**
 * Link codes are deleted this long after they expired (`line.prune-link-codes`, hourly): past its expiry a
 * code links nothing, and a day still tells "used" from "unknown" to someone retyping an old code. The
 * creation and the link are in the audit log. A code that linked an owner recipient stays while that
 * recipient is linked (see `linkCodes.deleteExpiredBefore`).
 */
export const LINK_CODE_RETENTION_DAYS = 1;

export function createLineLinkCodeService(deps: {
  repo: LineRepo;
  clock: Clock;
  audit: AuditService;
  shops: Pick<ShopService, 'get'>;
  groups: Pick<LineGroupService, 'linkWithCode'>;
  owners: Pick<LineOwnerService, 'linkWithCode'>;
  /** LINE_LINK_CODE_TTL_MINUTES */
  ttlMinutes: number;
  /** A dashboard person's role now (accounts); null for a removed person. */
  roleOf: (userId: string) => Promise<'owner' | 'staff' | null>;
}) {
  const { repo, clock, audit, shops } = deps;

  return {
    /** Retention (`line.prune-link-codes`, hourly): codes expired more than LINK_CODE_RETENTION_DAYS ago, in bounded batches. */
    async prune(renew?: () => Promise<void>, olderThanDays = LINK_CODE_RETENTION_DAYS): Promise<number> {
      const cutoff = new Date(clock.now().getTime() - olderThanDays * 86_400_000).toISOString();
      return deleteInBatches((limit) => repo.linkCodes.deleteExpiredBefore(cutoff, limit), renew);
    },

    /** A one-time code the owner types into a group (links the group) or a 1:1 chat (links their LINE user). */
    async create(shopId: string, actor: string): Promise<{ code: string; expiresAt: string }> {
      await shops.get(shopId);
      let raw = '';
      for (let i = 0; i < 8; i++) raw += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
      const code = `${raw.slice(0, 4)}-${raw.slice(4)}`;
      const t = clock.now();
      const expiresAt = new Date(t.getTime() + deps.ttlMinutes * 60_000).toISOString();
      await repo.linkCodes.insert({
        code_hash: hashCode(code),
        shop_id: shopId,
        created_by: actor,
        expires_at: expiresAt,
        used_at: null,
        used_for: null,
        created_at: t.toISOString(),
      });
      await audit.record({ shopId, actor, action: 'line.link_code.create', target: null, detail: { expiresAt } });
      return { code, expiresAt };
    },

    /**
     * Redeems a code typed in a chat of `channel`. The code must belong to the channel's shop; it is
     * consumed by a conditional update, so two people typing it at once link one thing.
     */
    async redeem(
      channel: LineChannelsTable,
      code: string,
      target: { kind: 'group'; groupId: string; userId: string | null; at?: number } | { kind: 'owner'; userId: string },
    ): Promise<RedeemResult> {
      const row = await repo.linkCodes.byHash(hashCode(code));
      // A code of another shop looks exactly like an unknown one: nothing about other shops leaks.
      if (!row || row.shop_id !== channel.shop_id) return { ok: false, reason: 'INVALID' };
      if (row.used_at) return { ok: false, reason: 'USED' };
      const ts = clock.now().toISOString();
      if (row.expires_at <= ts) return { ok: false, reason: 'EXPIRED' };
      // The maker's role now, not when the code was made: a person removed from the team (role null) lost
      // their codes with their sessions, or a code noted before the removal linked a group of their
      // choosing to the shop for up to the code's TTL. Answered like an unknown code.
      const role = row.created_by.startsWith('user:') ? await deps.roleOf(row.created_by.slice(5)) : 'owner';
      if (role === null) return { ok: false, reason: 'INVALID' };
      // Typed in a 1:1 chat a code makes the typist a recipient of the owner's alerts and daily money
      // summary: only a code the owner (or the operator, CLI) made does that. A staff member's code links
      // groups only, and stays usable for one.
      if (target.kind === 'owner' && role !== 'owner') return { ok: false, reason: 'NOT_OWNER_CODE' };
      const shop = await shops.get(channel.shop_id);
      const consumeFor = (usedFor: string) => (trx: Db) => repo.linkCodes.consume(row.code_hash, ts, usedFor, trx);
      if (target.kind === 'group') {
        const { groupId, userId, at } = target;
        return deps.groups.linkWithCode(channel, shop, { groupId, userId, at }, consumeFor(`group:${groupId}`), ts);
      }
      return deps.owners.linkWithCode(channel, shop, target.userId, consumeFor(`owner:${target.userId}`), ts);
    },
  };
}
export type LineLinkCodeService = ReturnType<typeof createLineLinkCodeService>;
