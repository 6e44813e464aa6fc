import { Type } from 'typebox';
import { Nullable, quotaFields } from '../../http/common-schemas.js';
import { STATUSES } from '../transactions/transaction-record.js';
import { SINGLE_LINE_PATTERN } from '../../http/input-guard.js';

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const QuotaSnapshotSchema = Type.Object({ ...quotaFields, overage: Type.Integer() });
export const TestQuotaSchema = Type.Object({ used: Nullable(Type.Integer()), limit: Type.Integer(), remaining: Type.Integer() });

const byStatus = Type.Object(Object.fromEntries(STATUSES.map((s) => [s, Type.Optional(Type.Integer())])), { additionalProperties: false });
export const DailySchema = Type.Object({
  date: Type.String({ description: 'YYYY-MM-DD in the service time zone' }),
  total: Type.Integer(),
  byStatus,
});

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

export const NotificationsSchema = Type.Object({ staleSlipAlerts: Type.Boolean(), email: Type.Boolean() });
export const PrivacySchema = Type.Object({
  autoDelete: Type.Boolean({ description: 'blank personal fields of results older than retentionMonths (PDPA)' }),
  retentionMonths: Type.Integer({ minimum: 1, maximum: 120 }),
});
export const SettingsSchema = Type.Object({
  shopName: Type.String(),
  language: Type.Union([Type.Literal('th'), Type.Literal('en')]),
  notifications: NotificationsSchema,
  privacy: PrivacySchema,
  email: Type.String(),
});
export const SettingsPatchBody = Type.Object(
  {
    shopName: Type.Optional(Type.String({ minLength: 1, maxLength: 120, pattern: SINGLE_LINE_PATTERN })),
    language: Type.Optional(Type.Union([Type.Literal('th'), Type.Literal('en')])),
    notifications: Type.Optional(
      Type.Object(
        { staleSlipAlerts: Type.Optional(Type.Boolean()), email: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
    ),
    privacy: Type.Optional(
      Type.Object(
        { autoDelete: Type.Optional(Type.Boolean()), retentionMonths: Type.Optional(Type.Integer({ minimum: 1, maximum: 120 })) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const SessionSchema = Type.Object({
  id: Type.String(),
  userAgent: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  createdAt: Type.String(),
  lastUsedAt: Type.String(),
  expiresAt: Type.String(),
  current: Type.Boolean(),
  kind: Type.Union([Type.Literal('dashboard'), Type.Literal('miniapp')], {
    description: 'miniapp = signed in with LINE inside the LINE mini-app',
  }),
});
export const AuditEntrySchema = Type.Object({
  id: Type.String(),
  actor: Type.String(),
  action: Type.String(),
  target: Nullable(Type.String()),
  detail: Type.Record(Type.String(), Type.Unknown()),
  ip: Nullable(Type.String()),
  createdAt: Type.String(),
});

/** A webhook endpoint as the owner's webhook screen shows it (the secret only as a hint). */
export const EndpointSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  description: Nullable(Type.String()),
  events: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
  disabledReason: Nullable(Type.String()),
  secretHint: Type.String(),
  previousSecretExpiresAt: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
