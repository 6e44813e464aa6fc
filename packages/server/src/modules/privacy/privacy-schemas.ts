import { Type, type Static } from 'typebox';
import { Nullable } from '../../http/common-schemas.js';
import { TransactionRecordSchema } from '../transactions/transaction-schemas.js';
import { AuditEntrySchema, PayeeSchema } from '../dashboard/dashboard-schemas.js';

/**
 * What the personal-data export holds, field by field. The response serializer keeps only the fields
 * named here, so a field a module adds to its view stays out of the export until it is listed (and the
 * privacy test fails until then: it compares a real export with this schema).
 */
const Role = Type.Union([Type.Literal('owner'), Type.Literal('staff')]);
const Language = Type.Union([Type.Literal('th'), Type.Literal('en')]);

export const ExportShopSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  state: Type.Union([Type.Literal('trial'), Type.Literal('active'), Type.Literal('past_due'), Type.Literal('suspended')]),
  planCode: Type.String(),
  chosenPlanCode: Nullable(Type.String()),
  trialEndsAt: Nullable(Type.String()),
  language: Language,
  settings: Type.Record(Type.String(), Type.Unknown(), { description: 'notification and privacy preferences' }),
  createdAt: Type.String(),
});

export const ExportUserSchema = Type.Object({
  id: Type.String(),
  shopId: Type.String(),
  email: Type.String(),
  language: Language,
  role: Role,
  createdAt: Type.String(),
});

export const ExportApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'the first characters of the key; the key itself is stored only as a hash' }),
  environment: Type.Union([Type.Literal('live'), Type.Literal('test')]),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String(),
  lastUsedAt: Nullable(Type.String()),
  revokedAt: Nullable(Type.String()),
});

/** The endpoint without `secretHint` (a fragment of the signing secret is not the owner's data). */
export const ExportWebhookEndpointSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  description: Nullable(Type.String()),
  events: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
  disabledReason: Nullable(Type.String()),
  previousSecretExpiresAt: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const ExportSessionSchema = Type.Object({
  id: Type.String(),
  userAgent: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  createdAt: Type.String(),
  lastUsedAt: Type.String(),
  expiresAt: Type.String(),
  kind: Type.Union([Type.Literal('dashboard'), Type.Literal('miniapp')]),
});

export const PrivacyExportSchema = Type.Object({
  exportedAt: Type.String(),
  shop: ExportShopSchema,
  user: ExportUserSchema,
  payeeAccounts: Type.Array(PayeeSchema, { description: 'account numbers as their last 4 digits only' }),
  apiKeys: Type.Array(ExportApiKeySchema),
  webhookEndpoints: Type.Array(ExportWebhookEndpointSchema),
  sessions: Type.Array(ExportSessionSchema, { description: "the signed-in owner's sessions" }),
  transactions: Type.Array(TransactionRecordSchema, { description: 'every result of the shop, oldest first' }),
  auditLog: Type.Array(AuditEntrySchema, { description: 'newest first' }),
});
export type PrivacyExport = Static<typeof PrivacyExportSchema>;
