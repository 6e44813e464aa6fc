import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdParams, Nullable, success } from '../../http/common-schemas.js';
import { requireSession, type DashboardAuthDeps } from '../accounts/session-auth.js';
import type { PlanService } from '../plans/plan-service.js';
import type { ShopService } from '../shops/shop-service.js';
import { requireOwner } from '../team/owner-guard.js';
import type { LineModule } from './line-module.js';
import { ChannelSchema, GroupSchema, OwnerSchema } from './line-schemas.js';

const tags = ['dashboard'];
const E = [401, 429];

const LinePage = Type.Object({
  channels: Type.Array(ChannelSchema),
  groups: Type.Array(GroupSchema),
  owners: Type.Array(OwnerSchema),
  limits: Type.Object({ groups: Type.Integer(), messagingAccounts: Type.Integer() }),
  pushUsage: Type.Array(
    Type.Object({
      lineChannelId: Type.String(),
      period: Type.String({ description: 'YYYY-MM in the service time zone' }),
      pushes: Type.Integer({
        description: "pushes sent this month (replies are free; pushes draw on the official account's monthly allowance)",
      }),
      monthlyLimitReachedAt: Nullable(
        Type.String({ description: 'when LINE answered "You have reached your monthly limit." this month; answers are then replies only' }),
      ),
    }),
  ),
});
const LinkBody = Type.Object(
  {
    channelId: Type.String({ minLength: 1, maxLength: 32 }),
    channelSecret: Type.String({ minLength: 1, maxLength: 200 }),
    accessToken: Type.String({ minLength: 1, maxLength: 2000 }),
  },
  { additionalProperties: false },
);

/**
 * The dashboard's LINE page: link an official account (secrets go in, never come out), the webhook
 * URL and its check, one-time link codes, linked groups (unlink, silence setting) and owner users.
 * Every lookup is scoped to the session's shop.
 */
export interface LineDashboardRouteDeps {
  auth: DashboardAuthDeps;
  line: Pick<LineModule, 'channels' | 'groups' | 'linkCodes' | 'owners'>;
  shops: Pick<ShopService, 'get'>;
  plans: Pick<PlanService, 'get'>;
}

export const lineDashboardRoutes: FastifyPluginAsyncTypebox<LineDashboardRouteDeps> = async (app, { auth, line, shops, plans }) => {
  const session = requireSession(auth);
  // The shop's official account and who gets the owner's alerts are the owner's: staff who could unlink
  // the account or remove the owner's alert recipient could silence the alerts about their own checks.
  // Staff still link and unlink groups and make link codes (for groups) for the counter.
  const owner = [session, requireOwner(auth)];
  const { channels, groups, linkCodes, owners } = line;
  const actor = (userId: string) => `user:${userId}`;

  app.get(
    '/api/dashboard/line',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'LINE official accounts, linked groups and owner users (never secrets)',
        response: { 200: success(LinePage), ...errorResponses(...E) },
      },
    },
    async (req) => {
      const shop = await shops.get(req.dashboard!.shopId);
      const plan = await plans.get(shop.planCode);
      const page = await channels.list(shop.id);
      const pushUsage = await channels.pushUsage(
        shop.id,
        page.channels.map((ch) => ch.id),
      );
      return {
        success: true as const,
        data: { ...page, limits: { groups: plan.groups, messagingAccounts: plan.messagingAccounts }, pushUsage },
      };
    },
  );

  app.post(
    '/api/dashboard/line/channels',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Link a LINE official account (403 PLAN_LIMIT_MESSAGING_ACCOUNTS, 409 LINE_CHANNEL_IN_USE)',
        body: LinkBody,
        response: { 201: success(ChannelSchema), ...errorResponses(400, 403, 409, ...E) },
      },
    },
    async (req, reply) => {
      const view = await channels.link(req.dashboard!.shopId, req.body, actor(req.dashboard!.userId), req.ip);
      return reply.status(201).send({ success: true as const, data: view });
    },
  );

  app.delete(
    '/api/dashboard/line/channels/:id',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Unlink a LINE official account (its groups and owner links go with it)',
        params: IdParams,
        response: { 200: success(ChannelSchema), ...errorResponses(403, 404, ...E) },
      },
    },
    async (req) => ({
      success: true as const,
      data: await channels.unlink(req.dashboard!.shopId, req.params.id, actor(req.dashboard!.userId), req.ip),
    }),
  );

  app.post(
    '/api/dashboard/line/channels/:id/verify-webhook',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Ask LINE to call the webhook URL now',
        params: IdParams,
        response: {
          200: success(
            Type.Object({
              success: Type.Boolean(),
              statusCode: Nullable(Type.Integer()),
              reason: Nullable(Type.String()),
              webhookUrl: Type.String(),
            }),
          ),
          ...errorResponses(404, ...E),
        },
      },
    },
    async (req) => ({ success: true as const, data: await channels.verifyWebhook(req.dashboard!.shopId, req.params.id) }),
  );

  app.post(
    '/api/dashboard/line/link-codes',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'A one-time code: typed in a group it links the group, in 1:1 chat it links the owner for alerts',
        response: { 201: success(Type.Object({ code: Type.String(), expiresAt: Type.String() })), ...errorResponses(...E) },
      },
    },
    async (req, reply) =>
      reply.status(201).send({ success: true as const, data: await linkCodes.create(req.dashboard!.shopId, actor(req.dashboard!.userId)) }),
  );

  app.delete(
    '/api/dashboard/line/groups/:id',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Unlink a group chat',
        params: IdParams,
        response: { 200: success(Type.Object({ unlinked: Type.Boolean() })), ...errorResponses(404, ...E) },
      },
    },
    async (req) => {
      await groups.unlink(req.dashboard!.shopId, req.params.id, actor(req.dashboard!.userId), req.ip);
      return { success: true as const, data: { unlinked: true } };
    },
  );

  app.patch(
    '/api/dashboard/line/groups/:id',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Group setting: stay silent on pictures without a slip QR (null = service default)',
        params: IdParams,
        body: Type.Object({ silentNonSlip: Nullable(Type.Boolean()) }, { additionalProperties: false }),
        response: { 200: success(GroupSchema), ...errorResponses(400, 404, ...E) },
      },
    },
    async (req) => ({
      success: true as const,
      data: await groups.setSilent(req.dashboard!.shopId, req.params.id, req.body.silentNonSlip, actor(req.dashboard!.userId)),
    }),
  );

  app.delete(
    '/api/dashboard/line/owners/:id',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Stop owner alerts to a LINE user',
        params: IdParams,
        response: { 200: success(Type.Object({ unlinked: Type.Boolean() })), ...errorResponses(403, 404, ...E) },
      },
    },
    async (req) => {
      await owners.unlink(req.dashboard!.shopId, req.params.id, actor(req.dashboard!.userId), req.ip);
      return { success: true as const, data: { unlinked: true } };
    },
  );
};
