import { sql } from 'kysely';
import type { Db } from '../../db/db.js';
import type { Clock } from '../../lib/clock.js';
import { enqueueOutbox } from '../../outbox/outbox-repo.js';
import { OWNER_ALERT_JOB } from '../mail/mail-owner-alerts.js';
import type { AuditService } from '../audit/audit-service.js';
import type { ImageClaims } from '../verification/image-claims.js';

export const ERASE_GRACE_MS = 24 * 3_600_000;
export const TRIAL_ALERT_BEFORE_MS = 24 * 3_600_000;

/** Shop-scoped tables emptied when an erased shop is purged, children before parents. */
const SHOP_TABLES = [
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_endpoints',
  'user_sessions',
  'team_invites',
  'users',
  'mail_messages',
  'line_notices',
  'line_owners',
  'line_link_codes',
  'line_groups',
  'line_channels',
  'image_claims',
  'outbox',
  'transactions',
  'api_keys',
  'payee_accounts',
  'quota_usage',
] as const;

/**
 * The PDPA auto-delete rule in one place: with `settings.privacy.autoDelete`, personal fields of results
 * older than the retention (months) are blanked. Null when the shop keeps its data. Exports apply it
 * too, so a file never shows what the next hourly run would blank.
 */
export function anonymizeCutoff(settings: Record<string, unknown>, now: Date, defaultRetentionMonths: number): Date | null {
  const privacy = (settings.privacy ?? {}) as { autoDelete?: boolean; retentionMonths?: number };
  if (privacy.autoDelete !== true) return null;
  const months =
    Number.isInteger(privacy.retentionMonths) && privacy.retentionMonths! > 0 ? privacy.retentionMonths! : defaultRetentionMonths;
  const cutoff = new Date(now);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - months);
  return cutoff;
}

/**
 * Hourly upkeep run by the outbox worker: retention rules that must hold without anyone clicking.
 * Each step is idempotent, so several workers running it at once only repeat no-ops.
 */
export function createHousekeeping(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  claims: ImageClaims;
  defaultRetentionMonths: number;
}) {
  const { db, clock } = deps;
  const now = () => clock.now();

  /** Erasure: soft-deleted at request time, really deleted 24 h later. The shop row stays as an anonymous tombstone for the audit trail. */
  async function purgeErased(): Promise<number> {
    const cutoff = new Date(now().getTime() - ERASE_GRACE_MS).toISOString();
    const shops = await db
      .selectFrom('shops')
      .select('id')
      .where('deleted_at', 'is not', null)
      .where('deleted_at', '<', cutoff)
      .where('name', '!=', '(erased)')
      .execute();
    for (const { id } of shops) {
      await db.transaction().execute(async (trx) => {
        await trx
          .deleteFrom('refresh_tokens')
          .where('session_id', 'in', trx.selectFrom('user_sessions').select('id').where('shop_id', '=', id))
          .execute();
        await trx
          .deleteFrom('password_resets')
          .where('user_id', 'in', trx.selectFrom('users').select('id').where('shop_id', '=', id))
          .execute();
        for (const table of SHOP_TABLES) await sql`delete from ${sql.table(table)} where shop_id = ${id}`.execute(trx);
        await trx.updateTable('shops').set({ name: '(erased)', settings: '{}' }).where('id', '=', id).execute();
        await deps.audit.record({ shopId: id, actor: 'system', action: 'privacy.purge', target: id }, trx);
      });
    }
    return shops.length;
  }

  /** PDPA retention: shops that turned on auto-delete get personal fields of old results blanked. */
  async function anonymizeExpired(): Promise<number> {
    const shops = await db.selectFrom('shops').select(['id', 'settings']).where('deleted_at', 'is', null).execute();
    let total = 0;
    for (const s of shops) {
      const cutoff = anonymizeCutoff(JSON.parse(s.settings || '{}'), now(), deps.defaultRetentionMonths);
      if (!cutoff) continue;
      const r = await db
        .updateTable('transactions')
        .set({
          sender_name: null,
          sender_account: null,
          receiver_name: null,
          receiver_account: null,
          client_ref: null,
          image_hash: null,
          anonymized_at: now().toISOString(),
        })
        .where('shop_id', '=', s.id)
        .where('created_at', '<', cutoff.toISOString())
        .where('anonymized_at', 'is', null)
        .executeTakeFirst();
      total += Number(r.numUpdatedRows);
    }
    return total;
  }

  /** One TRIAL_ENDING alert per trial, a day before it ends. */
  async function trialEndingAlerts(): Promise<number> {
    const t = now();
    const soon = new Date(t.getTime() + TRIAL_ALERT_BEFORE_MS).toISOString();
    const shops = await db
      .selectFrom('shops')
      .select(['id', 'settings', 'trial_ends_at'])
      .where('state', '=', 'trial')
      .where('deleted_at', 'is', null)
      .where('trial_ends_at', 'is not', null)
      .where('trial_ends_at', '<=', soon)
      .where('trial_ends_at', '>', t.toISOString())
      .execute();
    let n = 0;
    for (const s of shops) {
      const settings = JSON.parse(s.settings || '{}') as Record<string, unknown>;
      if (settings.trialAlertFor === s.trial_ends_at) continue;
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('shops')
          .set({ settings: JSON.stringify({ ...settings, trialAlertFor: s.trial_ends_at }) })
          .where('id', '=', s.id)
          .execute();
        await enqueueOutbox(
          trx,
          {
            kind: OWNER_ALERT_JOB,
            shopId: s.id,
            payload: { type: 'TRIAL_ENDING', shopId: s.id, detail: { trialEndsAt: s.trial_ends_at } },
          },
          t,
        );
      });
      n++;
    }
    return n;
  }

  return {
    purgeErased,
    anonymizeExpired,
    trialEndingAlerts,
    async runAll() {
      return {
        auditPruned: await deps.audit.prune(),
        claimsPruned: await deps.claims.prune(),
        erasedPurged: await purgeErased(),
        anonymized: await anonymizeExpired(),
        trialAlerts: await trialEndingAlerts(),
      };
    },
  };
}
export type Housekeeping = ReturnType<typeof createHousekeeping>;
