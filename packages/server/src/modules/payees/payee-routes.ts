import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdParams, success } from '../../http/common-schemas.js';
import { requireSession, type DashboardAuthDeps } from '../accounts/session-auth.js';
import { requireOwner } from '../team/owner-guard.js';
import type { PayeeService } from './payee-service.js';
import { PayeeCreateBody, PayeePatchBody, PayeeSchema } from './payee-schemas.js';

const tags = ['dashboard'];
const E = [401, 429];

/** The payees screen: the shop's receiving accounts; every lookup carries the session's shop id. */
export interface PayeeRouteDeps {
  auth: DashboardAuthDeps;
  payees: Pick<PayeeService, 'list' | 'add' | 'update' | 'remove'>;
}

export const payeeRoutes: FastifyPluginAsyncTypebox<PayeeRouteDeps> = async (app, { auth, payees }) => {
  const session = requireSession(auth);
  // Payee changes are owner-only; staff read the list (they see which account a slip must pay into).
  const owner = [session, requireOwner(auth)];
  const actor = (userId: string) => `user:${userId}`;

  app.get(
    '/api/dashboard/payees',
    {
      onRequest: session,
      schema: {
        tags,
        summary: 'Payee accounts (last 4 only)',
        response: { 200: success(Type.Object({ items: Type.Array(PayeeSchema) })), ...errorResponses(...E) },
      },
    },
    async (req) => ({ success: true as const, data: { items: await payees.list(req.dashboard!.shopId) } }),
  );

  app.post(
    '/api/dashboard/payees',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Add a payee account (full number entered once)',
        body: PayeeCreateBody,
        response: { 201: success(PayeeSchema), ...errorResponses(400, 409, ...E) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const p = await payees.add(
        req.dashboard!.shopId,
        {
          bankCode: b.bankCode ?? '',
          accountNumber: b.accountNumber,
          holder: b.holder,
          kind: b.kind,
          proxyType: b.proxyType,
          isPrimary: b.isPrimary,
        },
        actor(req.dashboard!.userId),
      );
      return reply.status(201).send({ success: true as const, data: p });
    },
  );

  app.patch(
    '/api/dashboard/payees/:id',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Edit holder, make primary, enable/disable',
        params: IdParams,
        body: PayeePatchBody,
        response: { 200: success(PayeeSchema), ...errorResponses(400, 404, ...E) },
      },
    },
    async (req) => ({
      success: true as const,
      data: await payees.update(req.dashboard!.shopId, req.params.id, req.body, actor(req.dashboard!.userId)),
    }),
  );

  app.delete(
    '/api/dashboard/payees/:id',
    {
      onRequest: owner,
      schema: {
        tags,
        summary: 'Remove a payee account',
        params: IdParams,
        response: { 200: success(Type.Object({ deleted: Type.Boolean() })), ...errorResponses(404, ...E) },
      },
    },
    async (req) => {
      await payees.remove(req.dashboard!.shopId, req.params.id, actor(req.dashboard!.userId));
      return { success: true as const, data: { deleted: true } };
    },
  );
};
