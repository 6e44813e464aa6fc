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
  };
}
export type TransactionService = ReturnType<typeof createTransactionService>;
