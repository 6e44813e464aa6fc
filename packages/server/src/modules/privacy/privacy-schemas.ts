import { Type, type Static } from 'typebox';
import { SessionSchema, ShopViewSchema } from '../accounts/account-schemas.js';
import { TransactionRecordSchema } from '../transactions/transaction-schemas.js';
import { ApiKeySchema } from '../api-keys/api-key-schemas.js';
import { AuditEntrySchema } from '../audit/audit-schemas.js';
import { PayeeSchema } from '../payees/payee-schemas.js';
import { EndpointSchema } from '../webhooks/webhook-schemas.js';

/**
 * What the personal-data export holds, field by field. The response serializer keeps only the fields
 * named here, so a field a module adds to its view stays out of the export until it is listed (and the
 * privacy test fails until then: it compares a real export with this schema).
 */
const Role = Type.Union([Type.Literal('owner'), Type.Literal('staff')]);
const Language = Type.Union([Type.Literal('th'), Type.Literal('en')]);

export const ExportShopSchema = Type.Object({
  ...ShopViewSchema.properties,
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

/** A key as the keys screen shows it, without this period's usage (a figure of the screen, not stored data). */
export const ExportApiKeySchema = Type.Omit(ApiKeySchema, ['callsThisMonth', 'usage']);

/** The endpoint without `secretHint` (a fragment of the signing secret is not the owner's data). */
export const ExportWebhookEndpointSchema = Type.Omit(EndpointSchema, ['secretHint']);

/** The owner's sessions; `current` is a property of a request, not of the data. */
export const ExportSessionSchema = Type.Omit(SessionSchema, ['current']);

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
