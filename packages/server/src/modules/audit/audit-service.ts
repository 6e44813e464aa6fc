import type { Db } from '../../db/db.js';
import { newId } from '../../lib/ids.js';
import { deleteInBatches } from '../../db/batched-delete.js';
import { createAuditRepo } from './audit-repo.js';
import type { Clock } from '../../lib/clock.js';
import type { AuditLogTable } from '../../db/db-schema.js';

export interface AuditEntry {
  shopId?: string | null;
  actor: string;
  action: string;
  target?: string | null;
  detail?: Record<string, unknown>;
  ip?: string | null;
}

export const AUDIT_RETENTION_DAYS = 90;

/**
 * Append-only security log. The service has no update or delete path for entries other than the
 * retention prune, and details must never hold secrets (callers pass ids and prefixes only).
 */
const entryView = (r: AuditLogTable) => ({
  id: r.id,
  actor: r.actor,
  action: r.action,
  target: r.target,
  detail: JSON.parse(r.detail),
  ip: r.ip,
  createdAt: r.created_at,
});

export function createAuditService(deps: { db: Db; clock: Clock }) {
  const { clock } = deps;
  const repo = createAuditRepo(deps.db);
  return {
    async record(e: AuditEntry, trx?: Db): Promise<void> {
      await repo.insert(
        {
          id: newId('aud'),
          shop_id: e.shopId ?? null,
          actor: e.actor,
          action: e.action,
          target: e.target ?? null,
          detail: JSON.stringify(e.detail ?? {}),
          ip: e.ip ?? null,
          created_at: clock.now().toISOString(),
        },
        trx,
      );
    },
    async list(shopId: string, limit = 100) {
      return (await repo.listByShop(shopId, limit)).map(entryView);
    },
    /** The entries of one actor (`user:<id>`): a staff member's own actions, for their data export. */
    async listByActor(shopId: string, actor: string, limit = 100) {
      return (await repo.listByActor(shopId, actor, limit)).map(entryView);
    },
    /** Retention: entries older than AUDIT_RETENTION_DAYS go, in bounded batches (`renew` between them). */
    async prune(renew?: () => Promise<void>): Promise<number> {
      const cutoff = new Date(clock.now().getTime() - AUDIT_RETENTION_DAYS * 86_400_000).toISOString();
      return deleteInBatches((limit) => repo.deleteOlderThan(cutoff, limit), renew);
    },
  };
}
export type AuditService = ReturnType<typeof createAuditService>;
