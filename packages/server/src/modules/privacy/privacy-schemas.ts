import { Type, type Static } from 'typebox';
import { SessionSchema, ShopViewSchema } from '../accounts/account-schemas.js';
import { TransactionRecordSchema } from '../transactions/transaction-schemas.js';
import { ApiKeySchema } from '../api-keys/api-key-schemas.js';
import { AuditEntrySchema } from '../audit/audit-schemas.js';
import { PayeeSchema } from '../payees/payee-schemas.js';
import { EndpointSchema } from '../webhooks/webhook-schemas.js';
import { ChannelSchema, GroupSchema, OwnerSchema } from '../line/line-schemas.js';

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

/** The person's own LINE account linked to their dashboard user (sign-in with LINE). */
export const ExportLineLoginSchema = Type.Object({ lineUserId: Type.String(), linkedAt: Type.String() });

/** The shop's LINE official account as the LINE page shows it, without the webhook path (a routing key, not data). */
export const ExportLineChannelSchema = Type.Omit(ChannelSchema, ['webhookPath', 'webhookUrl', 'shopId']);

export const ExportLineSchema = Type.Object({
  channels: Type.Array(ExportLineChannelSchema, { description: 'linked official accounts; never the channel secret or token' }),
  groups: Type.Array(GroupSchema, { description: 'linked LINE groups (LINE group ids; the service stores no group names)' }),
  owners: Type.Array(OwnerSchema, { description: "LINE users who receive the owner's alerts" }),
});

/** A pending invitation (the address the owner invited); the token is never stored in the clear. */
export const ExportInviteSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  createdAt: Type.String(),
  expiresAt: Type.String(),
});

/** An e-mail the service sent: who, what, when and how it went; never the body (reset and invitation links). */
export const ExportMailSchema = Type.Object({
  to: Type.String(),
  subject: Type.String(),
  template: Type.String(),
  status: Type.String({ description: 'stored (development sink), sending, sent or failed' }),
  createdAt: Type.String(),
});

const ownerOnly = (description: string) => ({ description: `owner's export only: ${description}` });

/**
 * Two scopes. The owner (the shop's data controller) gets the shop's data (`scope: "shop"`); a staff
 * member gets their own personal data only (`scope: "person"`): the fields marked owner-only are absent.
 */
export const PrivacyExportSchema = Type.Object({
  exportedAt: Type.String(),
  scope: Type.Union([Type.Literal('shop'), Type.Literal('person')], {
    description: "shop: the owner's export of the shop; person: a staff member's own data",
  }),
  shop: Type.Optional(ExportShopSchema),
  user: ExportUserSchema,
  lineLogin: Type.Union([ExportLineLoginSchema, Type.Null()], { description: "the signed-in person's LINE sign-in link; null when none" }),
  payeeAccounts: Type.Optional(Type.Array(PayeeSchema, ownerOnly('account numbers as their last 4 digits only'))),
  apiKeys: Type.Optional(Type.Array(ExportApiKeySchema, ownerOnly('the keys, never a key or its hash'))),
  webhookEndpoints: Type.Optional(Type.Array(ExportWebhookEndpointSchema, ownerOnly('never a signing secret'))),
  line: Type.Optional(Type.Object(ExportLineSchema.properties, ownerOnly("the shop's LINE official-account links"))),
  invites: Type.Optional(Type.Array(ExportInviteSchema, ownerOnly('pending team invitations'))),
  sessions: Type.Array(ExportSessionSchema, { description: "the signed-in person's sessions" }),
  transactions: Type.Optional(Type.Array(TransactionRecordSchema, ownerOnly('every result of the shop, oldest first'))),
  auditLog: Type.Array(AuditEntrySchema, {
    description: "newest first: the shop's log for the owner, the person's own actions for a staff member",
  }),
  mails: Type.Array(ExportMailSchema, {
    description:
      "oldest first: e-mails to the person's address (the shop's, and those without a shop since the account was made); the owner's also lists the shop's invitations",
  }),
});
export type PrivacyExport = Static<typeof PrivacyExportSchema>;
