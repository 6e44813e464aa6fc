import { Type } from 'typebox';
import { Nullable, QuotaSmall } from '../../http/common-schemas.js';
import { SOURCES, STATUSES } from './transaction-record.js';

const fields = {
  id: Type.String(),
  status: Type.Enum(STATUSES),
  verified: Type.Boolean({ description: 'true only when status is SUCCESS' }),
  transRef: Nullable(Type.String()),
  amount: Nullable(Type.Number()),
  bankCode: Nullable(Type.String({ description: 'sender bank code' })),
  bankName: Nullable(Type.String()),
  senderName: Nullable(Type.String()),
  senderAccount: Nullable(Type.String({ description: 'masked' })),
  receiverName: Nullable(Type.String()),
  receiverAccount: Nullable(Type.String({ description: 'masked' })),
  transDate: Nullable(Type.String({ description: 'ISO 8601 UTC bank time on the slip' })),
  errorCode: Nullable(
    Type.String({
      description:
        'why the status is what it is. INVALID: NO_QR_FOUND, NOT_SLIP_QR, BAD_CHECKSUM, UNKNOWN_BANK, UNREADABLE_IMAGE, MULTIPLE_SLIPS (slips of more than one transfer in one image; not charged), STALE_SLIP, CHECK_NOT_SUPPORTED (this kind of slip cannot be checked by the service; not charged). FRAUD: SLIP_NOT_FOUND, EDITED_SLIP (the picture prints another amount than the bank transferred), DATA_MISMATCH (older records). PROVIDER_ERROR: PROVIDER_UNAVAILABLE, SLIP_PENDING, CHECK_UNAVAILABLE (the service cannot check for now; not charged). RECEIVER_MISMATCH: RECEIVER_MISMATCH, RECEIVER_UNVERIFIED. AMOUNT_MISMATCH, DUPLICATE: their own names. New codes may be added.',
    }),
  ),
  errorMessage: Nullable(Type.String()),
  createdAt: Type.String(),
  duplicate: Type.Boolean({
    description: 'true when this transfer was already verified earlier (another image, or the same image for another amount or clientRef)',
  }),
  cached: Type.Boolean({
    description:
      'true when an identical request (same image, amount and clientRef) was made within 24 hours: the earlier record answered again, not checked or charged again',
  }),
  latencyMs: Type.Integer(),
  environment: Type.Union([Type.Literal('live'), Type.Literal('test')]),
  source: Type.Enum(SOURCES, { description: 'channel the slip came through' }),
  clientRef: Nullable(Type.String({ description: 'the integrator order id given as ?clientRef= on verify' })),
  stale: Type.Boolean({ description: 'bank time older than SLIP_STALE_MAX_AGE_HOURS (alert mode keeps SUCCESS and marks this)' }),
  printedAmount: Nullable(
    Type.Number({
      description:
        'the amount the slip picture prints, as read by the service; null when it could not be read with confidence (which proves nothing) or SLIP_EDIT_MODE is off',
    }),
  ),
  edited: Type.Boolean({
    description:
      'the picture prints another amount than the bank transferred (printedAmount differs from amount): FRAUD EDITED_SLIP, or a flagged SUCCESS when SLIP_EDIT_MODE is alert',
  }),
};

export const TransactionRecordSchema = Type.Object(fields, { $id: 'TransactionRecord' });
export const VerifyRecordSchema = Type.Object({ ...fields, quota: QuotaSmall }, { $id: 'VerifyRecord' });

export const ListQuery = Type.Object(
  {
    status: Type.Optional(
      Type.String({
        maxLength: 160,
        pattern: `^(${STATUSES.join('|')})(,(${STATUSES.join('|')}))*$`,
        description: 'one status or a comma list',
      }),
    ),
    source: Type.Optional(
      Type.String({
        maxLength: 40,
        pattern: `^(${SOURCES.join('|')})(,(${SOURCES.join('|')}))*$`,
        description: 'API, LINE or DASHBOARD (comma list allowed)',
      }),
    ),
    transRef: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    clientRef: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    environment: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')])),
    from: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.String({ format: 'date' })], {
        description: 'ISO 8601 instant, or a date (YYYY-MM-DD: from the start of that day in TIME_ZONE, Asia/Bangkok by default)',
      }),
    ),
    to: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.String({ format: 'date' })], {
        description: 'ISO 8601 instant (inclusive), or a date (through the end of that day in TIME_ZONE)',
      }),
    ),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
);
