import { preparedQuery, type Db } from '../../db/db.js';
import type { PayeeAccountsTable } from '../../db/db-schema.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';

/** The active accounts, read by every uncached verify (receiver matching): SQL built once, see preparedQuery. */
const activeQuery = preparedQuery((db: Db, shopId: string) =>
  db.selectFrom('payee_accounts').selectAll().where('shop_id', '=', shopId).where('status', '=', 'ACTIVE'),
);

/** The SQL of the shop's receiving accounts (table `payee_accounts`); no other file names the table. */
export function createPayeeRepo(db: Db) {
  return {
    async get(shopId: string, id: string): Promise<PayeeAccountsTable | undefined> {
      return db.selectFrom('payee_accounts').selectAll().where('shop_id', '=', shopId).where('id', '=', id).executeTakeFirst();
    },
    /** Primary first, then oldest first. */
    async list(shopId: string): Promise<PayeeAccountsTable[]> {
      return db
        .selectFrom('payee_accounts')
        .selectAll()
        .where('shop_id', '=', shopId)
        .orderBy('is_primary', 'desc')
        .orderBy('created_at')
        .execute();
    },
    async listActive(shopId: string): Promise<PayeeAccountsTable[]> {
      return activeQuery(db, shopId);
    },
    /**
     * The shop's account (active or disabled) with this number: for a bank account at that bank, for
     * PromptPay of that kind of id (the bank code of a PromptPay entry does not make it another account).
     */
    async findSame(
      shopId: string,
      a: { kind: string; bankCode: string; proxyType: string | null; accountNumber: string },
      trx: Db = db,
    ): Promise<PayeeAccountsTable | undefined> {
      let q = trx
        .selectFrom('payee_accounts')
        .selectAll()
        .where('shop_id', '=', shopId)
        .where('kind', '=', a.kind)
        .where('account_number', '=', a.accountNumber);
      q = a.kind === 'BANK' ? q.where('bank_code', '=', a.bankCode) : q.where('proxy_type', '=', a.proxyType);
      return q.executeTakeFirst();
    },
    async count(shopId: string, trx: Db = db): Promise<number> {
      const r = await trx
        .selectFrom('payee_accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('shop_id', '=', shopId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async clearPrimary(shopId: string, trx: Db = db): Promise<void> {
      await trx.updateTable('payee_accounts').set({ is_primary: 0 }).where('shop_id', '=', shopId).execute();
    },
    async insert(row: PayeeAccountsTable, trx: Db = db): Promise<void> {
      await trx.insertInto('payee_accounts').values(row).execute();
    },
    async update(shopId: string, id: string, set: Partial<PayeeAccountsTable>, trx: Db = db): Promise<void> {
      await trx.updateTable('payee_accounts').set(set).where('shop_id', '=', shopId).where('id', '=', id).execute();
    },
    async delete(shopId: string, id: string): Promise<void> {
      await db.deleteFrom('payee_accounts').where('shop_id', '=', shopId).where('id', '=', id).execute();
    },
  };
}

/** Purge of an erased shop (housekeeping, composed in container.ts): this module's rows of the shop. */
export const purgePayeesOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['payee_accounts']);
