import { sql } from 'kysely';
import { preparedQuery, preparedRowQuery, type Db } from '../../db/db.js';
import type { TransactionsTable } from '../../db/db-schema.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';

/** One record by id within its shop: every cached replay and every webhook reads one (SQL built once, see preparedQuery). */
const byIdQuery = preparedQuery((db: Db, shopId: string, id: string) =>
  db.selectFrom('transactions').selectAll().where('shop_id', '=', shopId).where('id', '=', id),
);

/** A new record: every verify writes one (SQL built once, see preparedRowQuery). */
const insertQuery = preparedRowQuery((db: Db, row: TransactionsTable) => db.insertInto('transactions').values(row));

/** Filters of a page, already in stored form (satang, ISO instants, split lists). */
export interface TransactionQuery {
  statuses?: string[];
  sources?: string[];
  transRef?: string;
  clientRef?: string;
  environment?: string;
  fromIso?: string;
  toIso?: string;
  amountMinSatang?: number;
  amountMaxSatang?: number;
  /** (createdAt, id) of the last row of the previous page. */
  after?: { createdAt: string; id: string };
  limit: number;
}

// A transfer's first SUCCESS is tracked per key environment (migration 0006): a test check never
// turns a later live check into DUPLICATE. Hot (every check asks it): built once per database.
/**
 * What a later DUPLICATE of a verified transfer repeats from its SUCCESS: which record and when it was
 * recorded, and the bank's data of the transfer (amount, sender, receiver, bank time), so the answer
 * says which payment the slip re-uses without asking the checker again.
 */
const FIRST_SUCCESS_FIELDS = [
  'id',
  'created_at',
  'amount_satang',
  'bank_code',
  'bank_name',
  'sender_name',
  'sender_account',
  'receiver_name',
  'receiver_account',
  'trans_date',
] as const;
export type FirstSuccess = Pick<TransactionsTable, (typeof FIRST_SUCCESS_FIELDS)[number]>;

/**
 * The SUCCESS a transfer has in the whole service: whether it is this shop's, when it was recorded, and
 * (for the pipeline only, never for an answer) the holding shop and the payee account it matched.
 */
export interface SuccessHolder {
  sameShop: boolean;
  createdAt: string;
  shopId: string;
  payeeId: string | null;
}

const succeededQuery = preparedQuery((db: Db, shopId: string, environment: string, transRef: string) =>
  db
    .selectFrom('transactions')
    .select(FIRST_SUCCESS_FIELDS)
    .where('shop_id', '=', shopId)
    .where('environment', '=', environment)
    .where('success_ref', '=', transRef)
    .limit(1),
);

/**
 * What this shop already knows of a transfer, for a new check of it: its SUCCESS, else a charged
 * DUPLICATE. A charged DUPLICATE in a shop with no SUCCESS of the transfer is the bank's word that this
 * shop's account received it while another shop receiving into the same account holds its SUCCESS
 * (a SUCCESS verdict refused by the one-per-transfer index at commit): asking the bank again would
 * only charge again for the same answer. Both through the (shop_id, trans_ref) index.
 */
const knownTransferQuery = preparedQuery((db: Db, shopId: string, environment: string, transRef: string) =>
  db
    .selectFrom('transactions')
    .select([...FIRST_SUCCESS_FIELDS, 'success_ref', 'payee_id'])
    .where('shop_id', '=', shopId)
    .where('environment', '=', environment)
    .where('trans_ref', '=', transRef)
    .where((eb) => eb.or([eb('success_ref', 'is not', null), eb.and([eb('status', '=', 'DUPLICATE'), eb('charged', '=', 1)])])),
);

/**
 * Data access of the transactions module: the only place that names the `transactions` table.
 */

/**
 * A record whose transfer reached the shop (reports-totals.ts: SUCCESS, AMOUNT_MISMATCH, a stale slip
 * refused outright, an edited slip into a payee account). One transfer can have several: a mismatch
 * corrected by a second check with the right amount (the checker is asked again when the first result
 * was not SUCCESS), or one slip tried for two orders that both mismatched. The bank credited it once,
 * so the money view counts only its last word: its SUCCESS when there is one, else its latest such
 * record; the earlier ones are in no received figure (a bank statement has one line for it).
 */
