import { Type } from 'typebox';
import { Nullable } from '../../http/common-schemas.js';
import { SINGLE_LINE_PATTERN } from '../../http/input-guard.js';

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  environment: Type.Union([Type.Literal('live'), Type.Literal('test')]),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String(),
  lastUsedAt: Nullable(Type.String()),
  revokedAt: Nullable(Type.String()),
  callsThisMonth: Type.Integer(),
  usage: Type.Object(
    { total: Type.Integer(), byStatus: Type.Record(Type.String(), Type.Integer()) },
    { description: 'calls this quota period, split by result status' },
  ),
});
export const ApiKeyCreateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 80, pattern: SINGLE_LINE_PATTERN })),
    environment: Type.Union([Type.Literal('live'), Type.Literal('test')]),
    scopes: Type.Optional(
      Type.Array(Type.Union([Type.Literal('verify'), Type.Literal('read'), Type.Literal('webhook')]), { minItems: 1, maxItems: 3 }),
    ),
  },
  { additionalProperties: false },
);
export const NewKeySchema = Type.Object({
  key: Type.String({ description: 'the full key: shown only in this answer' }),
  apiKey: ApiKeySchema,
});
