import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/db.js';
import { createApiKeyRepo } from './api-key-repo.js';
import type { ApiKeysTable } from '../../db/db-schema.js';
import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AuditService } from '../audit/audit-service.js';
import type { Plan, PlanService } from '../plans/plan-service.js';
import type { Shop, ShopService } from '../shops/shop-service.js';

export const SCOPES = ['verify', 'read', 'webhook'] as const;
export type Scope = (typeof SCOPES)[number];
export type KeyEnvironment = 'live' | 'test';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_CHARS = 32; // 32 base62 characters ~ 190 bits
const PREFIX_CHARS = 12; // "sk_live_" + 4 characters: enough to recognise a key in a list, useless to guess it

/**
 * Keys are long random secrets, so a fast SHA-256 is the right hash: it is unguessable without the key
 * and lets the lookup be one indexed equality. (Slow hashes are for low-entropy passwords.)
 */
export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  environment: KeyEnvironment;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export const keyFromRow = (r: ApiKeysTable): ApiKeyView => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  environment: r.environment as KeyEnvironment,
  scopes: r.scopes.split(',').filter(Boolean),
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

export interface AuthenticatedKey {
  key: ApiKeyView;
  shop: Shop;
  plan: Plan;
}

function generateKey(env: KeyEnvironment): string {
  const bytes = randomBytes(SECRET_CHARS);
  let s = '';
  for (const b of bytes) s += BASE62[b % 62]; // 256 % 62 bias is negligible at this length
  return `sk_${env}_${s}`;
}

export function parseScopes(input: string | string[] | undefined): Scope[] {
  const list = (Array.isArray(input) ? input : (input ?? 'verify').split(',')).map((s) => s.trim()).filter(Boolean);
  const bad = list.filter((s) => !SCOPES.includes(s as Scope));
  if (bad.length || !list.length) throw new AppError('VALIDATION_ERROR', 400, `scopes must be a list of ${SCOPES.join(', ')}`);
  return [...new Set(list)] as Scope[];
}

