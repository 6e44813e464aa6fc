import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError, notFound } from '../../errors.js';
import { errorResponses, IdParams, Nullable, RecordId, success } from '../../http/common-schemas.js';
import { requireSession, type DashboardAuthDeps } from '../accounts/session-auth.js';
import { requireOwner } from '../team/owner-guard.js';
import { WEBHOOK_EVENT_KINDS } from './webhook-events.js';
import { DELIVERY_STATUSES, type WebhookService } from './webhook-service.js';
import { DeliveryDetailSchema, DeliverySchema, EndpointSchema } from './webhook-schemas.js';

const tags = ['dashboard'];
const E = [401, 429];

const EventKind = Type.Union(WEBHOOK_EVENT_KINDS.map((k) => Type.Literal(k)));
const DeliveryParams = Type.Object({ id: RecordId, deliveryId: RecordId });

export interface WebhookRouteDeps {
  auth: DashboardAuthDeps;
  webhooks: Pick<
    WebhookService,
    | 'list'
    | 'get'
    | 'addEndpoint'
    | 'update'
    | 'enable'
    | 'disable'
    | 'delete'
    | 'revealSecret'
    | 'rotateSecret'
    | 'sendTest'
    | 'listDeliveries'
    | 'getDelivery'
    | 'redeliver'
  >;
  /** Development without WEBHOOK_ALLOW_PRIVATE: a refused local URL names the switch that allows it. */
  explainPrivateTargets: boolean;
}

