import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/db.js';
import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AuditService } from '../audit/audit-service.js';
import type { PlanService } from '../plans/plan-service.js';
import { lockShopRow, type ShopService } from '../shops/shop-service.js';
import { LineApiError, type LineClient } from './line-client.js';
import type { LineChannelSecrets } from './line-channel-secrets.js';
import type { LineDeliveryRepo } from './line-delivery-repo.js';
import type { LineGroupService, LineGroupView } from './line-group-service.js';
import type { LineOwnerService, LineOwnerView } from './line-owner-service.js';
import type { LineRepo } from './line-repo.js';
import type { LineChannelsTable } from './line-tables.js';

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

export interface LinePushUsage {
  lineChannelId: string;
  period: string;
  pushes: number;
  monthlyLimitReachedAt: string | null;
}

/**
 * Official accounts linked to a shop: linking (credentials checked with LINE, within the plan's limit),
 * unlinking (its groups and owner links go with it), the webhook behind each and its check, and the
 * sealed credentials, which leave this service only towards the LINE client and the webhook route.
 */
export function createLineChannelService(deps: {
  db: Db;
  repo: LineRepo;
  delivery: Pick<LineDeliveryRepo, 'period' | 'pushUsage' | 'monthlyLimitAt' | 'forgetPushUsage'>;
  clock: Clock;
  audit: AuditService;
  plans: PlanService;
  shops: Pick<ShopService, 'get'>;
  secrets: LineChannelSecrets;
  client: Pick<LineClient, 'botInfo' | 'testWebhook'>;
  groups: Pick<LineGroupService, 'listActive' | 'unlinkAllOfChannel'>;
  owners: Pick<LineOwnerService, 'list'>;
  /** PUBLIC_URL: webhook URLs shown to owners start with it. */
  publicBaseUrl: string;
}) {
  const { db, repo, clock, audit, plans, shops, secrets, client } = deps;
  const now = () => clock.now().toISOString();

  const view = (r: LineChannelsTable): LineChannelView => {
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

  async function ofShop(shopId: string, lineChannelId: string): Promise<LineChannelsTable> {
    const r = await repo.channels.ofShop(shopId, lineChannelId);
    if (!r) throw notFound('LINE channel');
    return r;
  }

  /** Checked before the work and again under the shop's row lock: two links at once must not both pass. */
  async function assertRoomForChannel(shopId: string, limit: number, trx: Db = db): Promise<void> {
    if ((await repo.channels.countActive(shopId, trx)) < limit) return;
    throw new AppError(
      'PLAN_LIMIT_MESSAGING_ACCOUNTS',
      403,
      `Your plan allows ${limit} LINE official account(s); unlink one or upgrade the plan`,
      { limit },
    );
  }

  return {
    view,

    async link(
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

      const existing = await repo.channels.byChannelId(channelId);
      if (existing && existing.status === 'active' && existing.shop_id !== shopId) {
        throw new AppError('LINE_CHANNEL_IN_USE', 409, 'This LINE channel is linked to another shop');
      }
      const isUpdate = !!existing && existing.status === 'active';
      // Another shop takes over the row an earlier holder unlinked (LINE's channel id is unique): the
      // same id, so whatever hangs off the id must start clean for it (events queued for the earlier
      // holder are kept from it by the event handler, which checks the job's shop).
      const handover = !!existing && !isUpdate && existing.shop_id !== shopId;
      if (!isUpdate) await assertRoomForChannel(shopId, plan.messagingAccounts);
      const id = existing?.id ?? newId('lch');
      const ts = now();
      const row: LineChannelsTable = {
        id,
        shop_id: shopId,
        channel_id: channelId,
        // A re-link by another shop (after an unlink) gets a fresh webhook URL: the old one must stop working.
        webhook_key: isUpdate ? existing!.webhook_key : randomBytes(24).toString('base64url'),
        ...secrets.seal(id, secret, token),
        bot_user_id: bot.userId ?? existing?.bot_user_id ?? null,
        bot_name: bot.displayName ?? existing?.bot_name ?? null,
        status: 'active',
        created_at: isUpdate ? existing!.created_at : ts,
        updated_at: ts,
      };
      await db.transaction().execute(async (trx) => {
        if (!isUpdate) {
          await lockShopRow(trx, shopId);
          await assertRoomForChannel(shopId, plan.messagingAccounts, trx);
        }
        if (existing) await repo.channels.update(row, trx);
        else await repo.channels.insert(row, trx);
        if (handover) {
          await repo.channels.deleteLinksOfOtherShops(id, shopId, trx);
          await deps.delivery.forgetPushUsage(id, trx);
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
      return view(row);
    },

    async unlink(shopId: string, lineChannelId: string, actor: string, ip?: string | null): Promise<LineChannelView> {
      const ch = await ofShop(shopId, lineChannelId);
      if (ch.status !== 'active') return view(ch);
      await db.transaction().execute(async (trx) => {
        await repo.channels.markUnlinked(ch.id, now(), trx);
        await deps.groups.unlinkAllOfChannel(ch.id, actor, trx);
        await repo.owners.deleteOfChannel(ch.id, trx);
        await audit.record(
          { shopId, actor, action: 'line.channel.unlink', target: ch.id, detail: { channelId: ch.channel_id }, ip: ip ?? null },
          trx,
        );
      });
      return view({ ...ch, status: 'unlinked' });
    },

    /** The shop's LINE page: active channels, linked groups and owner users (never secrets). */
    async list(shopId: string): Promise<{ channels: LineChannelView[]; groups: LineGroupView[]; owners: LineOwnerView[] }> {
      const channels = await repo.channels.listActive(shopId);
      const groups = await deps.groups.listActive(shopId);
      const owners = await deps.owners.list(shopId);
      return { channels: channels.map(view), groups, owners };
    },

    /** This month's pushes of each channel and when LINE's monthly limit was hit (null = not this month). */
    async pushUsage(shopId: string, lineChannelIds: string[]): Promise<LinePushUsage[]> {
      const usage = await deps.delivery.pushUsage(lineChannelIds);
      return Promise.all(
        lineChannelIds.map(async (id) => ({
          lineChannelId: id,
          period: deps.delivery.period(),
          pushes: usage.get(id) ?? 0,
          monthlyLimitReachedAt: await deps.delivery.monthlyLimitAt(shopId, id),
        })),
      );
    },

    /** For the webhook route: the channel behind a webhook key and its secret (never leaves the process). */
    async byWebhookKey(key: string): Promise<{ row: LineChannelsTable; secret: string } | null> {
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(key)) return null;
      const row = await repo.channels.activeByWebhookKey(key);
      return row ? { row, secret: secrets.openSecret(row) } : null;
    },

    /** For the event handler: an active channel and its access token. */
    async credentials(lineChannelId: string): Promise<{ row: LineChannelsTable; token: string } | null> {
      const row = await repo.channels.activeById(lineChannelId);
      return row ? { row, token: secrets.openToken(row.id, row.token_sealed) } : null;
    },

    /** The dashboard's "verify webhook" check: LINE calls our URL with an empty, signed event list. */
    async verifyWebhook(
      shopId: string,
      lineChannelId: string,
    ): Promise<{ success: boolean; statusCode: number | null; reason: string | null; webhookUrl: string }> {
      const ch = await ofShop(shopId, lineChannelId);
      if (ch.status !== 'active') throw notFound('LINE channel');
      const { webhookUrl } = view(ch);
      try {
        const r = await client.testWebhook(secrets.openToken(ch.id, ch.token_sealed), webhookUrl);
        return { success: !!r.success, statusCode: r.statusCode ?? null, reason: r.reason ?? null, webhookUrl };
      } catch (e) {
        return {
          success: false,
          statusCode: null,
          reason: e instanceof LineApiError ? `LINE answered ${e.status}` : 'LINE unreachable',
          webhookUrl,
        };
      }
    },

    /** The bot's user id from a webhook's `destination`, when linking could not ask LINE. */
    async recordBotUserId(lineChannelId: string, destination: string): Promise<void> {
      await repo.channels.setBotUserIdIfUnknown(lineChannelId, destination);
    },

    /** After a master-secret rotation (SECRET_KEY_PREVIOUS), re-seal channel secrets and tokens under the current key. */
    reencryptSecrets(): Promise<number> {
      return secrets.reencryptAll(repo);
    },
  };
}
export type LineChannelService = ReturnType<typeof createLineChannelService>;
