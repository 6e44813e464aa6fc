import { Type, type TSchema } from 'typebox';
import { AMOUNT_PATTERN, parseAmountToSatang } from '../lib/money.js';
import { AppError } from '../errors.js';
import { API_ERROR_CODES, ERROR_CODES, QUOTA_REASONS } from '../lib/error-codes.js';

/** The catalogue as a table in the OpenAPI document: code, HTTP status, meaning (English and Thai). */
const codeTable = [
  '| code | status | meaning | ความหมาย |',
  '|---|---|---|---|',
  ...API_ERROR_CODES.map((c) => {
    const e = ERROR_CODES[c];
    const statuses = [e.status, ...(e.alsoStatus ?? [])].join(', ');
    return `| ${c} | ${statuses} | ${e.en} | ${e.th} |`;
  }),
].join('\n');

/** Schemas shared by routes; the OpenAPI document is generated from these, so nothing else can leak. */
export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: 'HTTP status name, e.g. Forbidden' }),
    message: Type.String(),
    statusCode: Type.Integer(),
    code: Type.Enum([...API_ERROR_CODES], {
      description: `machine-readable error code. New codes may be added; treat an unknown one by its statusCode.\n\n${codeTable}`,
    }),
    path: Type.String(),
    requestId: Type.String(),
    timestamp: Type.String({ description: 'ISO 8601 with a UTC offset' }),
    quota: Type.Optional(Type.Object({ used: Type.Integer(), limit: Type.Integer(), remaining: Type.Integer() })),
    reason: Type.Optional(
      Type.String({
        description: `why, for codes with more than one cause. 402: ${QUOTA_REASONS.join(', ')} (the trial ended, the monthly quota is used up, the trial's slips are used up, a test key is over its monthly cap). INVALID_WEBHOOK_URL: what is wrong with the URL (REQUIRED, NOT_HTTPS, NOT_PUBLIC, ...).`,
      }),
    ),
  },
  { $id: 'ErrorEnvelope', additionalProperties: true },
);

/** The fields of a quota snapshot: the public GET /quota and the dashboard's overview answer them alike. */
export const quotaFields = {
  used: Type.Integer(),
  limit: Type.Integer(),
  remaining: Type.Integer({
    description: "left of the plan's limit (never below 0); checks continue past 0 through the free buffer and, where allowed, overage",
  }),
  percentUsed: Type.Integer({ description: 'percent of the limit used, at most 100 (overage in /me counts the billable slips past it)' }),
  allowOverage: Type.Boolean(),
  planCode: Type.String(),
  periodMonth: Type.String({ description: 'YYYY-MM' }),
  daysUntilReset: Type.Integer(),
};

export const QuotaSmall = Type.Object({ used: Type.Integer(), limit: Type.Integer(), remaining: Type.Integer() });

export const success = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export { Nullable };

/**
 * A check's 402 (POST /api/v1/verify, the dashboard's and mini-app's check): the service's envelope and,
 * when the refused picture is another slip of a transfer this shop already credited (in the key's
 * environment), that transfer's first use, so the POS or screen warns before anyone looks for the money
 * in the bank app and hands the goods over twice.
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
  { $id: 'QuotaWallError', additionalProperties: true },
);
/** The check routes' 402, by reference (registered beside ErrorEnvelope in app.ts): one definition in the OpenAPI document. */
export const quotaWallResponse = { 402: { $ref: 'QuotaWallError#' } };

export const errorResponses = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, { $ref: 'ErrorEnvelope#' }]));
export const API_ERRORS = [400, 401, 403, 429];

export const bearerSecurity = [{ apiKey: [] }];

/** What a money value must look like, in words: the refusal of MoneyString's pattern and of satangOf alike. */
const MONEY_WORDS = 'write THB in digits with at most two decimals, without commas, spaces or a sign (e.g. 8.20 or 1000.00)';

/** verify's clientRef: printable ASCII without spaces (it is echoed in webhooks and filtered on as given). */
export const CLIENT_REF_PATTERN = '^[\\x21-\\x7E]+$';

const PATTERN_WORDS: Readonly<Record<string, string>> = {
  [AMOUNT_PATTERN]: MONEY_WORDS,
  [CLIENT_REF_PATTERN]: 'use printable ASCII only (letters, digits and punctuation such as - _ . / #), no spaces or Thai letters',
};

/**
 * A refused pattern in words an integrator can act on: ajv's own message is the regular expression
 * (`must match pattern "^[0-9]{1,9}(\.[0-9]{1,2})?$"` for "1,000.00"). The patterns above, and every
 * list pattern `^(A|B)(,(A|B))*$` (the status and source filters); undefined for any other.
 */
export function patternWords(pattern: string): string | undefined {
  if (Object.hasOwn(PATTERN_WORDS, pattern)) return PATTERN_WORDS[pattern];
  const list = /^\^\(([\w|]+)\)\(,\(\1\)\)\*\$$/.exec(pattern);
  return list ? `must be one of ${list[1]!.split('|').join(', ')}, or several of them joined by commas (no spaces)` : undefined;
}

/**
 * A THB amount in a query string: a decimal string ("8.20", "8.2", "8"; at most two decimals, digits
 * only), never a JSON-schema number (`multipleOf: 0.01` on a float refuses 8.20). Routes turn it into
 * satang with `satangOf` and compare integers from there on.
 */
export const MoneyString = (description: string) =>
  Type.String({
    pattern: AMOUNT_PATTERN,
    description: `${description}. A decimal string in THB: digits, at most two decimals, no sign, exponent or spaces (e.g. 8.20)`,
    examples: ['8.20'],
  });

/** A validated money query value to satang; `positive` refuses zero (an expected amount of nothing). */
export function satangOf(name: string, text: string | undefined, opts: { positive?: boolean } = {}): number | undefined {
  if (text === undefined) return undefined;
  const satang = parseAmountToSatang(text);
  if (satang === null) throw new AppError('VALIDATION_ERROR', 400, `Invalid querystring field "${name}": ${MONEY_WORDS}`);
  if (opts.positive && satang === 0)
    throw new AppError('VALIDATION_ERROR', 400, `Invalid querystring field "${name}": must be more than 0`);
  return satang;
}

/**
 * The query of a route that takes none (GET /quota, /me, /transactions/:id): any parameter is 400
 * VALIDATION_ERROR, as on the routes that take some. Without a schema Fastify ignored them, so a
 * typo looked accepted on these routes and was refused on the others.
 */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/**
 * A record id in a dashboard path, of any length. Ids the service makes are short (lib/ids.ts), so a
 * longer one names no record: it reaches the owning module like any unknown id and gets that module's
 * 404, the same body as another shop's id, never a 400 that tells the shapes apart. The bound is Node's
 * head limit (414 past it, app.ts `maxParamLength`); control characters are a 400 (http/input-guard.ts).
 */
export const RecordId = Type.String({ minLength: 1 });

/** The `:id` of a dashboard route: a `RecordId`. */
export const IdParams = Type.Object({ id: RecordId });
