import type { Db } from '../../db/db.js';
import type { TransactionsTable } from '../../db/db-schema.js';
import { AppError, notFound } from '../../errors.js';
import { dayRange } from '../../lib/period.js';
import { recordFromRow, type TransactionRecord } from './transaction-record.js';
import { createTransactionRepo } from './transaction-repo.js';

export type { FirstSuccess, SuccessHolder } from './transaction-repo.js';

export interface TransactionFilters {
  status?: string;
  source?: string;
  transRef?: string;
  clientRef?: string;
  environment?: string;
  from?: string;
  to?: string;
  /** Amount range in satang (inclusive): routes read the decimal strings into satang (http/common-schemas satangOf). */
  amountMinSatang?: number;
  amountMaxSatang?: number;
  cursor?: string;
  limit?: number;
}

/** Short keys: this JSON is the wire form of cursors clients already hold, so it stays as issued. */
interface Cursor {
  /** createdAt of the last item */
  c: string;
  /** id of the last item */
  i: string;
}

/**
 * The longest id a record can have (ids are `txn_` and 20 characters, lib/ids.ts; 64 leaves room).
 * A longer one is unknown like any other id: 404, not 400, so an id's shape reveals nothing either.
 */
const MAX_RECORD_ID_LENGTH = 64;

/** Opaque to clients; it is the (createdAt, id) of the last item, so pages never skip or repeat rows. */
const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');
function decodeCursor(raw: string): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
    if (typeof cursor.c === 'string' && typeof cursor.i === 'string' && !Number.isNaN(Date.parse(cursor.c))) return cursor;
  } catch {
    /* fall through */
  }
  throw new AppError('INVALID_CURSOR', 400, 'cursor is not a nextCursor value returned by this endpoint');
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A filter bound that is a date alone (a whole day in TIME_ZONE), not an instant. */
export const isDayBound = (v: string) => DAY.test(v);

// Two RFC 3339 forms the schema's date-time format accepts and JavaScript's Date reads as Invalid Date
// (a 500 for the caller): an offset of hours alone (+07) and a leap second (23:59:60 UTC).
const HOURS_ONLY_OFFSET = /([+-]\d{2})$/;
const LEAP_SECOND = /(T\d{2}:\d{2}:)60/i;
const LAST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * A filter's date-time as the instant it names: +07 is +07:00, a leap second the second after 23:59:59;
 * 400 VALIDATION_ERROR when it names none. The export's checks read its bounds with it too (reports).
 */
export function filterInstant(name: 'from' | 'to', v: string): Date {
  const leap = LEAP_SECOND.test(v);
  const text = (leap ? v.replace(LEAP_SECOND, '$159') : v).replace(HOURS_ONLY_OFFSET, '$1:00');
  // Past 9999 (its leap second, or 9999-12-31T23:00:00-01:00) an instant prints as +010000-..., which
  // sorts before every stored createdAt: the last millisecond of 9999 is as late as the stored text goes.
  const d = new Date(Math.min(Date.parse(text) + (leap ? 1000 : 0), LAST_INSTANT));
  if (Number.isNaN(d.getTime()))
    throw new AppError('VALIDATION_ERROR', 400, `Invalid querystring field "${name}": not an ISO 8601 instant or date`);
  return d;
}

/** The later check that carries a transfer's money instead of this record (dashboard only). */
export interface Superseder {
  id: string;
  createdAt: string;
  status: TransactionRecord['status'];
}

/**
 * `timeZone`: the business time zone. A filter's date alone (ISO 8601 too) is a whole day there, as the
 * dashboard's filters and the money view count days: `from` its first millisecond, `to` its last.
 */
