import type { Db } from '../../db/db.js';
import { notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AuditService } from '../audit/audit-service.js';
import type { PlanService } from '../plans/plan-service.js';
import { lockShopRow, type Shop } from '../shops/shop-service.js';
import type { LineRepo } from './line-repo.js';
import type { LineChannelsTable, LineGroupsTable } from './line-tables.js';

/** LINE's event time (ms) as stored; null when the event carried none (sanitised to 0). */
const lineTime = (at: number | undefined): string | null => (at && Number.isFinite(at) && at > 0 ? new Date(at).toISOString() : null);

export interface LineGroupView {
  id: string;
  lineChannelId: string;
  groupId: string;
  linkedBy: string | null;
  silentNonSlip: boolean;
  status: string;
  createdAt: string;
}

/** What redeeming a link code answers in the chat (line-link-code-service.ts). */
export type RedeemResult =
  | { ok: true; kind: 'group' | 'owner'; shopName: string }
  | { ok: false; reason: 'INVALID' | 'EXPIRED' | 'USED' | 'GROUP_LIMIT' | 'ALREADY_LINKED' | 'NOT_OWNER_CODE'; limit?: number };

/** Consumes the link code inside the linking transaction; false when another redemption took it first. */
export type ConsumeCode = (trx: Db) => Promise<boolean>;

/**
 * Group chats linked to a shop: linking by code (within the plan's group limit), unlinking (dashboard,
 * the `unlink` chat command, the bot leaving), the per-group silence setting. Every link and unlink is
 * an audit-log security event.
 */
