import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { OWNER_ALERT_JOB, type OwnerAlertJob } from '../../src/modules/mail/mail-owner-alerts.js';
import { enqueueOutbox } from '../../src/outbox/outbox-repo.js';
import { DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { createDashHarness, signup } from '../dashboard/dash-helpers.js';
import { cliEnv } from '../helpers/bank-harness.js';

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`mail sink and owner alerts [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    beforeAll(async () => {
      ({ h } = await createDashHarness(kind));
    });
    afterAll(async () => h.close());

    /** Enqueues one owner.alert for the shop and runs it as the worker would, twice (a retry sends nothing more). */
    const seen = new Set<string>();
    const runAlert = async (shopId: string, payload: Omit<OwnerAlertJob, 'shopId'>) => {
      await h.c.db
        .transaction()
        .execute((trx) => enqueueOutbox(trx, { kind: OWNER_ALERT_JOB, shopId, payload: { shopId, ...payload } }, h.c.clock.now()));
      const jobs = await h.c.db
        .selectFrom('outbox')
        .selectAll()
        .where('kind', '=', OWNER_ALERT_JOB)
        .where('shop_id', '=', shopId)
        .execute();
      const job = jobs.find((j) => !seen.has(j.id))!;
      seen.add(job.id);
      const handler = h.c.outboxHandlers[OWNER_ALERT_JOB]!;
      const row = { id: job.id, kind: job.kind, shopId: job.shop_id, payload: JSON.parse(job.payload), attempts: 1 };
      await handler(row as never, { now: () => h.c.clock.now() } as never);
      await handler(row as never, { now: () => h.c.clock.now() } as never);
    };

    it('owner.alert e-mails the owner once per job, Thai first, and honours the preferences', async () => {
      const o = await signup(h, { shopName: 'ร้านแจ้งเตือน' });
      const run = (payload: Omit<OwnerAlertJob, 'shopId'>) => runAlert(o.shopId, payload);
      const alerts = async () => (await h.c.mail.list({ to: o.email })).filter((m) => m.template.startsWith('owner_alert'));
      await run({ type: 'STALE_SLIP', transactionId: 'txn_x' });
      const first = await alerts();
      expect(first).toHaveLength(1);
      expect(first[0].subject).toContain('ร้านแจ้งเตือน');
      expect(first[0].text!.indexOf('สลิป')).toBeLessThan(first[0].text!.indexOf('slip'));
      await h.c.shops.update(o.shopId, { settings: { notifications: { staleSlipAlerts: false, email: true } } }, 'test');
      await run({ type: 'STALE_SLIP', transactionId: 'txn_y' });
      await run({ type: 'QUOTA_80' });
      expect((await alerts()).map((m) => m.template).sort()).toEqual(['owner_alert_quota_80', 'owner_alert_stale_slip']);
      await h.c.shops.update(o.shopId, { settings: { notifications: { staleSlipAlerts: true, email: false } } }, 'test');
      await run({ type: 'QUOTA_100' });
      expect(await alerts()).toHaveLength(2);
    });

    it("a trial's quota alerts speak of the trial's slips, not of this month or the next", async () => {
      const o = await signup(h, { shopName: 'ร้านทดลอง' });
      const mails = async () => (await h.c.mail.list({ to: o.email })).filter((m) => m.template === 'owner_alert_quota_100');
      await runAlert(o.shopId, { type: 'QUOTA_100', detail: { used: 50, limit: 50, trial: true } });
      const [mail] = await mails();
      expect(mail.text).toContain("The trial's slip checks are used up");
      expect(mail.text).toContain('ช่วงทดลองใช้');
      expect(mail.text).not.toMatch(/next month|เดือนหน้า|this month/);
    });

    it('`slipcheck mail list --to` shows the sink to the operator', async () => {
      const o = await signup(h);
      const lines: string[] = [];
      const env = cliEnv(h);
      const code = await runCli(
        ['mail', 'list', '--to', o.email.toUpperCase()],
        { stdout: (s) => lines.push(s), stderr: (s) => lines.push(s) },
        env,
      );
      expect(code).toBe(0);
      const items = JSON.parse(lines.join('\n'));
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({ to: o.email, template: 'welcome', transport: 'sink' });
    });
  });
}
