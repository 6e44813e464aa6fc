import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, success } from '../../http/common-schemas.js';
import type { AccountService } from '../accounts/account-service.js';
import { requireSession, type DashboardAuthDeps } from '../accounts/session-auth.js';
import { requireOwner } from '../team/owner-guard.js';
import type { Shop, ShopService } from '../shops/shop-service.js';
import { settingsOf, type ShopSettingsPatch } from '../shops/shop-settings.js';
import { SettingsPatchBody, SettingsSchema } from './settings-schemas.js';

const tags = ['dashboard'];
const E = [401, 429];

export function privacyOf(shop: Shop, defaultMonths: number) {
  const p = settingsOf(shop).privacy;
  return { autoDelete: p.autoDelete, retentionMonths: p.retentionMonths ?? defaultMonths };
}

export function notificationsOf(shop: Shop) {
  const { staleSlipAlerts, email } = settingsOf(shop).notifications;
  return { staleSlipAlerts, email };
}

/** The settings screen: the shop's name, language, notification and privacy preferences, and the person's e-mail. */
export interface SettingsRouteDeps {
  auth: DashboardAuthDeps;
  shops: Pick<ShopService, 'get' | 'update'>;
  accounts: Pick<AccountService, 'getUser'>;
  /** PDPA_RETENTION_MONTHS: the retention a shop has until it picks its own. */
  defaultRetentionMonths: number;
}

export const settingsRoutes: FastifyPluginAsyncTypebox<SettingsRouteDeps> = async (app, deps) => {
  const { auth, shops, accounts, defaultRetentionMonths } = deps;
  const session = requireSession(auth);
  // Staff read the settings; changing them is owner-only.
  const owner = [session, requireOwner(auth)];
  const actor = (userId: string) => `user:${userId}`;

  const settingsOf = async (shopId: string, userId: string) => {
    const [shop, user] = await Promise.all([shops.get(shopId), accounts.getUser(userId)]);
    return {
      shopName: shop.name,
      language: shop.language,
      notifications: notificationsOf(shop),
      privacy: privacyOf(shop, defaultRetentionMonths),
      email: user.email,
    };
  };

  app.get(
    '/api/dashboard/settings',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Shop name, language, notification preferences',
        response: { 200: success(SettingsSchema), ...errorResponses(...E) },
      },
    },
    async (req) => ({ success: true as const, data: await settingsOf(req.dashboard!.shopId, req.dashboard!.userId) }),
  );

  app.patch(
    '/api/dashboard/settings',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Change shop name, language, notification preferences',
        body: SettingsPatchBody,
        response: { 200: success(SettingsSchema), ...errorResponses(400, ...E) },
      },
    },
    async (req) => {
      const { shopId, userId } = req.dashboard!;
      const b = req.body;
      let settings: ShopSettingsPatch | undefined;
      if (b.notifications || b.privacy) {
        const shop = await shops.get(shopId);
        settings = {
          ...(b.notifications ? { notifications: { ...notificationsOf(shop), ...b.notifications } } : {}),
          ...(b.privacy ? { privacy: { ...privacyOf(shop, defaultRetentionMonths), ...b.privacy } } : {}),
        };
      }
      await shops.update(shopId, { name: b.shopName, language: b.language, settings }, actor(userId));
      return { success: true as const, data: await settingsOf(shopId, userId) };
    },
  );
};
