import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { Db } from '../../db/db.js';
import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { AuditService } from '../audit/audit-service.js';
import type { PlanService } from '../plans/plan-service.js';
import { lockShopRow, type ShopService } from '../shops/shop-service.js';
import { LineApiError, type LineClient } from './line-client.js';
import type { LineChannelsTable, LineGroupsTable } from './line-tables.js';

/**
 * Linking: official accounts (channel credentials sealed at rest), group chats and owners' LINE users
 * (both through one-time link codes). Secrets go in and never come out of this service except to the
 * LINE client. Every link and unlink is an audit-log security event.
 */
export interface LineChannelView {
  id: string;
  shopId: string;
  channelId: string;
  botName: string | null;
  botUserId: string | null;
  webhookPath: string;
  webhookUrl: string;
  status: string;
  createdAt: string;
}
export interface LineGroupView {
  id: string;
  lineChannelId: string;
  groupId: string;
  linkedBy: string | null;
  silentNonSlip: boolean;
  status: string;
  createdAt: string;
}
export interface LineOwnerView {
  id: string;
  lineChannelId: string;
  lineUserId: string;
  createdAt: string;
}

export type RedeemResult =
  | { ok: true; kind: 'group' | 'owner'; shopName: string }
  | { ok: false; reason: 'INVALID' | 'EXPIRED' | 'USED' | 'GROUP_LIMIT' | 'ALREADY_LINKED'; limit?: number };

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // no 0/O, 1/I
/** A code as typed: 8 characters from the alphabet, optionally split by a dash or space. */
export const LINK_CODE_PATTERN = /^[A-Za-z0-9]{4}[- ]?[A-Za-z0-9]{4}$/;
export const normalizeCode = (s: string) => s.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
const hashCode = (code: string) =>
  createHash('sha256')
    .update(`line-link:${normalizeCode(code)}`)
    .digest('hex');

export interface LineServiceDeps {
  db: Db;
  clock: Clock;
  audit: AuditService;
  plans: PlanService;
  shops: ShopService;
  box: SecretBox;
  client: LineClient;
  publicBaseUrl: string;
  linkCodeTtlMinutes: number;
  groupSilentDefault: boolean;
}

