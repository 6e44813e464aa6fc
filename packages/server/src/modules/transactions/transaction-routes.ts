import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { API_ERRORS, bearerSecurity, errorResponses, NoQuery, Nullable, success } from '../../http/common-schemas.js';
import { apiAuth, type ApiAuthDeps } from '../../http/api-auth.js';
import type { TransactionService } from './transaction-service.js';
import { ListQuery, TransactionRecordSchema } from './transaction-schemas.js';

export const transactionRoutes: FastifyPluginAsyncTypebox<{ auth: ApiAuthDeps; transactions: TransactionService }> = async (
  app,
  { auth, transactions },
) => {
  app.get(
    '/api/v1/transactions',
    {
      onRequest: apiAuth(auth, ['read']),
      schema: {
        tags: ['transactions'],
        operationId: 'listTransactions',
        summary: "List verification results from every channel, newest first (the key's own environment unless environment= is given)",
        security: bearerSecurity,
        querystring: ListQuery,
        response: {
          200: success(Type.Object({ items: Type.Array(TransactionRecordSchema), nextCursor: Nullable(Type.String()) })),
          ...errorResponses(...API_ERRORS),
        },
      },
    },
    async (req) => {
      // A key reads its own environment's records unless `environment=` asks for the other one
      // explicitly (README: Test keys): a test integration never sees live payments by accident.
      const environment = req.query.environment ?? req.apiAuth!.key.environment;
      return { success: true as const, data: await transactions.list(req.apiAuth!.shop.id, { ...req.query, environment }) };
    },
  );

  app.get(
    '/api/v1/transactions/:id',
    {
      onRequest: apiAuth(auth, ['read']),
      schema: {
        tags: ['transactions'],
        operationId: 'getTransaction',
        summary: 'One verification result (404 for unknown ids and for other shops alike)',
        security: bearerSecurity,
        // Any length: an id no record can have is a 404 like any unknown id (transactions.get), not a 400.
        params: Type.Object({ id: Type.String({ description: 'the record id (data.id of verify, transactionId of a webhook)' }) }),
        querystring: NoQuery,
        response: { 200: success(TransactionRecordSchema), ...errorResponses(...API_ERRORS, 404) },
      },
    },
    async (req) => ({ success: true as const, data: await transactions.get(req.apiAuth!.shop.id, req.params.id) }),
  );
};
