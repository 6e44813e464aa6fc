import { sql } from 'kysely';
import type { Db } from '../../db/db.js';
import { deleteShopRows, type ShopPurge } from '../../db/shop-rows.js';
import type { Clock } from '../../lib/clock.js';
import { isoWithOffset } from '../../lib/period.js';
import { enqueueOutboxOnce } from '../../outbox/outbox-repo.js';
import { OWNER_ALERT_JOB } from '../mail/mail-owner-alerts.js';
import type { PayeeService } from '../payees/payee-service.js';

/**
 * A shop without an active payee account has every slip refused before it is checked
 * (NO_PAYEE_CONFIGURED), from every channel. The customer hears that the shop checks by hand; the owner
 * must hear that slips are going unchecked, or nobody does. Each refusal is counted in
 * `payee_refusals` (one row per shop, for the current local day); a scheduled task (every minute,
 * `alertDue`) turns a day's count into one `owner.alert` `NO_PAYEE_CONFIGURED` (e-mail and LINE push)
 * saying how many slips could not be checked and since when, once the first refusal is
 * `PAYEE_REFUSALS_GATHER_MS` old, so a burst of slips makes one alert with its count.
 *
 * The refusal itself writes only its counter: it enqueues nothing, so a refused request leaves the
 * outbox as it was (route-fuzz.test.ts holds every refusal to that).
 *
 * Once a day, not once a month like the quota alerts: a month's quota ending is one event, but here
 * every refused slip is a payment nobody checked, and an owner who missed one message would otherwise
 * lose a month of checks in silence. A day with no refused slip sends nothing, and adding an account
 * stops the alerts at once.
 */
export const PAYEE_REFUSALS_GATHER_MS = 60_000;

export function createPayeeRefusals(deps: { db: Db; clock: Clock; timeZone: string; payees: Pick<PayeeService, 'activeForMatching'> }) {
  const { db, clock } = deps;
  /** The local calendar day (TIME_ZONE) of an instant, YYYY-MM-DD: the owner's day, not UTC's. */
  const dayOf = (d: Date) => isoWithOffset(d, deps.timeZone).slice(0, 10);

  return {
    /** Counts one refused slip (an upsert: concurrent refusals count right on either database). */
    async record(shopId: string): Promise<void> {
      const now = clock.now();
      const at = now.toISOString();
      const day = dayOf(now);
      await db
        .insertInto('payee_refusals')
        .values({ shop_id: shopId, day, refused: 1, first_at: at, last_at: at, alerted_day: null })
        .onConflict((oc) =>
          oc.column('shop_id').doUpdateSet({
            // Another day's count starts again at one (both databases read the old row in these expressions).
            refused: sql<number>`case when payee_refusals.day = ${day} then payee_refusals.refused + 1 else 1 end`,
            first_at: sql<string>`case when payee_refusals.day = ${day} then payee_refusals.first_at else ${at} end`,
            day,
            last_at: at,
          }),
        )
        .execute();
    },

    /**
     * The scheduled task: every shop whose day of refusals has not been told and whose first refusal
     * is a gathering window old gets one owner alert with the count so far. The mark and the job go
     * in one transaction, conditional on the mark, so two nodes running it tell the owner once.
     */
    async alertDue(): Promise<number> {
      const cutoff = new Date(clock.now().getTime() - PAYEE_REFUSALS_GATHER_MS).toISOString();
      const due = await db
        .selectFrom('payee_refusals')
        .select(['shop_id', 'day'])
        .where((eb) => eb.or([eb('alerted_day', 'is', null), eb('alerted_day', '<>', eb.ref('day'))]))
        .where('first_at', '<=', cutoff)
        .execute();
      let sent = 0;
      for (const { shop_id: shopId, day } of due) {
        // Added an account meanwhile: the slips that follow are checked; the day is marked, nothing said.
        const fixed = (await deps.payees.activeForMatching(shopId)).length > 0;
        await db.transaction().execute(async (trx) => {
          const row = await trx
            .updateTable('payee_refusals')
            .set({ alerted_day: day })
            .where('shop_id', '=', shopId)
            .where('day', '=', day)
            .where((eb) => eb.or([eb('alerted_day', 'is', null), eb('alerted_day', '<>', day)]))
            .returning(['refused', 'first_at'])
            .executeTakeFirst();
          if (!row || fixed) return;
          const id = await enqueueOutboxOnce(
            trx,
            {
              kind: OWNER_ALERT_JOB,
              shopId,
              payload: { type: 'NO_PAYEE_CONFIGURED', shopId, detail: { refused: Number(row.refused), since: row.first_at, day } },
              dedupeKey: `${OWNER_ALERT_JOB}:NO_PAYEE_CONFIGURED:${shopId}:${day}`,
            },
            clock.now(),
          );
          if (id) sent++;
        });
      }
      return sent;
    },
  };
}
export type PayeeRefusals = ReturnType<typeof createPayeeRefusals>;

/** Purge of an erased shop (housekeeping, composed in container.ts). */
export const purgePayeeRefusalsOfShop: ShopPurge = (trx, shopId) => deleteShopRows(trx, shopId, ['payee_refusals']);