const receivedKind = (t: 'transactions' | 'later') =>
  sql.raw(
    `(${t}.trans_ref is not null and (${t}.status in ('SUCCESS', 'AMOUNT_MISMATCH') or (${t}.status = 'INVALID' and ${t}.error_code = 'STALE_SLIP') or (${t}.status = 'FRAUD' and ${t}.error_code = 'EDITED_SLIP' and ${t}.payee_id is not null)))`,
  );

/**
 * 1 for a received record that is not its transfer's last word (see receivedKind): counted in no
 * received figure. Its SUCCESS when there is one, else its latest received record carries the money.
 */
const supersededKind = () => sql<number>`case when ${receivedKind('transactions')} and exists (
    select 1 from transactions as later
    where later.shop_id = transactions.shop_id and later.environment = transactions.environment
      and later.trans_ref = transactions.trans_ref and later.id <> transactions.id and ${receivedKind('later')}
      and (later.status = 'SUCCESS' or (transactions.status <> 'SUCCESS' and (later.created_at > transactions.created_at
        or (later.created_at = transactions.created_at and later.id > transactions.id))))) then 1 else 0 end`;

export function createTransactionRepo(db: Db) {
  return {
    /** Newest first. */
    page(shopId: string, f: TransactionQuery): Promise<TransactionsTable[]> {
      let q = db.selectFrom('transactions').selectAll().where('shop_id', '=', shopId);
      if (f.statuses) q = q.where('status', 'in', f.statuses);
      if (f.sources) q = q.where('source', 'in', f.sources);
      if (f.transRef) q = q.where('trans_ref', '=', f.transRef);
      if (f.clientRef) q = q.where('client_ref', '=', f.clientRef);
      if (f.environment) q = q.where('environment', '=', f.environment);
      if (f.fromIso) q = q.where('created_at', '>=', f.fromIso);
      if (f.toIso) q = q.where('created_at', '<=', f.toIso);
      if (f.amountMinSatang !== undefined) q = q.where('amount_satang', '>=', f.amountMinSatang);
      if (f.amountMaxSatang !== undefined) q = q.where('amount_satang', '<=', f.amountMaxSatang);
      const after = f.after;
      if (after) {
        // The plain `<=` lets the (shop_id, created_at, id) index seek to the cursor; with the OR alone
        // both stores scanned from the newest row on every page (an export of 100,000 rows went quadratic).
        q = q
          .where('created_at', '<=', after.createdAt)
          .where((eb) =>
            eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]),
          );
      }
      return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
    },
    async byId(shopId: string, id: string): Promise<TransactionsTable | undefined> {
      return (await byIdQuery(db, shopId, id))[0];
    },
    /** Oldest first, after the row `lastId` in (createdAt, id) order; empty when `lastId` is unknown. */
    async after(shopId: string, lastId: string, limit: number): Promise<TransactionsTable[]> {
      const anchor = await db
        .selectFrom('transactions')
        .select(['created_at', 'id'])
        .where('shop_id', '=', shopId)
        .where('id', '=', lastId)
        .executeTakeFirst();
      if (!anchor) return [];
      return db
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
    },
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
    /** Inside the verify pipeline's transaction (record, claim, quota and outbox commit together). */
    async insert(trx: Db, row: TransactionsTable): Promise<void> {
      await insertQuery(trx, row);
    },
    /**
     * When the transfer's SUCCESS in this key environment was recorded, and whether by this shop, or null.
     * The one read not scoped to a shop: a transfer settles one order across the service (migration
     * 0020), and a shop whose own check of it lost to another shop's is told when, never which shop.
     */
    async successHolder(shopId: string, environment: string, transRef: string): Promise<SuccessHolder | null> {
      const r = await db
        .selectFrom('transactions')
        .select(['shop_id', 'created_at', 'payee_id'])
        .where('environment', '=', environment)
        .where('success_ref', '=', transRef)
        .executeTakeFirst();
      return r ? { sameShop: r.shop_id === shopId, createdAt: r.created_at, shopId: r.shop_id, payeeId: r.payee_id } : null;
    },
    /**
     * For a new check of the transfer: this shop's SUCCESS of it (`elsewhere` false), else the bank's
     * data from this shop's charged DUPLICATE of it, whose SUCCESS another shop holds (`elsewhere` true),
     * or null; `payeeId`: this shop's payee account the record matched.
     */
    async knownTransfer(
      shopId: string,
      environment: string,
      transRef: string,
    ): Promise<(FirstSuccess & { elsewhere: boolean; payeeId: string | null }) | null> {
      // At most a SUCCESS and the charged DUPLICATEs of a race or two: picked here, not sorted by the database.
      const rows = await knownTransferQuery(db, shopId, environment, transRef);
      const r = rows.find((x) => x.success_ref !== null) ?? rows[0];
      if (!r) return null;
      const { success_ref, payee_id, ...first } = r;
      return { ...first, elsewhere: success_ref === null, payeeId: payee_id };
    },
    /** When this shop first checked a slip of the transfer (its earliest record of the reference), or null. */
    async firstSeen(shopId: string, transRef: string): Promise<string | null> {
      const r = await db
        .selectFrom('transactions')
        .select((eb) => eb.fn.min('created_at').as('first'))
        .where('shop_id', '=', shopId)
        .where('trans_ref', '=', transRef)
        .executeTakeFirst();
      return r?.first ? String(r.first) : null;
    },
    /** The transfer's SUCCESS record for this shop and environment (when, and the bank's data), or null. */
    async firstSuccess(shopId: string, environment: string, transRef: string): Promise<FirstSuccess | null> {
      return (await succeededQuery(db, shopId, environment, transRef))[0] ?? null;
    },
    /**
     * Live records checked in [from, to), counted and summed (integer satang) per status, error code,
     * channel, matched payee account, stale flag, whether the bank's time is before `from` and, for amount mismatches, direction (under or over
     * the expected amount, with the summed difference), with edited slips' printed amounts and the part
     * of them the bank did not transfer: the rows the reports module turns into money totals. A duplicate found from the slip's reference alone (the checker was not asked again) carries
     * its first verified check's amount; one recorded before 2026-11-27 has none, and for it the money it
     * would have cost is read from that first check of the same transfer.
     */
    async liveMoneyGroups(shopId: string, fromIso: string, toIso: string, statuses: readonly string[]) {
      const superseded = supersededKind();
      // 1 when the bank moved the money before the period began: it is on an earlier day's statement.
      // A literal, not a parameter: PostgreSQL matches the select's expression to the GROUP BY's only when
      // they are the same text, and two placeholders ($1, $5) are not. The instant is our own toISOString.
      if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(fromIso))
        throw new Error(`liveMoneyGroups: not an ISO instant: ${fromIso}`);
      const earlier = sql<number>`case when transactions.trans_date is not null and transactions.trans_date < ${sql.lit(fromIso)} then 1 else 0 end`;
      const direction = sql<
        string | null
      >`case when transactions.expected_amount_satang is null or transactions.amount_satang is null then null when transactions.amount_satang < transactions.expected_amount_satang then 'under' when transactions.amount_satang > transactions.expected_amount_satang then 'over' else null end`;
      const rows = await db
        .selectFrom('transactions')
        .select([
          'status',
          'error_code',
          'source',
          'payee_id',
          'stale',
          direction.as('direction'),
          superseded.as('superseded'),
          earlier.as('earlier'),
          (eb) => eb.fn.countAll<number>().as('n'),
          sql<number>`sum(case when transactions.status = 'DUPLICATE' and transactions.amount_satang is null then (select s.amount_satang from transactions as s where s.shop_id = transactions.shop_id and s.environment = transactions.environment and s.success_ref = transactions.trans_ref) else transactions.amount_satang end)`.as(
            's',
          ),
          sql<number>`sum(case when transactions.expected_amount_satang is null or transactions.amount_satang is null then 0 when transactions.amount_satang < transactions.expected_amount_satang then transactions.expected_amount_satang - transactions.amount_satang else transactions.amount_satang - transactions.expected_amount_satang end)`.as(
            'd',
          ),
          // Edited slips (issue 20): what the pictures printed, and how much of it the bank did not transfer.
          sql<number>`sum(coalesce(transactions.printed_amount_satang, 0))`.as('p'),
          sql<number>`sum(case when transactions.printed_amount_satang > transactions.amount_satang then transactions.printed_amount_satang - transactions.amount_satang else 0 end)`.as(
            'u',
          ),
        ])
        .where('shop_id', '=', shopId)
        .where('environment', '=', 'live')
        .where('status', 'in', [...statuses])
        .where('created_at', '>=', fromIso)
        .where('created_at', '<', toIso)
        .groupBy(['status', 'error_code', 'source', 'payee_id', 'stale', direction, superseded, earlier])
        .execute();
      // SQL SUM of an integer column is an integer on both stores; Number() only parses it (pg hands bigint as text).
      const int = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
      return rows.map((r) => ({
        status: r.status,
        errorCode: r.error_code,
        source: r.source,
        payeeId: r.payee_id,
        stale: !!Number(r.stale),
        superseded: !!Number(r.superseded),
        earlier: !!Number(r.earlier),
        direction: r.direction === 'under' || r.direction === 'over' ? r.direction : null,
        count: int(r.n),
        amountSatang: int(r.s),
        differenceSatang: int(r.d),
        printedSatang: int(r.p),
        unpaidSatang: int(r.u),
      }));
    },
    /**
     * For the export's reconciliation columns: each of these records' matched payee account, and whether
     * it is the one that carries its transfer's money in the received figures (live, received, its
     * transfer's last word: the same rule as liveMoneyGroups), so the export's credited column sums to
     * the card and each transfer is credited on one row, as on the bank statement.
     */
    async creditsOf(shopId: string, ids: readonly string[]): Promise<Map<string, { payeeId: string | null; credited: boolean }>> {
      const out = new Map<string, { payeeId: string | null; credited: boolean }>();
      if (!ids.length) return out;
      const rows = await db
        .selectFrom('transactions')
        .select([
          'id',
          'payee_id',
          // The totals' received statuses (reports-totals isReceived / isEditedIntoShop), with or without a reference.
          sql<number>`case when transactions.environment = 'live' and (transactions.status in ('SUCCESS', 'AMOUNT_MISMATCH') or (transactions.status = 'INVALID' and transactions.error_code = 'STALE_SLIP') or (transactions.status = 'FRAUD' and transactions.error_code = 'EDITED_SLIP' and transactions.payee_id is not null)) then 1 else 0 end`.as(
            'received',
          ),
          supersededKind().as('superseded'),
        ])
        .where('shop_id', '=', shopId)
        .where('id', 'in', [...ids])
        .execute();
      for (const r of rows) out.set(r.id, { payeeId: r.payee_id, credited: !!Number(r.received) && !Number(r.superseded) });
      return out;
    },
    /**
     * The received records (receivedKind) of these transfers in this shop, each with what decides its
     * transfer's last word (status, check time, id): the dashboard marks the others "replaced by a later
     * check" (supersededKind's rule). One read through the (shop_id, trans_ref) index, however many refs.
     */
    async receivedOfTransfers(
      shopId: string,
      transRefs: readonly string[],
    ): Promise<Array<{ id: string; transRef: string; environment: string; status: string; createdAt: string }>> {
      if (!transRefs.length) return [];
      const rows = await db
        .selectFrom('transactions')
        .select(['id', 'trans_ref', 'environment', 'status', 'created_at'])
        .where('shop_id', '=', shopId)
        .where('trans_ref', 'in', [...new Set(transRefs)])
        .where(sql<boolean>`${receivedKind('transactions')}`)
        .execute();
      return rows.map((r) => ({ id: r.id, transRef: r.trans_ref!, environment: r.environment, status: r.status, createdAt: r.created_at }));
    },
    /** How many live records (any status) were checked in [from, to). */
    async countLive(shopId: string, fromIso: string, toIso: string): Promise<number> {
      const r = await db
        .selectFrom('transactions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('shop_id', '=', shopId)
        .where('environment', '=', 'live')
        .where('created_at', '>=', fromIso)
        .where('created_at', '<', toIso)
        .executeTakeFirst();
      return Number(r?.n ?? 0);
    },
  };
}
export type TransactionRepo = ReturnType<typeof createTransactionRepo>;

/** Purge of an erased shop (housekeeping, composed in container.ts): this module's rows of the shop. */
export const purgeTransactionsOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['transactions']);
