import { Type } from 'typebox';
import { SINGLE_LINE_PATTERN } from '../../http/input-guard.js';

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
