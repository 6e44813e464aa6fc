import { sql } from 'kysely';
import type { Db } from '../../db/db.js';
import { AppError, notFound } from '../../errors.js';
import { amountToSatang, recordFromRow, type TransactionRecord } from './transaction-record.js';

export interface TransactionFilters {
  status?: string;
  source?: string;
  transRef?: string;
  clientRef?: string;
  environment?: string;
  from?: string;
  to?: string;
  /** Amount range in baht (inclusive), compared as integer satang. */
  amountMin?: number;
  amountMax?: number;
  cursor?: string;
  limit?: number;
}

interface Cursor {
  c: string;
  i: string;
}

/** Opaque to clients; it is the (createdAt, id) of the last item, so pages never skip or repeat rows. */
const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');
function decodeCursor(s: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Cursor;
    if (typeof c.c === 'string' && typeof c.i === 'string' && !Number.isNaN(Date.parse(c.c))) return c;
  } catch {
    /* fall through */
  }
  throw new AppError('INVALID_CURSOR', 400, 'cursor is not a nextCursor value returned by this endpoint');
}

export function createTransactionService(deps: { db: Db }) {
  const { db } = deps;
  return {
    async list(shopId: string, f: TransactionFilters): Promise<{ items: TransactionRecord[]; nextCursor: string | null }> {
      const limit = f.limit ?? 50;
      let q = db.selectFrom('transactions').selectAll().where('shop_id', '=', shopId);
      if (f.status) q = q.where('status', 'in', f.status.split(','));
      if (f.source) q = q.where('source', 'in', f.source.split(','));
      if (f.transRef) q = q.where('trans_ref', '=', f.transRef);
      if (f.clientRef) q = q.where('client_ref', '=', f.clientRef);
      if (f.environment) q = q.where('environment', '=', f.environment);
      if (f.from) q = q.where('created_at', '>=', new Date(f.from).toISOString());
      if (f.to) q = q.where('created_at', '<=', new Date(f.to).toISOString());
      if (f.amountMin !== undefined) q = q.where('amount_satang', '>=', amountToSatang(f.amountMin));
      if (f.amountMax !== undefined) q = q.where('amount_satang', '<=', amountToSatang(f.amountMax));
      if (f.cursor) {
        const c = decodeCursor(f.cursor);
        // The plain `<=` lets the (shop_id, created_at, id) index seek to the cursor; with the OR alone
        // both stores scanned from the newest row on every page (an export of 100,000 rows went quadratic).
        q = q
          .where('created_at', '<=', c.c)
          .where((eb) => eb.or([eb('created_at', '<', c.c), eb.and([eb('created_at', '=', c.c), eb('id', '<', c.i)])]));
      }
      const rows = await q
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute();
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
    /** Missing and another shop's id answer the same 404: the shop id is part of the lookup. */
    async get(shopId: string, id: string): Promise<TransactionRecord> {
      const row = await db.selectFrom('transactions').selectAll().where('shop_id', '=', shopId).where('id', '=', id).executeTakeFirst();
      if (!row) throw notFound('Transaction');
      return recordFromRow(row);
    },
    /**
     * The shop's records after `lastId` in (createdAt, id) order, oldest first, at most `limit` (the
     * dashboard's live stream replays what a reconnecting client missed). Empty when `lastId` is unknown.
     */
    async listAfter(shopId: string, lastId: string, limit: number): Promise<TransactionRecord[]> {
      const anchor = await db
        .selectFrom('transactions')
        .select(['created_at', 'id'])
        .where('shop_id', '=', shopId)
        .where('id', '=', lastId)
        .executeTakeFirst();
      if (!anchor) return [];
      const rows = await db
        .selectFrom('transactions')
        .selectAll()
        .where('shop_id', '=', shopId)
        .where((eb) =>
          eb.or([eb('created_at', '>', anchor.created_at), eb.and([eb('created_at', '=', anchor.created_at), eb('id', '>', anchor.id)])]),
        )
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .limit(limit)
        .execute();
      return rows.map((r) => recordFromRow(r));
    },
    /** Live records since `since` counted per UTC hour (`YYYY-MM-DDTHH`) and status: the dashboard folds them into local days. */
    async liveCountsByHour(shopId: string, since: string): Promise<Array<{ hour: string; status: string; count: number }>> {
      const hour = sql<string>`substr(created_at, 1, 13)`;
      const rows = await db
        .selectFrom('transactions')
        .select([hour.as('h'), 'status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('shop_id', '=', shopId)
        .where('environment', '=', 'live')
        .where('created_at', '>=', since)
        .groupBy([hour, 'status'])
        .execute();
      return rows.map((r) => ({ hour: r.h, status: r.status, count: Number(r.n) }));
    },
    /** Records made with an API key since `since`, counted per key and status (per-key usage of the quota period). */
    async countsByApiKey(shopId: string, since: string): Promise<Array<{ apiKeyId: string; status: string; count: number }>> {
      const rows = await db
        .selectFrom('transactions')
        .select(['api_key_id', 'status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('shop_id', '=', shopId)
        .where('api_key_id', 'is not', null)
        .where('created_at', '>=', since)
        .groupBy(['api_key_id', 'status'])
        .execute();
      return rows.map((r) => ({ apiKeyId: r.api_key_id as string, status: r.status, count: Number(r.n) }));
    },
    /** PDPA retention: blanks the personal fields of the shop's records created before `before`; returns how many. */
    async anonymizeOlderThan(shopId: string, before: string, now: string): Promise<number> {
      const r = await db
        .updateTable('transactions')
        .set({
          sender_name: null,
          sender_account: null,
          receiver_name: null,
          receiver_account: null,
          client_ref: null,
          image_hash: null,
          anonymized_at: now,
        })
        .where('shop_id', '=', shopId)
        .where('created_at', '<', before)
        .where('anonymized_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
  };
}
export type TransactionService = ReturnType<typeof createTransactionService>;
