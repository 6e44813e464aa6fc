import { Type, type TSchema } from 'typebox';

/** Schemas shared by routes; the OpenAPI document is generated from these, so nothing else can leak. */
export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: 'HTTP status name, e.g. Forbidden' }),
    message: Type.String(),
    statusCode: Type.Integer(),
    code: Type.String({
      description:
        'machine-readable error code, e.g. QUOTA_EXCEEDED, PLAN_API_ACCESS_REQUIRED, UNAUTHORIZED, RATE_LIMITED, VALIDATION_ERROR, NOT_FOUND',
    }),
    path: Type.String(),
    requestId: Type.String(),
    timestamp: Type.String({ description: 'ISO 8601 with a UTC offset' }),
    quota: Type.Optional(Type.Object({ used: Type.Integer(), limit: Type.Integer(), remaining: Type.Integer() })),
  },
  { $id: 'ErrorEnvelope', additionalProperties: true },
);

/** The fields of a quota snapshot: the public GET /quota and the dashboard's overview answer them alike. */
export const quotaFields = {
  used: Type.Integer(),
  limit: Type.Integer(),
  remaining: Type.Integer(),
  percentUsed: Type.Integer(),
  allowOverage: Type.Boolean(),
  planCode: Type.String(),
  periodMonth: Type.String({ description: 'YYYY-MM' }),
  daysUntilReset: Type.Integer(),
};

export const QuotaSmall = Type.Object({ used: Type.Integer(), limit: Type.Integer(), remaining: Type.Integer() });

export const success = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export { Nullable };

export const errorResponses = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, { $ref: 'ErrorEnvelope#' }]));
export const API_ERRORS = [400, 401, 403, 429];

export const bearerSecurity = [{ apiKey: [] }];
