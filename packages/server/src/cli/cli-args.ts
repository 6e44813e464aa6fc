import { parseArgs } from 'node:util';

export class UsageError extends Error {}

/**
 * Flags of one sub-command; unknown flags are a usage error, never silently ignored, and so is a word
 * left over: an unquoted value of two words (`--holder นาย สมชาย`) kept its first word and dropped the
 * rest without a word. No command takes positional arguments (sub-commands are split off before).
 */
export function flags(argv: string[], spec: Record<string, 'string' | 'boolean'>) {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(spec).map(([k, type]) => [k, { type, multiple: false }])),
      allowPositionals: false,
      strict: true,
    });
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || !v) throw new UsageError(`--${name} is required`);
  return v;
}

/**
 * A value (or, with `list`, a comma list whose every item is) one of `allowed`, as the help lists them.
 * A misspelt value is a usage error (exit 2) naming them: an export with `--status success` wrote an
 * empty file with exit 0, and `shop set-state --state weird` reached the service and exited 1 (a miss).
 */
export function oneOf(values: Record<string, unknown>, name: string, allowed: readonly string[], list = false): string | undefined {
  const v = values[name] as string | undefined;
  if (v === undefined) return undefined;
  const items = list ? v.split(',') : [v];
  if (items.some((x) => !allowed.includes(x)))
    throw new UsageError(`--${name} must be ${list ? 'a comma list of ' : 'one of '}${allowed.join(', ')}`);
  return v;
}

/** `range`: the values allowed (a page size); one outside it is a usage error, never quietly clamped. */
export function optionalInt(values: Record<string, unknown>, name: string, range?: { min: number; max: number }): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new UsageError(`--${name} must be a non-negative integer`);
  const n = Number(v);
  if (range && (n < range.min || n > range.max)) throw new UsageError(`--${name} must be an integer from ${range.min} to ${range.max}`);
  return n;
}
