import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { API_ERRORS, bearerSecurity, errorResponses, Nullable, success } from '../../http/common-schemas.js';
import { apiAuth, type ApiAuthDeps } from '../../http/api-auth.js';
import type { TransactionService } from './transaction-service.js';
import { ListQuery, TransactionRecordSchema } from './transaction-schemas.js';

export const transactionRoutes: FastifyPluginAsyncTypebox<{ auth: ApiAuthDeps; transactions: TransactionService }> = async (app, { auth, transactions }) => {
  app.get('/api/v1/transactions', {
    onRequest: apiAuth(auth, ['read']),
    schema: {
      tags: ['transactions'], summary: 'List verification results from every channel, newest first', security: bearerSecurity,
      querystring: ListQuery,
      response: { 200: success(Type.Object({ items: Type.Array(TransactionRecordSchema), nextCursor: Nullable(Type.String()) })), ...errorResponses(...API_ERRORS) },
    },
  }, async (req) => ({ success: true as const, data: await transactions.list(req.apiAuth!.shop.id, req.query) }));

  app.get('/api/v1/transactions/:id', {
    onRequest: apiAuth(auth, ['read']),
    schema: {
      tags: ['transactions'], summary: 'One verification result (404 for unknown ids and for other shops alike)', security: bearerSecurity,
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      response: { 200: success(TransactionRecordSchema), ...errorResponses(...API_ERRORS, 404) },
    },
  }, async (req) => ({ success: true as const, data: await transactions.get(req.apiAuth!.shop.id, req.params.id) }));
};