export function createLineGroupService(deps: {
  db: Db;
  repo: LineRepo;
  clock: Clock;
  audit: AuditService;
  plans: PlanService;
  /** LINE_GROUP_SILENT_NON_SLIP: what a group without its own setting does. */
  silentDefault: boolean;
}) {
  const { db, repo, clock, audit } = deps;
  const now = () => clock.now().toISOString();

  const view = (r: LineGroupsTable): LineGroupView => ({
    id: r.id,
    lineChannelId: r.line_channel_id,
    groupId: r.group_id,
    linkedBy: r.linked_by,
    silentNonSlip: r.silent_non_slip === null ? deps.silentDefault : !!r.silent_non_slip,
    status: r.status,
    createdAt: r.created_at,
  });

  async function unlinkRow(g: LineGroupsTable, actor: string, reason: string, trx: Db, ip?: string | null, leftAt?: string) {
    if (!(await repo.groups.markUnlinked(g.id, now(), trx, leftAt)) && leftAt !== undefined) return;
    await audit.record(
      {
        shopId: g.shop_id,
        actor,
        action: 'line.group.unlink',
        target: g.id,
        detail: { groupId: g.group_id, reason },
        ...(ip === undefined ? {} : { ip }),
      },
      trx,
    );
  }

  return {
    view,

    async listActive(shopId: string): Promise<LineGroupView[]> {
      return (await repo.groups.listActive(shopId)).map(view);
    },

    async active(lineChannelId: string, groupId: string): Promise<(LineGroupView & { row: LineGroupsTable }) | null> {
      const g = await repo.groups.activeInChannel(lineChannelId, groupId);
      return g ? { ...view(g), row: g } : null;
    },

    /**
     * Links the group a code was typed in. The plan's group limit is checked before the code is consumed
     * (a refused code stays usable) and counted under the shop's row lock (`lockShopRow`) in the
     * transaction that consumes it, so two codes redeemed at once cannot both pass the limit.
     */
    async linkWithCode(
      channel: LineChannelsTable,
      shop: Shop,
      target: { groupId: string; userId: string | null; at?: number },
      consume: ConsumeCode,
      ts: string,
    ): Promise<RedeemResult> {
      // The code was typed in the group, so the bot was in it then: a leave LINE stamped earlier is stale.
      const joinedAt = lineTime(target.at) ?? ts;
      const g = await repo.groups.inChannel(channel.id, target.groupId);
      if (g?.status === 'active') return { ok: false, reason: 'ALREADY_LINKED' };
      const plan = await deps.plans.get(shop.planCode);
      return db.transaction().execute(async (trx): Promise<RedeemResult> => {
        await lockShopRow(trx, shop.id);
        if ((await repo.groups.countActive(shop.id, trx)) >= plan.groups) return { ok: false, reason: 'GROUP_LIMIT', limit: plan.groups };
        if (!(await consume(trx))) return { ok: false, reason: 'USED' };
        const id = g?.id ?? newId('lgr');
        if (g) {
          await repo.groups.relink(g.id, shop.id, target.userId, ts, joinedAt, trx);
        } else {
          await repo.groups.insert(
            {
              id,
              shop_id: shop.id,
              line_channel_id: channel.id,
              group_id: target.groupId,
              linked_by: target.userId,
              silent_non_slip: null,
              status: 'active',
              created_at: ts,
              updated_at: ts,
              joined_at: joinedAt,
            },
            trx,
          );
        }
        await audit.record(
          {
            shopId: shop.id,
            actor: `line:${target.userId ?? 'unknown'}`,
            action: 'line.group.link',
            target: id,
            detail: { groupId: target.groupId, lineChannelId: channel.id },
          },
          trx,
        );
        return { ok: true, kind: 'group', shopName: shop.name };
      });
    },

    /** Inside the channel's unlink: its groups go with it. */
    async unlinkAllOfChannel(lineChannelId: string, actor: string, trx: Db): Promise<void> {
      for (const g of await repo.groups.activeOfChannel(lineChannelId, trx)) await unlinkRow(g, actor, 'channel unlinked', trx);
    },

    /** The "unlink" command typed in a group: only the person who linked it may use it. */
    async unlinkByCommand(
      lineChannelId: string,
      groupId: string,
      userId: string | null,
    ): Promise<'UNLINKED' | 'NOT_LINKED' | 'NOT_LINKER'> {
      const g = await repo.groups.activeInChannel(lineChannelId, groupId);
      if (!g) return 'NOT_LINKED';
      if (!userId || g.linked_by !== userId) return 'NOT_LINKER';
      await db.transaction().execute((trx) => unlinkRow(g, `line:${userId}`, 'chat command', trx));
      return 'UNLINKED';
    },

    /** The bot (re)joined a group (LINE's `join`, stamped `at`): a leave stamped before it no longer unlinks it. */
    async joined(lineChannelId: string, groupId: string, at: number): Promise<void> {
      const g = await repo.groups.activeInChannel(lineChannelId, groupId);
      const t = lineTime(at);
      if (g && t) await repo.groups.markJoined(g.id, t);
    },

    /**
     * The bot left or was removed from the group (LINE's `leave`, stamped `at`). LINE redelivers an event
     * whose delivery failed after newer ones: a leave older than the group's last join or link is stale
     * (the bot was added back), and unlinking then left a group silent that staff were told was linked.
     */
    async left(lineChannelId: string, groupId: string, at?: number): Promise<void> {
      const g = await repo.groups.activeInChannel(lineChannelId, groupId);
      const t = lineTime(at);
      if (g) await db.transaction().execute((trx) => unlinkRow(g, 'system', 'bot left the group', trx, undefined, t ?? undefined));
    },

    async unlink(shopId: string, groupRowId: string, actor: string, ip?: string | null): Promise<void> {
      const g = await repo.groups.ofShop(shopId, groupRowId);
      if (!g) throw notFound('LINE group');
      if (g.status !== 'active') return;
      await db.transaction().execute((trx) => unlinkRow(g, actor, 'dashboard', trx, ip ?? null));
    },

    /** null = follow the configuration default. */
    async setSilent(shopId: string, groupRowId: string, silent: boolean | null, actor: string): Promise<LineGroupView> {
      const g = await repo.groups.ofShop(shopId, groupRowId);
      if (!g) throw notFound('LINE group');
      const value = silent === null ? null : silent ? 1 : 0;
      await repo.groups.setSilent(g.id, value, now());
      await audit.record({ shopId, actor, action: 'line.group.settings', target: g.id, detail: { silentNonSlip: silent } });
      return view({ ...g, silent_non_slip: value });
    },
  };
}
export type LineGroupService = ReturnType<typeof createLineGroupService>;