/** The owner's webhook screen, over the webhooks module's service; every call is scoped by the session's shop. */
export const webhookDashboardRoutes: FastifyPluginAsyncTypebox<WebhookRouteDeps> = async (
  app,
  { auth, webhooks, explainPrivateTargets },
) => {
  // Webhooks are owner-only, reads included (endpoints, secrets and deliveries).
  const session = [requireSession(auth), requireOwner(auth)];
  const actor = (userId: string) => `user:${userId}`;
  // In development a local receiver (localhost, 10.x) is the usual first target and is refused by the
  // SSRF guard: the answer then names the switch (the screen shows it beside the server's reason).
  const explainUrl = async <T>(p: Promise<T>): Promise<T> => {
    try {
      return await p;
    } catch (e) {
      if (e instanceof AppError && e.code === 'INVALID_WEBHOOK_URL' && explainPrivateTargets) {
        throw new AppError(e.code, e.statusCode, e.message, { ...e.extra, allowLocalTargets: 'WEBHOOK_ALLOW_PRIVATE=true' });
      }
      throw e;
    }
  };

  app.get(
    '/api/dashboard/webhooks',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Webhook endpoints',
        response: { 200: success(Type.Object({ items: Type.Array(EndpointSchema) })), ...errorResponses(...E) },
      },
    },
    async (req) => ({ success: true as const, data: { items: await webhooks.list(req.dashboard!.shopId) } }),
  );

  app.post(
    '/api/dashboard/webhooks',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Add an endpoint; the signing secret is in this answer (403 on plans without webhooks)',
        body: Type.Object(
          {
            url: Type.String({ minLength: 1, maxLength: 2000 }),
            events: Type.Optional(Type.Array(EventKind, { minItems: 1 })),
            description: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
          },
          { additionalProperties: false },
        ),
        response: {
          201: success(Type.Object({ endpoint: EndpointSchema, secret: Type.String() })),
          ...errorResponses(400, 403, 409, ...E),
        },
      },
    },
    async (req, reply) =>
      reply.status(201).send({
        success: true as const,
        data: await explainUrl(webhooks.addEndpoint(req.dashboard!.shopId, req.body, actor(req.dashboard!.userId))),
      }),
  );

  app.patch(
    '/api/dashboard/webhooks/:id',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Change url, events, description; enable or disable',
        params: IdParams,
        body: Type.Object(
          {
            url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
            events: Type.Optional(Type.Array(EventKind, { minItems: 1 })),
            description: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
            enabled: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 200: success(EndpointSchema), ...errorResponses(400, 403, 404, ...E) },
      },
    },
    async (req) => {
      const { shopId, userId } = req.dashboard!;
      const { enabled, ...patch } = req.body;
      let ep = Object.keys(patch).length
        ? await explainUrl(webhooks.update(shopId, req.params.id, patch, actor(userId)))
        : await webhooks.get(shopId, req.params.id);
      if (enabled === true && ep.status !== 'enabled') ep = await webhooks.enable(shopId, req.params.id, actor(userId));
      if (enabled === false && ep.status !== 'disabled') ep = await webhooks.disable(shopId, req.params.id, actor(userId));
      return { success: true as const, data: ep };
    },
  );

  app.delete(
    '/api/dashboard/webhooks/:id',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Delete an endpoint and its delivery history',
        params: IdParams,
        response: { 200: success(Type.Object({ deleted: Type.Boolean() })), ...errorResponses(404, ...E) },
      },
    },
    async (req) => {
      await webhooks.delete(req.dashboard!.shopId, req.params.id, actor(req.dashboard!.userId));
      return { success: true as const, data: { deleted: true } };
    },
  );

  app.post(
    '/api/dashboard/webhooks/:id/reveal-secret',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Show the signing secret (audited)',
        params: IdParams,
        response: {
          200: success(
            Type.Object({
              secret: Type.String(),
              previousSecret: Nullable(Type.String()),
              previousSecretExpiresAt: Nullable(Type.String()),
            }),
          ),
          ...errorResponses(404, ...E),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await webhooks.revealSecret(req.dashboard!.shopId, req.params.id, actor(req.dashboard!.userId)),
    }),
  );

  app.post(
    '/api/dashboard/webhooks/:id/rotate-secret',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'New signing secret; the old one keeps signing during the overlap',
        params: IdParams,
        querystring: Type.Object(
          { overlapHours: Type.Optional(Type.Integer({ minimum: 0, maximum: 720 })) },
          { additionalProperties: false },
        ),
        response: {
          200: success(Type.Object({ endpoint: EndpointSchema, secret: Type.String(), previousSecretExpiresAt: Nullable(Type.String()) })),
          ...errorResponses(400, 404, ...E),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await webhooks.rotateSecret(
        req.dashboard!.shopId,
        req.params.id,
        { overlapHours: req.query.overlapHours },
        actor(req.dashboard!.userId),
      ),
    }),
  );

  app.post(
    '/api/dashboard/webhooks/:id/test',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Send a sample slip.verified now and show the outcome',
        params: IdParams,
        response: { 200: success(Type.Object({ delivery: DeliveryDetailSchema })), ...errorResponses(403, 404, ...E) },
      },
    },
    async (req) => ({
      success: true as const,
      data: { delivery: await webhooks.sendTest(req.dashboard!.shopId, req.params.id, actor(req.dashboard!.userId)) },
    }),
  );

  const ListQuery = Type.Object(
    {
      status: Type.Optional(Type.String({ pattern: `^(${DELIVERY_STATUSES.join('|')})(,(${DELIVERY_STATUSES.join('|')}))*$` })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
      cursor: Type.Optional(Type.String({ maxLength: 64 })),
    },
    { additionalProperties: false },
  );
  const ListAnswer = success(Type.Object({ items: Type.Array(DeliverySchema), nextCursor: Nullable(Type.String()) }));

  app.get(
    '/api/dashboard/webhooks/deliveries',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Deliveries of every endpoint, newest first',
        querystring: ListQuery,
        response: { 200: ListAnswer, ...errorResponses(400, ...E) },
      },
    },
    async (req) => ({ success: true as const, data: await webhooks.listDeliveries(req.dashboard!.shopId, req.query) }),
  );

  app.get(
    '/api/dashboard/webhooks/:id/deliveries',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Deliveries of one endpoint, newest first',
        params: IdParams,
        querystring: ListQuery,
        response: { 200: ListAnswer, ...errorResponses(400, 404, ...E) },
      },
    },
    async (req) => {
      await webhooks.get(req.dashboard!.shopId, req.params.id); // 404 for another shop's endpoint
      return {
        success: true as const,
        data: await webhooks.listDeliveries(req.dashboard!.shopId, { ...req.query, endpointId: req.params.id }),
      };
    },
  );

  app.get(
    '/api/dashboard/webhooks/deliveries/:deliveryId',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'One delivery with its attempts and body',
        params: Type.Object({ deliveryId: RecordId }),
        response: { 200: success(DeliveryDetailSchema), ...errorResponses(404, ...E) },
      },
    },
    async (req) => ({ success: true as const, data: await webhooks.getDelivery(req.dashboard!.shopId, req.params.deliveryId) }),
  );

  app.post(
    '/api/dashboard/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Send a finished delivery once more',
        params: DeliveryParams,
        response: { 200: success(Type.Object({ delivery: DeliverySchema })), ...errorResponses(403, 404, 409, ...E) },
      },
    },
    async (req) => {
      const { shopId, userId } = req.dashboard!;
      const d = await webhooks.getDelivery(shopId, req.params.deliveryId);
      if (d.endpointId !== req.params.id) throw notFound('Webhook delivery');
      return { success: true as const, data: { delivery: await webhooks.redeliver(shopId, d.id, actor(userId)) } };
    },
  );
};
