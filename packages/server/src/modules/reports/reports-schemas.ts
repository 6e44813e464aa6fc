import { Type } from 'typebox';
import { MoneyString, satangOf } from '../../http/common-schemas.js';
import { ListQuery } from '../transactions/transaction-schemas.js';

const amount = (description: string) => Type.Optional(MoneyString(description));

/** The range filters as the query gives them (decimal strings) to satang, once, at the route. */
export function amountRange<Q extends { amountMin?: string; amountMax?: string }>(
  q: Q,
): Omit<Q, 'amountMin' | 'amountMax'> & { amountMinSatang?: number; amountMaxSatang?: number } {
  const { amountMin, amountMax, ...rest } = q;
  return { ...rest, amountMinSatang: satangOf('amountMin', amountMin), amountMaxSatang: satangOf('amountMax', amountMax) };
}
const { cursor: _cursor, limit: _limit, ...filterProps } = ListQuery.properties;

/** The dashboard list: the public filters plus an amount range (baht, inclusive) for matching an order. */
export const DashboardListQuery = Type.Object(
  {
    ...ListQuery.properties,
    amountMin: amount('smallest amount in baht'),
    amountMax: amount('largest amount in baht'),
  },
  { additionalProperties: false },
);

/** What the list's filters show, as a file. */
export const ExportQuery = Type.Object(
  {
    ...filterProps,
    amountMin: amount('smallest amount in baht'),
    amountMax: amount('largest amount in baht'),
    format: Type.Union([Type.Literal('csv'), Type.Literal('xlsx')]),
    lang: Type.Optional(
      Type.Union([Type.Literal('th'), Type.Literal('en')], { description: 'header language; the shop language when absent' }),
    ),
  },
  { additionalProperties: false },
);

/** The dashboard's download link: a relative URL holding a one-time ticket. */
export const ExportTicketSchema = Type.Object({
  url: Type.String({ description: 'GET it within expiresAt, once: the file as an attachment' }),
  expiresAt: Type.String({ description: 'ISO 8601; the ticket is single use and short-lived' }),
});
export const ExportTicketQuery = Type.Object(
  {
    shop: Type.String({ minLength: 1, maxLength: 64 }),
    ticket: Type.String({ minLength: 1, maxLength: 128 }),
  },
  { additionalProperties: false },
);

const MoneySchema = Type.Object({
  count: Type.Integer(),
  amountSatang: Type.Integer({ description: 'satang (1/100 baht), exact integer' }),
});
const MismatchSchema = Type.Object({
  count: Type.Integer(),
  amountSatang: Type.Integer(),
  differenceSatang: Type.Integer({ description: 'summed |amount - expected|, satang' }),
});
const PeriodSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  received: Type.Object(
    {
      count: Type.Integer(),
      amountSatang: Type.Integer(),
      earlier: Type.Object(
        { count: Type.Integer(), amountSatang: Type.Integer() },
        { description: "the part the bank moved before the period began (transDate): on an earlier day's statement" },
      ),
      byPayee: Type.Array(
        Type.Object({
          payeeId: Type.Union([Type.String(), Type.Null()], { description: 'null: received before the account was recorded on results' }),
          bankCode: Type.Union([Type.String(), Type.Null()]),
          kind: Type.Union([Type.String(), Type.Null()]),
          holder: Type.Union([Type.String(), Type.Null()]),
          accountLast4: Type.Union([Type.String(), Type.Null()]),
          exists: Type.Boolean(),
          count: Type.Integer(),
          amountSatang: Type.Integer(),
        }),
      ),
      byChannel: Type.Array(Type.Object({ source: Type.String(), count: Type.Integer(), amountSatang: Type.Integer() })),
    },
    { description: 'genuine transfers into the shop accounts: verified + needsLook (equals the bank statement credits)' },
  ),
  verified: MoneySchema,
  needsLook: Type.Object({
    under: MismatchSchema,
    over: MismatchSchema,
    stale: MoneySchema,
    edited: Type.Object(
      { count: Type.Integer(), amountSatang: Type.Integer() },
      { description: 'edited slips (FRAUD EDITED_SLIP) whose real transfer reached a shop account: the bank amount' },
    ),
  }),
  stopped: Type.Object({
    duplicate: MoneySchema,
    forged: Type.Object(
      { count: Type.Integer(), amountSatang: Type.Integer() },
      { description: 'forged slips; for an edited slip, the printed amount the bank did not transfer' },
    ),
    receiverMismatch: MoneySchema,
  }),
});
export const TotalsSchema = Type.Object({
  timeZone: Type.String(),
  periods: Type.Object({ today: PeriodSchema, week: PeriodSchema, month: PeriodSchema }),
});

export const SummarySettingsSchema = Type.Object({
  enabled: Type.Boolean(),
  time: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, business time zone' }),
  line: Type.Boolean({ description: "push to the owner's linked LINE users" }),
  email: Type.Boolean({ description: 'e-mail the owner' }),
  sendEmpty: Type.Boolean({ description: 'also on days with no results' }),
});
export const SummarySettingsPatch = Type.Partial(SummarySettingsSchema, { additionalProperties: false });
