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

/**
 * How long one node answers a key from memory (key, shop and plan together), counted from the start
 * of the reads that loaded it: a revoke, rotation, suspension or plan change made on another node
 * bites here within this time, and on this node at once (local invalidation). The ceiling is the
 * promise in docs/architecture.md ("within one second on every node"); 0 turns the cache off.
 */
export const AUTH_CACHE_MAX_MS = 1000;
const AUTH_CACHE_ENTRIES = 10_000;

interface CachedAuth {
  row: ApiKeysTable;
  view: ApiKeyView;
  shop: Shop;
  plan: Plan;
  /** performance.now() when the first read of the load started. */
  loadedAt: number;
}

export function createApiKeyService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  shops: Pick<ShopService, 'get'> & Partial<Pick<ShopService, 'onChange'>>;
  plans: Pick<PlanService, 'get'>;
  lastUsedFlushMs?: number;
  /** Authentication cache lifetime in ms, at most AUTH_CACHE_MAX_MS (the default); 0 = read every request. */
  authCacheMs?: number;
}) {
  const { db, clock, audit } = deps;
  const repo = createApiKeyRepo(db);
  const cacheMs = Math.max(0, Math.min(AUTH_CACHE_MAX_MS, deps.authCacheMs ?? AUTH_CACHE_MAX_MS));
  const authCache = new Map<string, CachedAuth>();
  // Bumped by every invalidation: a load that was reading while a change happened answers its own
  // request but is not kept (it may have read the row from before the change).
  let generation = 0;
  const forget = (match: (c: CachedAuth) => boolean) => {
    generation++;
    for (const [hash, c] of authCache) if (match(c)) authCache.delete(hash);
  };
  const forgetKey = (id: string) => forget((c) => c.row.id === id);
  const forgetShop = (shopId: string) => forget((c) => c.row.shop_id === shopId);
  deps.shops.onChange?.(forgetShop);
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
      forgetKey(id);
      if (!row.revoked_at) await repo.update(id, { revoked_at: now });
      forgetKey(id);
      await audit.record({ shopId: row.shop_id, actor, action: 'api_key.revoke', target: id, detail: { prefix: row.prefix } });
      return keyFromRow({ ...row, revoked_at: row.revoked_at ?? now });
    },
    /** A new key with the same name, environment and scopes; the old one stops working at once. */
    async rotate(id: string, actor: string, shopId?: string) {
      const row = await getRow(id, shopId);
      if (row.revoked_at) throw new AppError('KEY_REVOKED', 409, 'A revoked key cannot be rotated; create a new key');
      await assertApiAccess(row.shop_id);
      forgetKey(id);
      const out = await db.transaction().execute(async (trx) => {
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
      forgetKey(id);
      return out;
    },
    /** Every key of the shop stops working (erasure); inside the caller's transaction. */
    async revokeAllOfShop(shopId: string, at: string, trx: Db = db): Promise<void> {
      forgetShop(shopId);
      await repo.revokeAllOfShop(shopId, at, trx);
      forgetShop(shopId);
    },
    async list(shopId: string): Promise<ApiKeyView[]> {
      const rows = await repo.listByShop(shopId);
      return rows.map(keyFromRow);
    },
    /**
     * The key, its shop and its plan: three indexed reads through their modules, kept in memory for
     * at most `cacheMs` (see AUTH_CACHE_MAX_MS). Unknown, malformed and revoked keys all answer null
     * and are never kept (an unknown key costs its reads every time, and fills no memory).
     */
    async authenticate(presented: string): Promise<AuthenticatedKey | null> {
      if (!/^sk_(live|test)_[0-9A-Za-z]{16,64}$/.test(presented)) return null;
      const hash = hashApiKey(presented);
      const started = performance.now();
      let hit = cacheMs > 0 ? authCache.get(hash) : undefined;
      if (hit && started - hit.loadedAt >= cacheMs) {
        authCache.delete(hash);
        hit = undefined;
      }
      if (!hit) {
        const gen = generation;
        const [row] = await repo.authByHash(hash);
        if (!row || row.revoked_at) return null;
        // The shop and its plan through their own modules (see the README).
        const shop = await deps.shops.get(row.shop_id).catch((err: unknown) => {
          if (err instanceof AppError && err.statusCode === 404) return null; // erased shop: the key is dead
          throw err;
        });
        if (!shop) return null;
        const plan = await deps.plans.get(shop.planCode);
        hit = { row, view: keyFromRow(row), shop, plan, loadedAt: started };
        if (cacheMs > 0 && gen === generation) {
          if (authCache.size >= AUTH_CACHE_ENTRIES) authCache.delete(authCache.keys().next().value!);
          authCache.set(hash, hit);
        }
      }
      const now = clock.now().toISOString();
      pendingLastUsed.set(hit.row.id, now);
      if (!timer && deps.lastUsedFlushMs !== 0) {
        timer = setTimeout(() => {
          timer = null;
          void flushLastUsed().catch(() => undefined);
        }, deps.lastUsedFlushMs ?? 5000);
        timer.unref();
      }
      return { key: { ...hit.view, lastUsedAt: now }, shop: hit.shop, plan: hit.plan };
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
