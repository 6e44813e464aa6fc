import { Type } from 'typebox';
import { Nullable } from '../../http/common-schemas.js';

export const AuditEntrySchema = Type.Object({
  id: Type.String(),
  actor: Type.String(),
  action: Type.String(),
  target: Nullable(Type.String()),
  detail: Type.Record(Type.String(), Type.Unknown()),
  ip: Nullable(Type.String()),
  createdAt: Type.String(),
});