export function createApiKeyService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  shops: Pick<ShopService, 'get'>;
  plans: Pick<PlanService, 'get'>;
  lastUsedFlushMs?: number;
}) {
  const { db, clock, audit } = deps;
  const repo = createApiKeyRepo(db);
  // lastUsedAt is batched in memory and written at most once per flush per key, so a busy key does
  // not turn every request into a write.
  const pendingLastUsed = new Map<string, string>();
  let timer: NodeJS.Timeout | null = null;

  async function flushLastUsed() {
    const entries = [...pendingLastUsed.entries()];
    pendingLastUsed.clear();
    for (const [id, at] of entries) await repo.update(id, { last_used_at: at });
  }

  async function assertApiAccess(shopId: string) {
    const shop = await deps.shops.get(shopId); // 404 for a missing or erased shop
    if (!(await deps.plans.get(shop.planCode)).apiAccess)
      throw new AppError('PLAN_API_ACCESS_REQUIRED', 403, 'The current plan has no REST API access; API keys need a paid plan');
  }

  async function insertKey(trx: Db, shopId: string, name: string, env: KeyEnvironment, scopes: string[]) {
    const full = generateKey(env);
    const row: ApiKeysTable = {
      id: newId('key'),
      shop_id: shopId,
      name,
      prefix: full.slice(0, PREFIX_CHARS),
      key_hash: hashApiKey(full),
      environment: env,
      scopes: scopes.join(','),
      created_at: clock.now().toISOString(),
      last_used_at: null,
      revoked_at: null,
      replaced_by: null,
    };
    await repo.insert(row, trx);
    return { key: full, view: keyFromRow(row) };
  }

  async function getRow(id: string, shopId?: string) {
    const row = await repo.get(id, shopId);
    if (!row) throw notFound('API key');
    return row;
  }

  return {
    /** Returns the full key exactly once; only its hash is stored. */
    async create(shopId: string, input: { name?: string; environment: KeyEnvironment; scopes?: string | string[] }, actor: string) {
      await assertApiAccess(shopId);
      if (input.environment !== 'live' && input.environment !== 'test')
        throw new AppError('VALIDATION_ERROR', 400, 'environment must be live or test');
      const scopes = parseScopes(input.scopes);
      const name = (input.name ?? `${input.environment} key`).trim().slice(0, 80) || `${input.environment} key`;
      return db.transaction().execute(async (trx) => {
        const created = await insertKey(trx, shopId, name, input.environment, scopes);
        await audit.record(
          {
            shopId,
            actor,
            action: 'api_key.create',
            target: created.view.id,
            detail: { prefix: created.view.prefix, environment: input.environment, scopes },
          },
          trx,
        );
        return created;
      });
    },
    async revoke(id: string, actor: string, shopId?: string): Promise<ApiKeyView> {
      const row = await getRow(id, shopId);
      const now = clock.now().toISOString();
      if (!row.revoked_at) await repo.update(id, { revoked_at: now });
      await audit.record({ shopId: row.shop_id, actor, action: 'api_key.revoke', target: id, detail: { prefix: row.prefix } });
      return keyFromRow({ ...row, revoked_at: row.revoked_at ?? now });
    },
    /** A new key with the same name, environment and scopes; the old one stops working at once. */
    async rotate(id: string, actor: string, shopId?: string) {
      const row = await getRow(id, shopId);
      if (row.revoked_at) throw new AppError('KEY_REVOKED', 409, 'A revoked key cannot be rotated; create a new key');
      await assertApiAccess(row.shop_id);
      return db.transaction().execute(async (trx) => {
        const created = await insertKey(trx, row.shop_id, row.name, row.environment as KeyEnvironment, row.scopes.split(','));
        await repo.update(id, { revoked_at: clock.now().toISOString(), replaced_by: created.view.id }, trx);
        await audit.record(
          {
            shopId: row.shop_id,
            actor,
            action: 'api_key.rotate',
            target: id,
            detail: { prefix: row.prefix, newKeyId: created.view.id, newPrefix: created.view.prefix },
          },
          trx,
        );
        return created;
      });
    },
    /** Every key of the shop stops working (erasure); inside the caller's transaction. */
    async revokeAllOfShop(shopId: string, at: string, trx: Db = db): Promise<void> {
      await repo.revokeAllOfShop(shopId, at, trx);
    },
    async list(shopId: string): Promise<ApiKeyView[]> {
      const rows = await repo.listByShop(shopId);
      return rows.map(keyFromRow);
    },
    /** One indexed lookup by hash joining shop and plan. Unknown, malformed and revoked keys all answer null. */
    async authenticate(presented: string): Promise<AuthenticatedKey | null> {
      if (!/^sk_(live|test)_[0-9A-Za-z]{16,64}$/.test(presented)) return null;
      // Read on every request, never cached: a revoke must bite at once, on every node.
      const [row] = await repo.authByHash(hashApiKey(presented));
      if (!row || row.revoked_at) return null;
      // The shop and its plan through their own modules (three indexed reads; see the README).
      const shop = await deps.shops.get(row.shop_id).catch((err: unknown) => {
        if (err instanceof AppError && err.statusCode === 404) return null; // erased shop: the key is dead
        throw err;
      });
      if (!shop) return null;
      const plan = await deps.plans.get(shop.planCode);
      const now = clock.now().toISOString();
      pendingLastUsed.set(row.id, now);
      if (!timer && deps.lastUsedFlushMs !== 0) {
        timer = setTimeout(() => {
          timer = null;
          void flushLastUsed().catch(() => undefined);
        }, deps.lastUsedFlushMs ?? 5000);
        timer.unref();
      }
      return {
        key: { ...keyFromRow(row), lastUsedAt: now },
        shop,
        plan,
      };
    },
    flushLastUsed,
    async close() {
      if (timer) clearTimeout(timer);
      timer = null;
      await flushLastUsed();
    },
  };
}
export type ApiKeyService = ReturnType<typeof createApiKeyService>;