export function createTransactionService(deps: { db: Db; timeZone: string }) {
  const repo = createTransactionRepo(deps.db);
  const startOf = (v: string) => (DAY.test(v) ? dayRange(v, deps.timeZone).from : filterInstant('from', v)).toISOString();
  const endOf = (v: string) => (DAY.test(v) ? new Date(dayRange(v, deps.timeZone).to.getTime() - 1) : filterInstant('to', v)).toISOString();
  return {
    async list(shopId: string, f: TransactionFilters): Promise<{ items: TransactionRecord[]; nextCursor: string | null }> {
      const limit = f.limit ?? 50;
      const cursor = f.cursor ? decodeCursor(f.cursor) : undefined;
      const fromIso = f.from ? startOf(f.from) : undefined;
      const toIso = f.to ? endOf(f.to) : undefined;
      // Swapped bounds answered an empty page, which a reconciliation job read as "no payments then";
      // refused as the export refuses them (reports-module prepareExport).
      if (fromIso && toIso && fromIso > toIso) throw new AppError('INVALID_RANGE', 400, 'from must not be after to');
      const rows = await repo.page(shopId, {
        statuses: f.status ? f.status.split(',') : undefined,
        sources: f.source ? f.source.split(',') : undefined,
        transRef: f.transRef || undefined,
        clientRef: f.clientRef || undefined,
        environment: f.environment || undefined,
        fromIso,
        toIso,
        amountMinSatang: f.amountMinSatang,
        amountMaxSatang: f.amountMaxSatang,
        after: cursor ? { createdAt: cursor.c, id: cursor.i } : undefined,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map((r) => recordFromRow(r)),
        nextCursor: rows.length > limit && last ? encodeCursor({ c: last.created_at, i: last.id }) : null,
      };
    },
    /** Every record the filters match, newest first, in pages of `batch` (exports: constant memory whatever the count). */
    async *iterate(shopId: string, f: Omit<TransactionFilters, 'cursor' | 'limit'>, batch = 1000): AsyncGenerator<TransactionRecord[]> {
      let cursor: string | undefined;
      do {
        const page = await this.list(shopId, { ...f, cursor, limit: batch });
        if (page.items.length) yield page.items;
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    },
    /**
     * Missing and another shop's id answer the same 404: the shop id is part of the lookup.
     * `cached` marks a replay (the verify pipeline answering an earlier record again).
     */
    async get(shopId: string, id: string, opts: { cached?: boolean } = {}): Promise<TransactionRecord> {
      // An id no record can have is a missing record, answered without a read (the routes take any length).
      if (id.length > MAX_RECORD_ID_LENGTH) throw notFound('Transaction');
      const row = await repo.byId(shopId, id);
      if (!row) throw notFound('Transaction');
      return recordFromRow(row, opts.cached);
    },
    /**
     * The shop's records after `lastId` in (createdAt, id) order, oldest first, at most `limit` (the
     * dashboard's live stream replays what a reconnecting client missed). Empty when `lastId` is unknown.
     */
    async listAfter(shopId: string, lastId: string, limit: number): Promise<TransactionRecord[]> {
      return (await repo.after(shopId, lastId, limit)).map((r) => recordFromRow(r));
    },
    /**
     * Per record of a page: the check that replaced it, for the received records that are not their
     * transfer's last word (a mismatch corrected by a second check, one slip tried for two orders): the
     * transfer's SUCCESS, else its latest received record, the rule of the money figures (repo
     * supersededKind), so the list marks exactly the rows the card does not count. One query per page.
     */
    async supersededBy(
      shopId: string,
      records: readonly Pick<TransactionRecord, 'id' | 'transRef' | 'environment'>[],
    ): Promise<Map<string, Superseder>> {
      const out = new Map<string, Superseder>();
      const refs = records.flatMap((r) => (r.transRef ? [r.transRef] : []));
      const received = await repo.receivedOfTransfers(shopId, refs);
      const key = (environment: string, transRef: string) => `${environment}\n${transRef}`;
      const lastWord = new Map<string, (typeof received)[number]>();
      const isReceived = new Set<string>();
      for (const r of received) {
        isReceived.add(r.id);
        const k = key(r.environment, r.transRef);
        const best = lastWord.get(k);
        const later = !best || r.createdAt > best.createdAt || (r.createdAt === best.createdAt && r.id > best.id);
        // Its SUCCESS when there is one, else its latest received record.
        if (
          !best ||
          (r.status === 'SUCCESS' && best.status !== 'SUCCESS') ||
          (later && (r.status === 'SUCCESS') === (best.status === 'SUCCESS'))
        )
          lastWord.set(k, r);
      }
      for (const r of records) {
        if (!r.transRef || !isReceived.has(r.id)) continue;
        const w = lastWord.get(key(r.environment, r.transRef));
        if (w && w.id !== r.id) out.set(r.id, { id: w.id, createdAt: w.createdAt, status: w.status as Superseder['status'] });
      }
      return out;
    },
    /** Live records since `since` counted per UTC hour (`YYYY-MM-DDTHH`) and status: the dashboard folds them into local days. */
    liveCountsByHour: repo.liveCountsByHour,
    /** Records made with an API key since `since`, counted per key and status (per-key usage of the quota period). */
    countsByApiKey: repo.countsByApiKey,
    /** PDPA retention: blanks the personal fields of the shop's records created before `before`; returns how many. */
    anonymizeOlderThan: repo.anonymizeOlderThan,
    /** Writes a new record inside the caller's transaction (the verify pipeline: record, claim, quota and outbox together). */
    insertIn: (trx: Db, row: TransactionsTable) => repo.insert(trx, row),
    /** The transfer's SUCCESS for this shop and key environment (when, and the bank's data), or null: a DUPLICATE repeats it. */
    firstSuccess: repo.firstSuccess,
    /** What a new check of the transfer repeats without asking the bank: this shop's SUCCESS, or its bank-confirmed DUPLICATE of another shop's (see the repo). */
    knownTransfer: repo.knownTransfer,
    firstSeen: repo.firstSeen,
    /** When the transfer's SUCCESS (any shop, this environment) was recorded and whether by this shop: never which shop. */
    successHolder: repo.successHolder,
    /** Live records in [from, to) of the given statuses, counted and summed in satang per status, channel, matched payee, stale flag and mismatch direction (money totals). */
    liveMoneyGroups: repo.liveMoneyGroups,
    /** How many live records were checked in [from, to). */
    countLive: repo.countLive,
    /** Per record id: its matched payee account and whether it carries its transfer's money in the received figures (exports). */
    creditsOf: repo.creditsOf,
  };
}
export type TransactionService = ReturnType<typeof createTransactionService>;
