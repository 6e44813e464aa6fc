import { Type } from 'typebox';
import { Nullable } from '../../http/common-schemas.js';

/** The LINE page's views (line-dashboard-routes.ts); the privacy export names what it takes of them. */
export const ChannelSchema = Type.Object({
  id: Type.String(),
  shopId: Type.String(),
  channelId: Type.String(),
  botName: Nullable(Type.String()),
  botUserId: Nullable(Type.String()),
  webhookPath: Type.String(),
  webhookUrl: Type.String({ description: 'paste into the LINE Developers console (Messaging API > Webhook URL)' }),
  status: Type.String(),
  createdAt: Type.String(),
});
export const GroupSchema = Type.Object({
  id: Type.String(),
  lineChannelId: Type.String(),
  groupId: Type.String(),
  linkedBy: Nullable(Type.String()),
  silentNonSlip: Type.Boolean(),
  status: Type.String(),
  createdAt: Type.String(),
});
export const OwnerSchema = Type.Object({
  id: Type.String(),
  lineChannelId: Type.String(),
  lineUserId: Type.String(),
  createdAt: Type.String(),
});
