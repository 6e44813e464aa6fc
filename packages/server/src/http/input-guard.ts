import type { FastifyRequest, preValidationHookHandler } from 'fastify';
import { AppError } from '../errors.js';

/**
 * C0 control characters other than tab, LF and CR, and DEL. NUL in particular: PostgreSQL text cannot
 * hold it (the query fails, a 500) while SQLite stores it, so the two stores would disagree about the
 * same request. No field of the API or the dashboard has a use for any of these.
 */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/** Path of the first string holding a control character, or null; JSON-like values are walked (the query parser's objects have their own prototype; image buffers are skipped). */
function findControl(v: unknown, path: string, depth = 0): string | null {
  if (typeof v === 'string') return CONTROL.test(v) ? path : null;
  if (depth > 20 || v === null || typeof v !== 'object') return null;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const hit = findControl(v[i], `${path}${path ? '.' : ''}${i}`, depth + 1);
      if (hit !== null) return hit;
    }
    return null;
  }
  if (ArrayBuffer.isView(v)) return null; // a raw image body
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const hit = findControl(k, `${path}${path ? '.' : ''}${k}`, depth + 1) ?? findControl(x, `${path}${path ? '.' : ''}${k}`, depth + 1);
    if (hit !== null) return hit;
  }
  return null;
}

function refuseControl(where: string, value: unknown): void {
  const hit = findControl(value, '');
  if (hit !== null)
    throw new AppError('VALIDATION_ERROR', 400, `Invalid ${where}${hit ? ` field "${hit}"` : ''}: control characters are not allowed`);
}

/** 400 VALIDATION_ERROR for a control character anywhere in the params, query or body (see inputGuard). */
function rejectControlCharacters(req: FastifyRequest): void {
  refuseControl('params', req.params);
  refuseControl('querystring', req.query);
  refuseControl('body', req.body);
}

/**
 * Single-line display text (shop name, account holder, key name): also no line breaks (they would reach
 * e-mail subjects) and no bidirectional overrides (they can make a name read as something else).
 */
export const SINGLE_LINE_PATTERN = '^[^\\u0000-\\u001F\\u007F\\u202A-\\u202E\\u2066-\\u2069]*$';

/**
 * A numeric query value is a finite decimal written in digits: optional minus, up to 16 digits, an
 * optional fraction of up to 16 digits. Ajv's `coerceTypes` would otherwise accept anything `+value`
 * turns into a number: "Infinity", "1e309", 400 digits (both Infinity), "0x10", " 5", "" (0).
 */
const DECIMAL = /^-?\d{1,16}(\.\d{1,16})?$/;

interface SchemaLike {
  type?: unknown;
  properties?: Record<string, SchemaLike>;
  anyOf?: SchemaLike[];
  oneOf?: SchemaLike[];
}

const isNumeric = (s: SchemaLike | undefined): boolean =>
  !!s &&
  (s.type === 'integer' ||
    s.type === 'number' ||
    (Array.isArray(s.type) && s.type.some((t) => t === 'integer' || t === 'number')) ||
    [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(isNumeric));

/** Whole numbers only (limit, overlapHours): the example in a refusal must not suggest a fraction. */
const isWholeOnly = (s: SchemaLike | undefined): boolean =>
  !!s && (s.type === 'integer' || (Array.isArray(s.type) && s.type.includes('integer') && !s.type.includes('number')));

/** Numeric properties of each querystring schema (name, whole numbers only), computed once per schema object. */
const numericNames = new WeakMap<object, Array<{ name: string; whole: boolean }>>();

function numericQueryNames(schema: unknown): Array<{ name: string; whole: boolean }> {
  if (!schema || typeof schema !== 'object') return [];
  let names = numericNames.get(schema);
  if (!names) {
    const props = (schema as SchemaLike).properties ?? {};
    names = Object.keys(props)
      .filter((k) => isNumeric(props[k]))
      .map((name) => ({ name, whole: isWholeOnly(props[name]) }));
    numericNames.set(schema, names);
  }
  return names;
}

/** 400 VALIDATION_ERROR for a numeric query value not written as a decimal; reads the route's own querystring schema, so no route repeats it. */
function rejectNonDecimalNumbers(req: FastifyRequest): void {
  const names = numericQueryNames(req.routeOptions.schema?.querystring);
  if (names.length === 0) return;
  const query = (req.query ?? {}) as Record<string, unknown>;
  for (const { name, whole } of names) {
    if (!Object.prototype.hasOwnProperty.call(query, name)) continue;
    const v = query[name];
    if (typeof v !== 'string' || !DECIMAL.test(v)) {
      throw new AppError(
        'VALIDATION_ERROR',
        400,
        whole
          ? `Invalid querystring field "${name}": write a whole number in digits (for example 50)`
          : `Invalid querystring field "${name}": write a finite decimal number in digits (for example 50 or 120.50)`,
      );
    }
  }
}

/**
 * 400 VALIDATION_ERROR for a query name or value whose percent-escapes do not decode (`%FF`, a Thai
 * character cut in half `%E0%B8`, a lone `%`). The query parser keeps such a value as its literal text,
 * so `clientRef=%FF` was stored (and echoed in webhooks) as the order id "%FF", which is not what the
 * client meant. Only routes that read a query are checked, and only a query holding a `%` costs a loop.
 */
function rejectMalformedEscapes(req: FastifyRequest): void {
  if (!req.routeOptions.schema?.querystring) return;
  const at = req.url.indexOf('?');
  if (at < 0 || req.url.indexOf('%', at) < 0) return;
  for (const pair of req.url.slice(at + 1).split('&')) {
    if (!pair.includes('%')) continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const name = decodedOrNull(rawName);
    if (name === null || (eq >= 0 && decodedOrNull(pair.slice(eq + 1)) === null)) {
      const shown = (name ?? rawName).replace(/[^\x21-\x7E\u0E00-\u0E7F]/g, '').slice(0, 40);
      throw new AppError(
        'VALIDATION_ERROR',
        400,
        `Invalid querystring field "${shown}": malformed percent-encoding; encode the value as UTF-8 (encodeURIComponent, curl --data-urlencode with -G) and send again`,
      );
    }
  }
}

function decodedOrNull(raw: string): string | null {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * preValidation for every route (registered once in app.ts): the checks above, before any handler
 * reads or writes. A callback hook: neither check waits for anything, and an async hook costs every
 * request a promise and a turn of the microtask queue (issue 24: the replay path).
 */
export const inputGuard: preValidationHookHandler = (req, _reply, done) => {
  try {
    rejectMalformedEscapes(req);
    rejectControlCharacters(req);
    rejectNonDecimalNumbers(req);
  } catch (err) {
    return done(err as Error);
  }
  done();
};
