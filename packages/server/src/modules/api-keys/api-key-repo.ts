import { preparedQuery, type Db } from '../../db/db.js';
import type { ApiKeysTable } from '../../db/db-schema.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';

/** The key by hash: one indexed lookup on every API request, SQL built once (preparedQuery). */
const authQuery = preparedQuery((db: Db, keyHash: string) => db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash));

/** The SQL of API keys (table `api_keys`); no other file names the table. */
export function createApiKeyRepo(db: Db) {
  return {
    authByHash: (keyHash: string) => authQuery(db, keyHash),
    async get(id: string, shopId?: string): Promise<ApiKeysTable | undefined> {
      let q = db.selectFrom('api_keys').selectAll().where('id', '=', id);
      if (shopId) q = q.where('shop_id', '=', shopId);
      return q.executeTakeFirst();
    },
    async listByShop(shopId: string): Promise<ApiKeysTable[]> {
      return db.selectFrom('api_keys').selectAll().where('shop_id', '=', shopId).orderBy('created_at', 'desc').execute();
    },
    async insert(row: ApiKeysTable, trx: Db = db): Promise<void> {
      await trx.insertInto('api_keys').values(row).execute();
    },
    async update(id: string, set: Partial<ApiKeysTable>, trx: Db = db): Promise<void> {
      await trx.updateTable('api_keys').set(set).where('id', '=', id).execute();
    },
    async revokeAllOfShop(shopId: string, at: string, trx: Db = db): Promise<void> {
      await trx.updateTable('api_keys').set({ revoked_at: at }).where('shop_id', '=', shopId).where('revoked_at', 'is', null).execute();
    },
  };
}

/** Purge of an erased shop (housekeeping, composed in container.ts): this module's rows of the shop. */
export const purgeApiKeysOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['api_keys']);