export function createLineService(deps: LineServiceDeps) {
  const { db, clock, audit, plans, shops, box, client } = deps;
  const now = () => clock.now().toISOString();
  const aadSecret = (id: string) => `line-channel:${id}:secret`;
  const aadToken = (id: string) => `line-channel:${id}:token`;

  const channelView = (r: LineChannelsTable): LineChannelView => {
    const webhookPath = `/api/line/webhook/${r.webhook_key}`;
    return {
      id: r.id,
      shopId: r.shop_id,
      channelId: r.channel_id,
      botName: r.bot_name,
      botUserId: r.bot_user_id,
      webhookPath,
      webhookUrl: `${deps.publicBaseUrl.replace(/\/+$/, '')}${webhookPath}`,
      status: r.status,
      createdAt: r.created_at,
    };
  };
  const groupView = (r: LineGroupsTable): LineGroupView => ({
    id: r.id,
    lineChannelId: r.line_channel_id,
    groupId: r.group_id,
    linkedBy: r.linked_by,
    silentNonSlip: r.silent_non_slip === null ? deps.groupSilentDefault : !!r.silent_non_slip,
    status: r.status,
    createdAt: r.created_at,
  });

  async function shopChannel(shopId: string, lineChannelId: string): Promise<LineChannelsTable> {
    const r = await db
      .selectFrom('line_channels')
      .selectAll()
      .where('id', '=', lineChannelId)
      .where('shop_id', '=', shopId)
      .executeTakeFirst();
    if (!r) throw notFound('LINE channel');
    return r;
  }

  async function unlinkGroupRow(g: LineGroupsTable, actor: string, reason: string, trx: Db = db) {
    await trx
      .updateTable('line_groups')
      .set({ status: 'unlinked', updated_at: now() })
      .where('id', '=', g.id)
      .where('status', '=', 'active')
      .execute();
    await audit.record(
      { shopId: g.shop_id, actor, action: 'line.group.unlink', target: g.id, detail: { groupId: g.group_id, reason } },
      trx,
    );
  }

  return {
    channelView,

    async linkChannel(
      shopId: string,
      input: { channelId: string; channelSecret: string; accessToken: string },
      actor: string,
      ip?: string | null,
    ): Promise<LineChannelView> {
      const channelId = String(input.channelId ?? '').trim();
      const secret = String(input.channelSecret ?? '').trim();
      const token = String(input.accessToken ?? '').trim();
      if (!/^\d{5,20}$/.test(channelId)) throw new AppError('VALIDATION_ERROR', 400, 'channelId must be the numeric LINE channel id');
      if (!/^[A-Za-z0-9]{16,128}$/.test(secret))
        throw new AppError('VALIDATION_ERROR', 400, 'channelSecret does not look like a LINE channel secret');
      if (token.length < 20 || token.length > 2000 || /\s/.test(token))
        throw new AppError('VALIDATION_ERROR', 400, 'accessToken does not look like a LINE channel access token');
      const shop = await shops.get(shopId);
      const plan = await plans.get(shop.planCode);

      // Ask LINE who the bot is: proves the token works, and gives the bot's user id (webhook `destination`).
      let bot: { userId?: string; displayName?: string } = {};
      try {
        bot = await client.botInfo(token);
      } catch (e) {
        if (e instanceof LineApiError && (e.status === 401 || e.status === 403)) {
          throw new AppError('LINE_TOKEN_INVALID', 400, 'LINE rejected the channel access token');
        }
        // LINE unreachable: link anyway; the dashboard's webhook check tells the owner if something is off.
      }

      const existing = await db.selectFrom('line_channels').selectAll().where('channel_id', '=', channelId).executeTakeFirst();
      if (existing && existing.status === 'active' && existing.shop_id !== shopId) {
        throw new AppError('LINE_CHANNEL_IN_USE', 409, 'This LINE channel is linked to another shop');
      }
      const isUpdate = !!existing && existing.status === 'active';
      if (!isUpdate) {
        const active = await db
          .selectFrom('line_channels')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('shop_id', '=', shopId)
          .where('status', '=', 'active')
          .executeTakeFirstOrThrow();
        if (Number(active.n) >= plan.messagingAccounts) {
          throw new AppError(
            'PLAN_LIMIT_MESSAGING_ACCOUNTS',
            403,
            `Your plan allows ${plan.messagingAccounts} LINE official account(s); unlink one or upgrade the plan`,
            { limit: plan.messagingAccounts },
          );
        }
      }
      const id = existing?.id ?? newId('lch');
      const ts = now();
      const row: LineChannelsTable = {
        id,
        shop_id: shopId,
        channel_id: channelId,
        // A re-link by another shop (after an unlink) gets a fresh webhook URL: the old one must stop working.
        webhook_key: isUpdate ? existing!.webhook_key : randomBytes(24).toString('base64url'),
        secret_sealed: box.encrypt(secret, aadSecret(id)),
        token_sealed: box.encrypt(token, aadToken(id)),
        bot_user_id: bot.userId ?? existing?.bot_user_id ?? null,
        bot_name: bot.displayName ?? existing?.bot_name ?? null,
        status: 'active',
        created_at: isUpdate ? existing!.created_at : ts,
        updated_at: ts,
      };
      await db.transaction().execute(async (trx) => {
        if (!isUpdate) {
          // Re-count under the shop's row lock: two links at once must not both pass the plan limit.
          await lockShopRow(trx, shopId);
          const n = await trx
            .selectFrom('line_channels')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('shop_id', '=', shopId)
            .where('status', '=', 'active')
            .executeTakeFirstOrThrow();
          if (Number(n.n) >= plan.messagingAccounts) {
            throw new AppError(
              'PLAN_LIMIT_MESSAGING_ACCOUNTS',
              403,
              `Your plan allows ${plan.messagingAccounts} LINE official account(s); unlink one or upgrade the plan`,
              { limit: plan.messagingAccounts },
            );
          }
        }
        if (existing) {
          const { id: _id, ...rest } = row;
          await trx.updateTable('line_channels').set(rest).where('id', '=', id).execute();
        } else {
          await trx.insertInto('line_channels').values(row).execute();
        }
        await audit.record(
          {
            shopId,
            actor,
            action: isUpdate ? 'line.channel.update' : 'line.channel.link',
            target: id,
            detail: { channelId },
            ip: ip ?? null,
          },
          trx,
        );
      });
      return channelView(row);
    },

    async unlinkChannel(shopId: string, lineChannelId: string, actor: string, ip?: string | null): Promise<LineChannelView> {
      const ch = await shopChannel(shopId, lineChannelId);
      if (ch.status !== 'active') return channelView(ch);
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('line_channels').set({ status: 'unlinked', updated_at: now() }).where('id', '=', ch.id).execute();
        const groups = await trx
          .selectFrom('line_groups')
          .selectAll()
          .where('line_channel_id', '=', ch.id)
          .where('status', '=', 'active')
          .execute();
        for (const g of groups) await unlinkGroupRow(g, actor, 'channel unlinked', trx);
        await trx.deleteFrom('line_owners').where('line_channel_id', '=', ch.id).execute();
        await audit.record(
          { shopId, actor, action: 'line.channel.unlink', target: ch.id, detail: { channelId: ch.channel_id }, ip: ip ?? null },
          trx,
        );
      });
      return channelView({ ...ch, status: 'unlinked' });
    },

    async list(shopId: string): Promise<{ channels: LineChannelView[]; groups: LineGroupView[]; owners: LineOwnerView[] }> {
      const channels = await db
        .selectFrom('line_channels')
        .selectAll()
        .where('shop_id', '=', shopId)
        .where('status', '=', 'active')
        .orderBy('created_at')
        .execute();
      const groups = await db
        .selectFrom('line_groups')
        .selectAll()
        .where('shop_id', '=', shopId)
        .where('status', '=', 'active')
        .orderBy('created_at')
        .execute();
      const owners = await db.selectFrom('line_owners').selectAll().where('shop_id', '=', shopId).orderBy('created_at').execute();
      return {
        channels: channels.map(channelView),
        groups: groups.map(groupView),
        owners: owners.map((o) => ({ id: o.id, lineChannelId: o.line_channel_id, lineUserId: o.line_user_id, createdAt: o.created_at })),
      };
    },

    /** A one-time code the owner types into a group (links the group) or a 1:1 chat (links their LINE user). */
    async createLinkCode(shopId: string, actor: string): Promise<{ code: string; expiresAt: string }> {
      await shops.get(shopId);
      let raw = '';
      for (let i = 0; i < 8; i++) raw += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
      const code = `${raw.slice(0, 4)}-${raw.slice(4)}`;
      const t = clock.now();
      const expiresAt = new Date(t.getTime() + deps.linkCodeTtlMinutes * 60_000).toISOString();
      await db
        .insertInto('line_link_codes')
        .values({
          code_hash: hashCode(code),
          shop_id: shopId,
          created_by: actor,
          expires_at: expiresAt,
          used_at: null,
          used_for: null,
          created_at: t.toISOString(),
        })
        .execute();
      await audit.record({ shopId, actor, action: 'line.link_code.create', target: null, detail: { expiresAt } });
      return { code, expiresAt };
    },

    /**
     * Redeems a code typed in a chat of `channel`. The code must belong to the channel's shop; it is
     * consumed by a conditional update, so two people typing it at once link one thing.
     */
    async redeemCode(
      channel: LineChannelsTable,
      code: string,
      target: { kind: 'group'; groupId: string; userId: string | null } | { kind: 'owner'; userId: string },
    ): Promise<RedeemResult> {
      const row = await db.selectFrom('line_link_codes').selectAll().where('code_hash', '=', hashCode(code)).executeTakeFirst();
      // A code of another shop looks exactly like an unknown one: nothing about other shops leaks.
      if (!row || row.shop_id !== channel.shop_id) return { ok: false, reason: 'INVALID' };
      if (row.used_at) return { ok: false, reason: 'USED' };
      const ts = clock.now().toISOString();
      if (row.expires_at <= ts) return { ok: false, reason: 'EXPIRED' };
      const shop = await shops.get(channel.shop_id);

      if (target.kind === 'group') {
        const g = await db
          .selectFrom('line_groups')
          .selectAll()
          .where('line_channel_id', '=', channel.id)
          .where('group_id', '=', target.groupId)
          .executeTakeFirst();
        if (g?.status === 'active') return { ok: false, reason: 'ALREADY_LINKED' };
        const plan = await plans.get(shop.planCode);
        return db.transaction().execute(async (trx): Promise<RedeemResult> => {
          // Count under the shop's row lock, so two codes redeemed at once cannot both pass the plan limit.
          await lockShopRow(trx, shop.id);
          const active = await trx
            .selectFrom('line_groups')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('shop_id', '=', shop.id)
            .where('status', '=', 'active')
            .executeTakeFirstOrThrow();
          if (Number(active.n) >= plan.groups) return { ok: false, reason: 'GROUP_LIMIT', limit: plan.groups };
          const used = await trx
            .updateTable('line_link_codes')
            .set({ used_at: ts, used_for: `group:${target.groupId}` })
            .where('code_hash', '=', row.code_hash)
            .where('used_at', 'is', null)
            .where('expires_at', '>', ts)
            .executeTakeFirst();
          if (Number(used.numUpdatedRows) !== 1) return { ok: false, reason: 'USED' };
          const id = g?.id ?? newId('lgr');
          if (g) {
            await trx
              .updateTable('line_groups')
              .set({ status: 'active', shop_id: shop.id, linked_by: target.userId, updated_at: ts })
              .where('id', '=', g.id)
              .execute();
          } else {
            await trx
              .insertInto('line_groups')
              .values({
                id,
                shop_id: shop.id,
                line_channel_id: channel.id,
                group_id: target.groupId,
                linked_by: target.userId,
                silent_non_slip: null,
                status: 'active',
                created_at: ts,
                updated_at: ts,
              })
              .execute();
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
      }

      const existing = await db
        .selectFrom('line_owners')
        .select('id')
        .where('line_channel_id', '=', channel.id)
        .where('line_user_id', '=', target.userId)
        .executeTakeFirst();
      if (existing) return { ok: false, reason: 'ALREADY_LINKED' };
      return db.transaction().execute(async (trx): Promise<RedeemResult> => {
        const used = await trx
          .updateTable('line_link_codes')
          .set({ used_at: ts, used_for: `owner:${target.userId}` })
          .where('code_hash', '=', row.code_hash)
          .where('used_at', 'is', null)
          .where('expires_at', '>', ts)
          .executeTakeFirst();
        if (Number(used.numUpdatedRows) !== 1) return { ok: false, reason: 'USED' };
        const id = newId('lown');
        await trx
          .insertInto('line_owners')
          .values({ id, shop_id: shop.id, line_channel_id: channel.id, line_user_id: target.userId, created_at: ts })
          .execute();
        await audit.record(
          { shopId: shop.id, actor: `line:${target.userId}`, action: 'line.owner.link', target: id, detail: { lineChannelId: channel.id } },
          trx,
        );
        return { ok: true, kind: 'owner', shopName: shop.name };
      });
    },

    async activeGroup(lineChannelId: string, groupId: string): Promise<(LineGroupView & { row: LineGroupsTable }) | null> {
      const g = await db
        .selectFrom('line_groups')
        .selectAll()
        .where('line_channel_id', '=', lineChannelId)
        .where('group_id', '=', groupId)
        .where('status', '=', 'active')
        .executeTakeFirst();
      return g ? { ...groupView(g), row: g } : null;
    },

    /** The "unlink" command typed in a group: only the person who linked it may use it. */
    async unlinkGroupByCommand(
      lineChannelId: string,
      groupId: string,
      userId: string | null,
    ): Promise<'UNLINKED' | 'NOT_LINKED' | 'NOT_LINKER'> {
      const g = await db
        .selectFrom('line_groups')
        .selectAll()
        .where('line_channel_id', '=', lineChannelId)
        .where('group_id', '=', groupId)
        .where('status', '=', 'active')
        .executeTakeFirst();
      if (!g) return 'NOT_LINKED';
      if (!userId || g.linked_by !== userId) return 'NOT_LINKER';
      await db.transaction().execute((trx) => unlinkGroupRow(g, `line:${userId}`, 'chat command', trx));
      return 'UNLINKED';
    },

    /** The bot left or was removed from the group. */
    async groupLeft(lineChannelId: string, groupId: string): Promise<void> {
      const g = await db
        .selectFrom('line_groups')
        .selectAll()
        .where('line_channel_id', '=', lineChannelId)
        .where('group_id', '=', groupId)
        .where('status', '=', 'active')
        .executeTakeFirst();
      if (g) await db.transaction().execute((trx) => unlinkGroupRow(g, 'system', 'bot left the group', trx));
    },

    async unlinkGroup(shopId: string, groupRowId: string, actor: string, ip?: string | null): Promise<void> {
      const g = await db
        .selectFrom('line_groups')
        .selectAll()
        .where('id', '=', groupRowId)
        .where('shop_id', '=', shopId)
        .executeTakeFirst();
      if (!g) throw notFound('LINE group');
      if (g.status !== 'active') return;
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('line_groups').set({ status: 'unlinked', updated_at: now() }).where('id', '=', g.id).execute();
        await audit.record(
          {
            shopId,
            actor,
            action: 'line.group.unlink',
            target: g.id,
            detail: { groupId: g.group_id, reason: 'dashboard' },
            ip: ip ?? null,
          },
          trx,
        );
      });
    },

    /** null = follow the configuration default. */
    async setGroupSilent(shopId: string, groupRowId: string, silent: boolean | null, actor: string): Promise<LineGroupView> {
      const g = await db
        .selectFrom('line_groups')
        .selectAll()
        .where('id', '=', groupRowId)
        .where('shop_id', '=', shopId)
        .executeTakeFirst();
      if (!g) throw notFound('LINE group');
      const value = silent === null ? null : silent ? 1 : 0;
      await db.updateTable('line_groups').set({ silent_non_slip: value, updated_at: now() }).where('id', '=', g.id).execute();
      await audit.record({ shopId, actor, action: 'line.group.settings', target: g.id, detail: { silentNonSlip: silent } });
      return groupView({ ...g, silent_non_slip: value });
    },

    async unlinkOwner(shopId: string, ownerRowId: string, actor: string, ip?: string | null): Promise<void> {
      const o = await db
        .selectFrom('line_owners')
        .selectAll()
        .where('id', '=', ownerRowId)
        .where('shop_id', '=', shopId)
        .executeTakeFirst();
      if (!o) throw notFound('LINE owner link');
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('line_owners').where('id', '=', o.id).execute();
        await audit.record(
          { shopId, actor, action: 'line.owner.unlink', target: o.id, detail: { lineChannelId: o.line_channel_id }, ip: ip ?? null },
          trx,
        );
      });
    },

    async unlinkOwnerByCommand(lineChannelId: string, userId: string): Promise<boolean> {
      const o = await db
        .selectFrom('line_owners')
        .selectAll()
        .where('line_channel_id', '=', lineChannelId)
        .where('line_user_id', '=', userId)
        .executeTakeFirst();
      if (!o) return false;
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('line_owners').where('id', '=', o.id).execute();
        await audit.record(
          { shopId: o.shop_id, actor: `line:${userId}`, action: 'line.owner.unlink', target: o.id, detail: { reason: 'chat command' } },
          trx,
        );
      });
      return true;
    },

    /** Where owner alerts go: every linked owner user, with the token of the channel they linked through. */
    async ownerTargets(shopId: string): Promise<Array<{ to: string; token: string; lineChannelId: string }>> {
      const rows = await db
        .selectFrom('line_owners')
        .innerJoin('line_channels', 'line_channels.id', 'line_owners.line_channel_id')
        .select(['line_owners.line_user_id as to', 'line_channels.id as chId', 'line_channels.token_sealed as token'])
        .where('line_owners.shop_id', '=', shopId)
        .where('line_channels.status', '=', 'active')
        .where('line_channels.shop_id', '=', shopId)
        .execute();
      return rows.map((r) => ({ to: r.to, token: box.decrypt(r.token, aadToken(r.chId)), lineChannelId: r.chId }));
    },

    /** For the webhook route: the channel behind a webhook key and its secret (never leaves the process). */
    async byWebhookKey(key: string): Promise<{ row: LineChannelsTable; secret: string } | null> {
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(key)) return null;
      const row = await db
        .selectFrom('line_channels')
        .selectAll()
        .where('webhook_key', '=', key)
        .where('status', '=', 'active')
        .executeTakeFirst();
      return row ? { row, secret: box.decrypt(row.secret_sealed, aadSecret(row.id)) } : null;
    },

    async credentials(lineChannelId: string): Promise<{ row: LineChannelsTable; token: string } | null> {
      const row = await db
        .selectFrom('line_channels')
        .selectAll()
        .where('id', '=', lineChannelId)
        .where('status', '=', 'active')
        .executeTakeFirst();
      return row ? { row, token: box.decrypt(row.token_sealed, aadToken(row.id)) } : null;
    },

    /** The dashboard's "verify webhook" check: LINE calls our URL with an empty, signed event list. */
    async verifyWebhook(
      shopId: string,
      lineChannelId: string,
    ): Promise<{ success: boolean; statusCode: number | null; reason: string | null; webhookUrl: string }> {
      const ch = await shopChannel(shopId, lineChannelId);
      if (ch.status !== 'active') throw notFound('LINE channel');
      const view = channelView(ch);
      try {
        const r = await client.testWebhook(box.decrypt(ch.token_sealed, aadToken(ch.id)), view.webhookUrl);
        return { success: !!r.success, statusCode: r.statusCode ?? null, reason: r.reason ?? null, webhookUrl: view.webhookUrl };
      } catch (e) {
        return {
          success: false,
          statusCode: null,
          reason: e instanceof LineApiError ? `LINE answered ${e.status}` : 'LINE unreachable',
          webhookUrl: view.webhookUrl,
        };
      }
    },

    /** Once-only marks (alerts once per period). Returns true when this call set the mark. */
    async markNotice(shopId: string, notice: string, period: string, trx: Db = db): Promise<boolean> {
      const r = await trx
        .insertInto('line_notices')
        .values({ shop_id: shopId, notice, period, created_at: now() })
        .onConflict((oc) => oc.columns(['shop_id', 'notice', 'period']).doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    async hasNotice(shopId: string, notice: string, period: string): Promise<boolean> {
      return !!(await db
        .selectFrom('line_notices')
        .select('shop_id')
        .where('shop_id', '=', shopId)
        .where('notice', '=', notice)
        .where('period', '=', period)
        .executeTakeFirst());
    },

    async recordBotUserId(lineChannelId: string, destination: string): Promise<void> {
      await db
        .updateTable('line_channels')
        .set({ bot_user_id: destination })
        .where('id', '=', lineChannelId)
        .where('bot_user_id', 'is', null)
        .execute();
    },

    /** After a master-secret rotation (SECRET_KEY_PREVIOUS), re-seal channel secrets and tokens under the current key. */
    async reencryptSecrets(): Promise<number> {
      const rows = await db.selectFrom('line_channels').select(['id', 'secret_sealed', 'token_sealed']).execute();
      let n = 0;
      for (const r of rows) {
        if (!box.needsReencrypt(r.secret_sealed) && !box.needsReencrypt(r.token_sealed)) continue;
        await db
          .updateTable('line_channels')
          .set({
            secret_sealed: box.encrypt(box.decrypt(r.secret_sealed, aadSecret(r.id)), aadSecret(r.id)),
            token_sealed: box.encrypt(box.decrypt(r.token_sealed, aadToken(r.id)), aadToken(r.id)),
          })
          .where('id', '=', r.id)
          .where('secret_sealed', '=', r.secret_sealed)
          .execute();
        n++;
      }
      return n;
    },

    /** Dedupe rows older than LINE's redelivery window are useless; keep a week. */
    async pruneEvents(olderThanDays = 7): Promise<number> {
      const cutoff = new Date(clock.now().getTime() - olderThanDays * 86_400_000).toISOString();
      const r = await db.deleteFrom('line_events').where('received_at', '<', cutoff).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
export type LineService = ReturnType<typeof createLineService>;
