import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  API_ERRORS,
  bearerSecurity,
  CLIENT_REF_PATTERN,
  errorResponses,
  MoneyString,
  quotaWallResponse,
  satangOf,
} from '../../http/common-schemas.js';
import { apiAuth, type ApiAuthDeps } from '../../http/api-auth.js';
import { isoWithOffset } from '../../http/envelope.js';
import { AppError } from '../../errors.js';
import { VerifyRecordSchema } from '../transactions/transaction-schemas.js';
import type { VerificationService } from './verification-service.js';

const IMAGE_TYPES = new Set(['application/octet-stream', 'image/jpeg', 'image/png', 'image/jpg']);

const VerifyQuery = Type.Object(
  {
    amount: Type.Optional(MoneyString('expected amount, more than 0; a different bank amount gives AMOUNT_MISMATCH')),
    clientRef: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: CLIENT_REF_PATTERN,
        description:
          'your order id (printable ASCII, no spaces), stored on the record, echoed in webhooks, filterable in GET /transactions',
      }),
    ),
  },
  { additionalProperties: false },
);

export const verificationRoutes: FastifyPluginAsyncTypebox<{
  auth: ApiAuthDeps;
  verification: VerificationService;
  maxImageBytes: number;
  timeZone: string;
  now: () => Date;
}> = async (app, opts) => {
  // Every content type is read as raw bytes here (up to the cap, never beyond), so the route can say
  // precisely what was wrong instead of a generic 415.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: opts.maxImageBytes }, (_req, body, done) => done(null, body));
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'buffer', bodyLimit: opts.maxImageBytes }, (_req, body, done) =>
    done(null, body),
  );

  app.post(
    '/api/v1/verify',
    {
      onRequest: apiAuth(opts.auth, ['verify'], { verify: true }),
      bodyLimit: opts.maxImageBytes,
      schema: {
        tags: ['verify'],
        operationId: 'verifySlip',
        summary: 'Check one slip image (raw JPEG or PNG bytes)',
        security: bearerSecurity,
        description:
          'Send the image as the raw body with Content-Type application/octet-stream (image/jpeg and image/png are accepted too). Every verification result answers 200 with the status in data.status; 402 when the quota is used up (with firstUse when the picture re-uses a transfer this shop already credited: do not hand over goods for it); 422 NO_PAYEE_CONFIGURED when the shop has no payee account. ' +
          'A replay is an identical request (same image, amount and clientRef, an absent one included) within 24 hours: it answers the earlier record with cached: true and costs nothing, so a retry after a timeout is safe; the same image with another amount or clientRef is a new verification of an already verified transfer and answers DUPLICATE (verified: false), so one payment never pays for two orders. ' +
          'amount is a decimal string in THB with at most two decimals (8.20), compared exactly in satang.',
        querystring: VerifyQuery,
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            data: VerifyRecordSchema,
            meta: Type.Object({ requestId: Type.String(), timestamp: Type.String() }),
          }),
          ...errorResponses(...API_ERRORS, 413, 422, 503),
          ...quotaWallResponse,
        },
      },
    },
    async (req) => {
      const type = String(req.headers['content-type'] ?? '')
        .split(';')[0]
        .trim()
        .toLowerCase();
      const body = req.body as Buffer | undefined;
      if (type && !IMAGE_TYPES.has(type)) {
        throw new AppError(
          'INVALID_IMAGE',
          400,
          `Content-Type ${type.slice(0, 60)} is not accepted: send the raw JPEG or PNG bytes with Content-Type: application/octet-stream (not JSON, multipart or base64)`,
        );
      }
      // The image is read as sent: a compressed body was refused as "not an image", and raw bytes labelled
      // br were checked as if the label were not there. Say what to change instead.
      const encoding = String(req.headers['content-encoding'] ?? '')
        .trim()
        .toLowerCase();
      if (encoding && encoding !== 'identity') {
        throw new AppError(
          'INVALID_IMAGE',
          400,
          `Content-Encoding ${encoding.slice(0, 40)} is not accepted: send the JPEG or PNG bytes as they are (they are compressed already), without Content-Encoding`,
        );
      }
      const { shop, plan, key } = req.apiAuth!;
      const expectedAmountSatang = satangOf('amount', req.query.amount, { positive: true });
      try {
        const out = await opts.verification.verifySlip({
          shopId: shop.id,
          shop,
          plan,
          source: 'API',
          image: Buffer.isBuffer(body) ? body : Buffer.alloc(0),
          environment: key.environment,
          apiKeyId: key.id,
          expectedAmountSatang,
          clientRef: req.query.clientRef ?? null,
        });
        if (key.environment === 'live')
          req.quotaHeaders = {
            limit: out.quota.limit,
            used: out.quota.used,
            remaining: out.quota.remaining,
            resetDays: out.daysUntilReset,
          };
        return {
          success: true as const,
          data: { ...out.record, quota: out.quota },
          meta: { requestId: req.id, timestamp: isoWithOffset(opts.now(), opts.timeZone) },
        };
      } catch (e) {
        // The 402 stays (never a 200 past the pool), but a picture of a transfer this shop already
        // credited says so: a POS that shows only "quota used up" sends the cashier to the bank app,
        // where the first payment's money is. No checker call, no unit, no record.
        throw await opts.verification.atQuotaWall(e, shop.id, Buffer.isBuffer(body) ? body : Buffer.alloc(0), {
          environment: key.environment,
        });
      } finally {
        req.body = undefined; // drop our reference to the image as early as possible
      }
    },
  );
};
