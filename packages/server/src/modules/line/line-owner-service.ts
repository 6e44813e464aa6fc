import type { Db } from '../../db/db.js';
import { notFound } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { AuditService } from '../audit/audit-service.js';
import type { Shop } from '../shops/shop-service.js';
import type { LineChannelSecrets } from './line-channel-secrets.js';
import type { ConsumeCode, RedeemResult } from './line-group-service.js';
import type { LineRepo } from './line-repo.js';
import type { LineChannelsTable, LineOwnersTable } from './line-tables.js';

export interface LineOwnerView {
  id: string;
  lineChannelId: string;
  lineUserId: string;
  createdAt: string;
}

/**
 * Owner recipients: LINE users linked (by a code typed in 1:1 chat) to hear the shop's owner alerts
 * and daily summary, each through the official account they linked with.
 */
export function createLineOwnerService(deps: { db: Db; repo: LineRepo; audit: AuditService; secrets: LineChannelSecrets }) {
  const { db, repo, audit } = deps;
  const view = (o: LineOwnersTable): LineOwnerView => ({
    id: o.id,
    lineChannelId: o.line_channel_id,
    lineUserId: o.line_user_id,
    createdAt: o.created_at,
  });

  return {
    async list(shopId: string): Promise<LineOwnerView[]> {
      return (await repo.owners.list(shopId)).map(view);
    },

    async linkWithCode(
      channel: LineChannelsTable,
      shop: Shop,
      lineUserId: string,
      consume: ConsumeCode,
      ts: string,
    ): Promise<RedeemResult> {
      if (await repo.owners.inChannel(channel.id, lineUserId)) return { ok: false, reason: 'ALREADY_LINKED' };
      return db.transaction().execute(async (trx): Promise<RedeemResult> => {
        if (!(await consume(trx))) return { ok: false, reason: 'USED' };
        const id = newId('lown');
        await repo.owners.insert({ id, shop_id: shop.id, line_channel_id: channel.id, line_user_id: lineUserId, created_at: ts }, trx);
        await audit.record(
          { shopId: shop.id, actor: `line:${lineUserId}`, action: 'line.owner.link', target: id, detail: { lineChannelId: channel.id } },
          trx,
        );
        return { ok: true, kind: 'owner', shopName: shop.name };
      });
    },

    async unlink(shopId: string, ownerRowId: string, actor: string, ip?: string | null): Promise<void> {
      const o = await repo.owners.ofShop(shopId, ownerRowId);
      if (!o) throw notFound('LINE owner link');
      await db.transaction().execute(async (trx) => {
        await repo.owners.delete(o.id, trx);
        await audit.record(
          { shopId, actor, action: 'line.owner.unlink', target: o.id, detail: { lineChannelId: o.line_channel_id }, ip: ip ?? null },
          trx,
        );
      });
    },

    async unlinkByCommand(lineChannelId: string, lineUserId: string): Promise<boolean> {
      const o = await repo.owners.inChannel(lineChannelId, lineUserId);
      if (!o) return false;
      await db.transaction().execute(async (trx) => {
        await repo.owners.delete(o.id, trx);
        await audit.record(
          { shopId: o.shop_id, actor: `line:${lineUserId}`, action: 'line.owner.unlink', target: o.id, detail: { reason: 'chat command' } },
          trx,
        );
      });
      return true;
    },

    /**
     * A team member was removed: the owner recipients linked with their codes go too. Until 2026-11-27 a
     * staff member's code typed in a 1:1 chat linked the typist as a recipient of the owner's alerts and
     * daily money summary (a staff code links groups only now); the link outlived the person's place on
     * the team. Groups they linked stay: those are the shop's, not the person's. A code cannot say who
     * typed it: had the owner typed a staff member's code in their own chat, that link goes too, and the
     * owner links again with a code of their own. In the removal's transaction.
     */
    async unlinkMadeBy(shopId: string, memberId: string, actor: string, trx: Db): Promise<void> {
      for (const o of await repo.owners.linkedWithCodesOf(shopId, `user:${memberId}`, trx)) {
        await repo.owners.delete(o.id, trx);
        await audit.record(
          {
            shopId,
            actor,
            action: 'line.owner.unlink',
            target: o.id,
            detail: { lineChannelId: o.line_channel_id, reason: 'team member removed', memberId },
          },
          trx,
        );
      }
    },

    /** Where owner alerts go: every linked owner user, with the token of the channel they linked through. */
    async targets(shopId: string): Promise<Array<{ to: string; token: string; lineChannelId: string }>> {
      const rows = await repo.owners.targets(shopId);
      return rows.map((r) => ({ to: r.to, token: deps.secrets.openToken(r.lineChannelId, r.tokenSealed), lineChannelId: r.lineChannelId }));
    },
  };
}
export type LineOwnerService = ReturnType<typeof createLineOwnerService>;
