import { Type } from 'typebox';
import { Nullable } from '../../http/common-schemas.js';
import { SINGLE_LINE_PATTERN } from '../../http/input-guard.js';

export const PayeeSchema = Type.Object({
  id: Type.String(),
  bankCode: Type.String(),
  kind: Type.String(),
  proxyType: Nullable(Type.String()),
  holder: Type.String(),
  accountLast4: Type.String(),
  isPrimary: Type.Boolean(),
  status: Type.String(),
  createdAt: Type.String(),
});
export const PayeeCreateBody = Type.Object(
  {
    bankCode: Type.Optional(Type.String({ maxLength: 16 })),
    accountNumber: Type.String({ minLength: 1, maxLength: 32 }),
    holder: Type.String({ minLength: 1, maxLength: 120, pattern: SINGLE_LINE_PATTERN }),
    kind: Type.Optional(Type.Union([Type.Literal('BANK'), Type.Literal('PROMPTPAY')])),
    proxyType: Type.Optional(Type.Union([Type.Literal('PHONE'), Type.Literal('NATID'), Type.Literal('EWALLET')])),
    isPrimary: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const PayeePatchBody = Type.Object(
  {
    holder: Type.Optional(Type.String({ minLength: 1, maxLength: 120, pattern: SINGLE_LINE_PATTERN })),
    isPrimary: Type.Optional(Type.Literal(true)),
    status: Type.Optional(Type.Union([Type.Literal('ACTIVE'), Type.Literal('DISABLED')])),
  },
  { additionalProperties: false },
);
