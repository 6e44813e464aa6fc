import fs from 'node:fs';
import { PassThrough, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { TRANSACTION_SOURCES, TRANSACTION_STATUSES } from '@slipcheck/sdk';
import { flags, oneOf, required, UsageError } from '../../cli/cli-args.js';
import type { ModuleCommand } from '../../cli/cli-command.js';
import type { ReportsModule } from './reports-module.js';
import { dayRange } from './reports-time.js';

export const REPORTS_USAGE = `  transactions export --shop ID --format csv|xlsx [--from DAY|ISO] [--to DAY|ISO] [--out FILE] [--lang th|en]
                      [--status S[,S]] [--source API|LINE|DASHBOARD] [--client-ref REF] [--environment live|test]
                                             (DAY = YYYY-MM-DD in Bangkok time, --to inclusive; the file goes to --out or stdout)`;

/**
 * True when the YYYY-MM-DD at the start of `v` is a day of the calendar. Date arithmetic rolls
 * 2026-11-31 over to 1 December and 2026-13-01 into the next year (or nothing matched at all), so
 * an impossible day exported the wrong rows, or none, with exit 0.
 */
function isCalendarDay(v: string): boolean {
  const [y, m, d] = v.slice(0, 10).split('-').map(Number);
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** A Bangkok calendar day or an ISO date-time; `end` takes the last millisecond of a day. */
function instant(v: string | undefined, timeZone: string, end: boolean): string | undefined {
  if (v === undefined) return undefined;
  const name = `--${end ? 'to' : 'from'}`;
  if (/^\d{4}-\d{2}-\d{2}(T|$)/.test(v) && !isCalendarDay(v)) throw new UsageError(`${name} ${v}: no such day in the calendar`);
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) {
    const r = dayRange(v, timeZone);
    return end ? new Date(r.to.getTime() - 1).toISOString() : r.from.toISOString();
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(v) || Number.isNaN(Date.parse(v)))
    throw new UsageError(`${name} must be YYYY-MM-DD or an ISO 8601 date-time`);
  return new Date(v).toISOString();
}

/** What the export command uses, filled by cli.ts from the container. */
export interface ReportsCliDeps {
  reports: Pick<ReportsModule, 'prepareExport' | 'writeExport'>;
  /** TIME_ZONE: the zone of a --from/--to calendar day. */
  timeZone: string;
}

/**
 * The export's stdout. An XLSX export ends its destination and waits for it to close, which
 * process.stdout never does (the CLI exited 13 with its top-level promise pending), so the file goes
 * through a stream that closes, piped on to stdout. A reader that stops early (`| head`) makes stdout
 * fail with EPIPE: the export stops there, quietly.
 */
function toStdout() {
  const sink = new PassThrough();
  let left = false;
  process.stdout.once('error', (err: NodeJS.ErrnoException) => {
    left = err.code === 'EPIPE';
    sink.destroy(left ? undefined : err);
  });
  sink.pipe(process.stdout, { end: false });
  return { sink, readerLeft: () => left };
}

/** Operators' export: the same file as the dashboard's, the same audit event (actor operator:cli). */
export const exportCommand: ModuleCommand<ReportsCliDeps> = {
  usage: REPORTS_USAGE,
  print: false,
  run: async ({ reports, timeZone }, argv, out) => {
    const { values } = flags(argv, {
      shop: 'string',
      format: 'string',
      from: 'string',
      to: 'string',
      out: 'string',
      lang: 'string',
      status: 'string',
      source: 'string',
      'client-ref': 'string',
      environment: 'string',
    });
    const shopId = required(values, 'shop');
    const format = required(values, 'format');
    if (format !== 'csv' && format !== 'xlsx') throw new UsageError('--format must be csv or xlsx');
    const lang = values.lang as string | undefined;
    if (lang !== undefined && lang !== 'th' && lang !== 'en') throw new UsageError('--lang must be th or en');
    const filters = {
      from: instant(values.from as string | undefined, timeZone, false),
      to: instant(values.to as string | undefined, timeZone, true),
      status: oneOf(values, 'status', TRANSACTION_STATUSES, true),
      source: oneOf(values, 'source', TRANSACTION_SOURCES, true),
      clientRef: values['client-ref'] as string | undefined,
      environment: oneOf(values, 'environment', ['live', 'test'], false),
    };
    const options = await reports.prepareExport(shopId, filters, format, lang, 'operator:cli');
    const file = values.out as string | undefined;
    const stdout = file ? undefined : toStdout();
    const sink: Writable = file ? fs.createWriteStream(file) : stdout!.sink;
    let rows: number;
    try {
      rows = await reports.writeExport(shopId, filters, options, sink);
      if (!sink.writableEnded) sink.end();
      await finished(sink);
    } catch (err) {
      // `| head` read what it wanted and left: the end of the output, not a failure.
      if (stdout?.readerLeft()) return;
      throw err;
    }
    out.stderr(JSON.stringify({ exported: rows, format, file: file ?? '(stdout)' }));
  },
};
