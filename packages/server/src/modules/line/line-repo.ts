import { sql } from 'kysely';
import type { Db } from '../../db/db.js';
import type { LineChannelsTable, LineGroupsTable, LineLinkCodesTable, LineOwnersTable } from './line-tables.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';

/**
 * Data access of the linking tables: `line_channels`, `line_groups`, `line_link_codes`, `line_owners`
 * (the delivery tables `line_events`, `line_push_usage`, `line_notices` are line-delivery-repo.ts's).
 * Only SQL lives here; rules (plan limits, audit, sealing) live in the services. Every write that is
 * part of a larger unit takes the transaction (`trx`) it runs in.
 */
export function createLineRepo(db: Db) {
  const channels = {
    /** The shop's channel, active or not (a channel id of another shop answers null). */
    ofShop(shopId: string, lineChannelId: string): Promise<LineChannelsTable | undefined> {
      return db.selectFrom('line_channels').selectAll().where('id', '=', lineChannelId).where('shop_id', '=', shopId).executeTakeFirst();
    },
    byChannelId(channelId: string): Promise<LineChannelsTable | undefined> {
      return db.selectFrom('line_channels').selectAll().where('channel_id', '=', channelId).executeTakeFirst();
    },
    activeById(lineChannelId: string): Promise<LineChannelsTable | undefined> {
      return db.selectFrom('line_channels').selectAll().where('id', '=', lineChannelId).where('status', '=', 'active').executeTakeFirst();
    },
    activeByWebhookKey(key: string): Promise<LineChannelsTable | undefined> {
      return db.selectFrom('line_channels').selectAll().where('webhook_key', '=', key).where('status', '=', 'active').executeTakeFirst();
    },
    listActive(shopId: string): Promise<LineChannelsTable[]> {
      return db
        .selectFrom('line_channels')
        .selectAll()
        .where('shop_id', '=', shopId)
        .where('status', '=', 'active')
        .orderBy('created_at')
        .execute();
    },
    async countActive(shopId: string, trx: Db = db): Promise<number> {
      const r = await trx
        .selectFrom('line_channels')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('shop_id', '=', shopId)
        .where('status', '=', 'active')
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async insert(row: LineChannelsTable, trx: Db): Promise<void> {
      await trx.insertInto('line_channels').values(row).execute();
    },
    async update(row: LineChannelsTable, trx: Db): Promise<void> {
      const { id, ...rest } = row;
      await trx.updateTable('line_channels').set(rest).where('id', '=', id).execute();
    },
    async markUnlinked(lineChannelId: string, ts: string, trx: Db): Promise<void> {
      await trx.updateTable('line_channels').set({ status: 'unlinked', updated_at: ts }).where('id', '=', lineChannelId).execute();
    },
    /**
     * The group and owner links other shops made through this channel row (unlinked with it, kept as
     * their history): gone when another shop takes the row over, so none of them is reused for the new
     * shop (a group's row and silence setting) or keeps the new shop's erasure from deleting the row.
     */
    async deleteLinksOfOtherShops(lineChannelId: string, shopId: string, trx: Db): Promise<void> {
      for (const table of ['line_owners', 'line_groups'] as const) {
        await trx.deleteFrom(table).where('line_channel_id', '=', lineChannelId).where('shop_id', '<>', shopId).execute();
      }
    },
    /** The bot's user id learnt from a webhook's `destination`; never overwrites a known one. */
    async setBotUserIdIfUnknown(lineChannelId: string, botUserId: string): Promise<void> {
      await db
        .updateTable('line_channels')
        .set({ bot_user_id: botUserId })
        .where('id', '=', lineChannelId)
        .where('bot_user_id', 'is', null)
        .execute();
    },
    sealedValues(): Promise<Array<Pick<LineChannelsTable, 'id' | 'secret_sealed' | 'token_sealed'>>> {
      return db.selectFrom('line_channels').select(['id', 'secret_sealed', 'token_sealed']).execute();
    },
    /** Guarded by the old sealed secret: a channel re-linked meanwhile keeps its new values. */
    async reseal(lineChannelId: string, oldSecretSealed: string, sealed: Pick<LineChannelsTable, 'secret_sealed' | 'token_sealed'>) {
      await db
        .updateTable('line_channels')
        .set(sealed)
        .where('id', '=', lineChannelId)
        .where('secret_sealed', '=', oldSecretSealed)
        .execute();
    },
  };

  const groups = {
    /** The group row of a chat in a channel, linked or not. */
    inChannel(lineChannelId: string, groupId: string): Promise<LineGroupsTable | undefined> {
      return db
        .selectFrom('line_groups')
        .selectAll()
        .where('line_channel_id', '=', lineChannelId)
        .where('group_id', '=', groupId)
        .executeTakeFirst();
    },
    /** One row per chat and channel (unique index), so the linked one is that row when active. */
    async activeInChannel(lineChannelId: string, groupId: string): Promise<LineGroupsTable | undefined> {
      const g = await groups.inChannel(lineChannelId, groupId);
      return g?.status === 'active' ? g : undefined;
    },
    ofShop(shopId: string, groupRowId: string): Promise<LineGroupsTable | undefined> {
      return db.selectFrom('line_groups').selectAll().where('id', '=', groupRowId).where('shop_id', '=', shopId).executeTakeFirst();
    },
    listActive(shopId: string): Promise<LineGroupsTable[]> {
      return db
        .selectFrom('line_groups')
        .selectAll()
        .where('shop_id', '=', shopId)
        .where('status', '=', 'active')
        .orderBy('created_at')
        .execute();
    },
    activeOfChannel(lineChannelId: string, trx: Db): Promise<LineGroupsTable[]> {
      return trx
        .selectFrom('line_groups')
        .selectAll()
        .where('line_channel_id', '=', lineChannelId)
        .where('status', '=', 'active')
        .execute();
    },
    async countActive(shopId: string, trx: Db): Promise<number> {
      const r = await trx
        .selectFrom('line_groups')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('shop_id', '=', shopId)
        .where('status', '=', 'active')
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    /**
     * `leftAt`: a leave LINE stamped then, which unlinks only when no later join or link is known (the
     * condition sits in the update, so a join handled at the same moment cannot slip between). True when unlinked.
     */
    async markUnlinked(groupRowId: string, ts: string, trx: Db, leftAt?: string): Promise<boolean> {
      let q = trx
        .updateTable('line_groups')
        .set({ status: 'unlinked', updated_at: ts })
        .where('id', '=', groupRowId)
        .where('status', '=', 'active');
      if (leftAt !== undefined) q = q.where((eb) => eb.or([eb('joined_at', 'is', null), eb('joined_at', '<=', leftAt)]));
      const r = await q.executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async relink(groupRowId: string, shopId: string, linkedBy: string | null, ts: string, joinedAt: string, trx: Db): Promise<void> {
      await trx
        .updateTable('line_groups')
        .set({ status: 'active', shop_id: shopId, linked_by: linkedBy, updated_at: ts, joined_at: joinedAt })
        .where('id', '=', groupRowId)
        .execute();
    },
    /** A join LINE stamped `at` in a linked group: kept when newer than the one known (events may come out of order). */
    async markJoined(groupRowId: string, at: string): Promise<void> {
      await db
        .updateTable('line_groups')
        .set({ joined_at: at })
        .where('id', '=', groupRowId)
        .where('status', '=', 'active')
        .where((eb) => eb.or([eb('joined_at', 'is', null), eb('joined_at', '<', at)]))
        .execute();
    },
    async insert(row: LineGroupsTable, trx: Db): Promise<void> {
      await trx.insertInto('line_groups').values(row).execute();
    },
    async setSilent(groupRowId: string, silentNonSlip: number | null, ts: string): Promise<void> {
      await db.updateTable('line_groups').set({ silent_non_slip: silentNonSlip, updated_at: ts }).where('id', '=', groupRowId).execute();
    },
  };

  const linkCodes = {
    async insert(row: LineLinkCodesTable): Promise<void> {
      await db.insertInto('line_link_codes').values(row).execute();
    },
    byHash(codeHash: string): Promise<LineLinkCodesTable | undefined> {
      return db.selectFrom('line_link_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
    },
    /**
     * Retention: codes that expired before `cutoff`, at most `limit`. A code used to link an owner
     * recipient (`used_for` 'owner:<LINE user>') stays while that recipient is linked in the shop:
     * removing the code's maker from the team unlinks the recipients they linked (owners.linkedWithCodesOf).
     */
    async deleteExpiredBefore(cutoff: string, limit: number): Promise<number> {
      const r = await db
        .deleteFrom('line_link_codes')
        .where('code_hash', 'in', (eb) =>
          eb
            .selectFrom('line_link_codes as c')
            .select('c.code_hash')
            .where('c.expires_at', '<', cutoff)
            .where((w) =>
              w.or([
                w('c.used_for', 'is', null),
                w('c.used_for', 'not like', 'owner:%'),
                w.not(
                  w.exists(
                    w
                      .selectFrom('line_owners as o')
                      .select('o.id')
                      .whereRef('o.shop_id', '=', 'c.shop_id')
                      .where(sql<boolean>`'owner:' || o.line_user_id = c.used_for`),
                  ),
                ),
              ]),
            )
            .orderBy('c.expires_at')
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Conditional: of two redemptions at once exactly one gets true. */
    async consume(codeHash: string, ts: string, usedFor: string, trx: Db): Promise<boolean> {
      const r = await trx
        .updateTable('line_link_codes')
        .set({ used_at: ts, used_for: usedFor })
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', ts)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
  };

  const owners = {
    inChannel(lineChannelId: string, lineUserId: string): Promise<LineOwnersTable | undefined> {
      return db
        .selectFrom('line_owners')
        .selectAll()
        .where('line_channel_id', '=', lineChannelId)
        .where('line_user_id', '=', lineUserId)
        .executeTakeFirst();
    },
    ofShop(shopId: string, ownerRowId: string): Promise<LineOwnersTable | undefined> {
      return db.selectFrom('line_owners').selectAll().where('id', '=', ownerRowId).where('shop_id', '=', shopId).executeTakeFirst();
    },
    list(shopId: string): Promise<LineOwnersTable[]> {
      return db.selectFrom('line_owners').selectAll().where('shop_id', '=', shopId).orderBy('created_at').execute();
    },
    async insert(row: LineOwnersTable, trx: Db): Promise<void> {
      await trx.insertInto('line_owners').values(row).execute();
    },
    async delete(ownerRowId: string, trx: Db): Promise<void> {
      await trx.deleteFrom('line_owners').where('id', '=', ownerRowId).execute();
    },
    /** The shop's owner recipients linked with a code this actor made (`used_for` 'owner:<LINE user>'). */
    async linkedWithCodesOf(shopId: string, createdBy: string, trx: Db): Promise<LineOwnersTable[]> {
      const codes = await trx
        .selectFrom('line_link_codes')
        .select('used_for')
        .where('shop_id', '=', shopId)
        .where('created_by', '=', createdBy)
        .where('used_for', 'like', 'owner:%')
        .execute();
      const users = codes.map((c) => c.used_for!.slice('owner:'.length));
      if (users.length === 0) return [];
      return trx.selectFrom('line_owners').selectAll().where('shop_id', '=', shopId).where('line_user_id', 'in', users).execute();
    },
    async deleteOfChannel(lineChannelId: string, trx: Db): Promise<void> {
      await trx.deleteFrom('line_owners').where('line_channel_id', '=', lineChannelId).execute();
    },
    /** Linked owner users of the shop with the sealed token of the (active) channel each linked through. */
    targets(shopId: string): Promise<Array<{ to: string; lineChannelId: string; tokenSealed: string }>> {
      return db
        .selectFrom('line_owners')
        .innerJoin('line_channels', 'line_channels.id', 'line_owners.line_channel_id')
        .select(['line_owners.line_user_id as to', 'line_channels.id as lineChannelId', 'line_channels.token_sealed as tokenSealed'])
        .where('line_owners.shop_id', '=', shopId)
        .where('line_channels.status', '=', 'active')
        .where('line_channels.shop_id', '=', shopId)
        .execute();
    },
  };

  return { channels, groups, linkCodes, owners };
}
export type LineRepo = ReturnType<typeof createLineRepo>;

/** Purge of an erased shop (housekeeping, composed in container.ts): this module's rows of the shop. */
export const purgeLineLinksOfShop: ShopPurge = (trx, shopId) =>
  deleteShopRows(trx, shopId, ['line_owners', 'line_link_codes', 'line_groups', 'line_channels']);
