import { Type } from 'typebox';
import { ErrorEnvelope, Nullable, quotaFields } from '../../http/common-schemas.js';
import { STATUSES } from '../transactions/transaction-record.js';

export const QuotaSnapshotSchema = Type.Object({ ...quotaFields, overage: Type.Integer() });
export const TestQuotaSchema = Type.Object({ used: Nullable(Type.Integer()), limit: Type.Integer(), remaining: Type.Integer() });

const byStatus = Type.Object(Object.fromEntries(STATUSES.map((s) => [s, Type.Optional(Type.Integer())])), { additionalProperties: false });
export const DailySchema = Type.Object({
  date: Type.String({ description: 'YYYY-MM-DD in the service time zone' }),
  total: Type.Integer(),
  byStatus,
});

/**
 * The check's 402: the service's envelope and, when the refused picture is another slip of a transfer
 * this shop already credited (live), that transfer's first use, so the screen warns before anyone looks
 * for the money in the bank app and hands the goods over twice.
 */
export const QuotaWallErrorSchema = Type.Object(
  {
    ...ErrorEnvelope.properties,
    firstUse: Type.Optional(
      Type.Object(
        {
          transactionId: Type.String({ description: "the transfer's SUCCESS record in this shop" }),
          amount: Nullable(Type.Number({ description: 'THB, satang as decimals' })),
          createdAt: Type.String({ description: 'when it was verified (ISO 8601 UTC)' }),
        },
        { description: 'only when the picture re-uses a transfer this shop credited; nothing was charged or recorded' },
      ),
    ),
  },
  { additionalProperties: true },
);
