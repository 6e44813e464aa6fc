import { Type } from 'typebox';
import { Nullable } from '../../http/common-schemas.js';
import type { Shop } from '../shops/shop-service.js';
import { SINGLE_LINE_PATTERN } from '../../http/input-guard.js';

export const ShopViewSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    state: Type.Union([Type.Literal('trial'), Type.Literal('active'), Type.Literal('past_due'), Type.Literal('suspended')]),
    planCode: Type.String(),
    chosenPlanCode: Nullable(Type.String({ description: 'plan card chosen at sign-up; entitlements start after payment' })),
    trialEndsAt: Nullable(Type.String()),
    language: Type.Union([Type.Literal('th'), Type.Literal('en')]),
  },
  { $id: 'DashboardShop' },
);

export const shopView = (s: Shop) => ({
  id: s.id,
  name: s.name,
  state: s.state,
  planCode: s.planCode,
  chosenPlanCode: s.chosenPlanCode,
  trialEndsAt: s.trialEndsAt,
  language: s.language,
});

export const UserViewSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    language: Type.Union([Type.Literal('th'), Type.Literal('en')]),
    role: Type.Union([Type.Literal('owner'), Type.Literal('staff')], {
      description: 'staff cannot use owner-only actions (403 OWNER_ONLY)',
    }),
  },
  { $id: 'DashboardUser' },
);

export const AuthResultSchema = Type.Object({
  accessToken: Type.String({ description: 'JWT HS256, 15 minutes; send as Authorization: Bearer' }),
  accessTokenExpiresAt: Type.String(),
  user: UserViewSchema,
  shop: ShopViewSchema,
});

export const PlanCardSchema = Type.Object({
  code: Type.String(),
  name: Type.String(),
  monthlyLimit: Type.Integer(),
  trialDays: Type.Integer(),
  apiAccess: Type.Boolean(),
  webhooks: Type.Boolean(),
  seats: Type.Integer(),
  groups: Type.Integer(),
  messagingAccounts: Type.Integer(),
  allowOverage: Type.Boolean(),
  priceThb: Type.Number(),
});

const Email = Type.String({ minLength: 3, maxLength: 254 });
const Password = Type.String({ minLength: 1, maxLength: 200 });

export const SignupBody = Type.Object(
  {
    email: Email,
    password: Password,
    shopName: Type.String({ minLength: 1, maxLength: 120, pattern: SINGLE_LINE_PATTERN }),
    planCode: Type.String({ minLength: 1, maxLength: 32 }),
    language: Type.Optional(Type.Union([Type.Literal('th'), Type.Literal('en')])),
  },
  { additionalProperties: false },
);

export const LoginBody = Type.Object({ email: Email, password: Password }, { additionalProperties: false });
export const ResetRequestBody = Type.Object({ email: Email }, { additionalProperties: false });
export const ResetConfirmBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200 }), password: Password },
  { additionalProperties: false },
);
export const PasswordChangeBody = Type.Object({ currentPassword: Password, newPassword: Password }, { additionalProperties: false });

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
