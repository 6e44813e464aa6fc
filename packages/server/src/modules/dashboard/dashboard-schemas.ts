import { Type } from 'typebox';
import { Nullable, quotaFields } from '../../http/common-schemas.js';
import { STATUSES } from '../transactions/transaction-record.js';

export const QuotaSnapshotSchema = Type.Object({ ...quotaFields, overage: Type.Integer() });
export const TestQuotaSchema = Type.Object({ used: Nullable(Type.Integer()), limit: Type.Integer(), remaining: Type.Integer() });

const byStatus = Type.Object(Object.fromEntries(STATUSES.map((s) => [s, Type.Optional(Type.Integer())])), { additionalProperties: false });
export const DailySchema = Type.Object({
  date: Type.String({ description: 'YYYY-MM-DD in the service time zone' }),
  total: Type.Integer(),
  byStatus,
});
