import { Type } from 'typebox';
import { Nullable, quotaFields } from '../../http/common-schemas.js';
import { STATUSES } from '../transactions/transaction-record.js';
import { TransactionRecordSchema } from '../transactions/transaction-schemas.js';

export const QuotaSnapshotSchema = Type.Object({ ...quotaFields, overage: Type.Integer() });
export const TestQuotaSchema = Type.Object({ used: Nullable(Type.Integer()), limit: Type.Integer(), remaining: Type.Integer() });

const byStatus = Type.Object(Object.fromEntries(STATUSES.map((s) => [s, Type.Optional(Type.Integer())])), { additionalProperties: false });
export const DailySchema = Type.Object({
  date: Type.String({ description: 'YYYY-MM-DD in the service time zone' }),
  total: Type.Integer(),
  byStatus,
});

/**
 * A result as the dashboard lists it: the public record plus `supersededBy`, the later check of the same
 * transfer that carries its money instead (the money figures count a transfer once: its SUCCESS, else its
 * latest received record). Dashboard only: the public API's record keeps its fields.
 */
export const DashboardTransactionSchema = Type.Object(
  {
    ...TransactionRecordSchema.properties,
    supersededBy: Nullable(
      Type.Object(
        { id: Type.String(), createdAt: Type.String(), status: Type.Enum(STATUSES) },
        {
          description:
            "the later check of the same transfer that replaced this one in the money figures (a corrected amount mismatch, a second try); null when this record is its transfer's last word or carries no money",
        },
      ),
    ),
  },
  { $id: 'DashboardTransaction' },
);
