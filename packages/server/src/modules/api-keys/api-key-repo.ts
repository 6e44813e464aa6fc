import { preparedQuery, type Db } from '../../db/db.js';
import type { ApiKeysTable } from '../../db/db-schema.js';

/**
 * The key with its shop and plan, by hash: one indexed lookup, SQL built once (preparedQuery). The
 * one place this module names other modules' tables (shops, plans): it runs on every API request, and
 * one read is cheaper than three; the rows are mapped by the shops and plans modules' own mappers.
 */
const authQuery = preparedQuery((db: Db, keyHash: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('shops', 'shops.id', 'api_keys.shop_id')
    .innerJoin('plans', 'plans.code', 'shops.plan_code')
    .selectAll('api_keys')
    .select([
      'shops.id as s_id',
      'shops.name as s_name',
      'shops.state as s_state',
      'shops.plan_code as s_plan_code',
      'shops.chosen_plan_code as s_chosen',
      'shops.trial_ends_at as s_trial',
      'shops.language as s_lang',
      'shops.settings as s_settings',
      'shops.created_at as s_created',
      'shops.deleted_at as s_deleted',
    ])
    .select([
      'plans.code as p_code',
      'plans.name as p_name',
      'plans.monthly_limit as p_limit',
      'plans.trial_days as p_trial_days',
      'plans.api_access as p_api',
      'plans.webhooks as p_webhooks',
      'plans.seats as p_seats',
      'plans.groups as p_groups',
      'plans.messaging_accounts as p_msg',
      'plans.allow_overage as p_overage',
      'plans.free_buffer as p_buffer',
      'plans.monthly_cap as p_cap',
      'plans.hard_block_multiple as p_block',
      'plans.price_thb as p_price',
      'plans.overage_price_satang as p_oprice',
      'plans.updated_at as p_updated',
    ])
    .where('api_keys.key_hash', '=', keyHash),
);

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
