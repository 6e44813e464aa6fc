import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboxWorker } from '../../src/outbox/outbox-worker.js';
import { signup } from '../dashboard/dash-helpers.js';
import { DB_KINDS, pgMissing, skipNote } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { imageMessage, textMessage, type Sent } from '../line/fake-line-platform.js';
import { chatHelpers, startLineKit, type LineKit } from '../line/line-test-kit.js';

// A shop without an active payee account has every slip refused before checking (NO_PAYEE_CONFIGURED).
// The owner must hear it: once a day, whichever channel the slips came from, by e-mail (the dev mail
// sink) and LINE push to linked owners (the fake LINE platform), with the count and the Payees link.
// Real parts: the sandbox bank, the fake LINE platform on loopback, the container's outbox handlers.
const textOf = (m: Sent | undefined) => (m?.body.messages ?? []).map((x) => x.text ?? x.altText ?? '').join('\n');
const GATHER_MS = 61_000;

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`owner alert: slips refused for want of a payee account [${kind}]${skipNote(kind)}`, () => {
    let k: LineKit;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    let worker: ReturnType<typeof createOutboxWorker>;
    const { ev, user, upload } = chatHelpers(() => k, `np-${kind}`, 'Ucust-np');

    /** Every due job through the container's handlers (LINE events, scheduled tasks, owner.alert with e-mail). */
    const drainAll = async () => {
      for (let i = 0; i < 20; i++) if (!(await worker.runOnce())) break;
    };
    /** The worker's clock look: queues the scheduled tasks of a new slot (the alert task runs every minute), then runs them. */
    const tick = async () => {
      await k.h.c.scheduler.tick();
      await drainAll();
    };
    /** A minute later (the alert's gathering window), as the worker would see it. */
    const minuteLater = async () => {
      k.clock.advance(GATHER_MS);
      await tick();
    };

    /** A signed-up owner (e-mail), a linked LINE channel and the owner's LINE user linked for alerts. */
    async function shopWithOwner(ownerLineUser: string, opts: { payee?: boolean } = {}) {
      const owner = await signup(k.h);
      await k.h.c.shops.setPlan(owner.shopId, 'STARTER', 'test'); // out of the trial: API keys need a paid plan
      if (opts.payee)
        await k.h.c.payees.add(owner.shopId, { bankCode: '004', accountNumber: '1234566609', holder: 'บจก. ร้านกาแฟ ทดสอบ' }, 'test');
      const fc = k.fake.addChannel();
      const view = await k.h.c.line.channels.link(
        owner.shopId,
        { channelId: String(1_700_000_000 + Math.floor(Math.random() * 99_999_999)), channelSecret: fc.secret, accessToken: fc.token },
        'test',
      );
      const post = async (...events: unknown[]) => {
        const r = await k.fake.deliver(`${k.base}${view.webhookPath}`, fc.secret, { destination: fc.botUserId, events });
        expect(r.status).toBe(200);
        await drainAll();
      };
      const code = await k.h.c.line.linkCodes.create(owner.shopId, 'test');
      await post(ev('message', user(ownerLineUser), textMessage(code.code)));
      const key = (await k.h.c.apiKeys.create(owner.shopId, { environment: 'live', scopes: 'verify,read' }, 'test')).key;
      const slip = async () => bank.slip((await bank.register()).transRef);
      return {
        owner,
        fc,
        post,
        slip,
        viaLine: async (customer: string) => post(ev('message', user(customer), imageMessage(upload(await slip())))),
        viaDashboard: async () =>
          k.h.app.inject({
            method: 'POST',
            url: '/api/dashboard/verify',
            headers: { ...owner.auth, 'content-type': 'image/png' },
            payload: await slip(),
          }),
        viaApi: async () =>
          k.h.app.inject({
            method: 'POST',
            url: '/api/v1/verify',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
            payload: await slip(),
          }),
      };
    }
    const jobs = async (shopId: string, kindName: string) =>
      (await k.h.c.db.selectFrom('outbox').select('payload').where('kind', '=', kindName).where('shop_id', '=', shopId).execute()).map(
        (r) => JSON.parse(r.payload) as { type?: string; detail?: Record<string, unknown> },
      );
    const noPayeeAlerts = async (shopId: string) => (await jobs(shopId, 'owner.alert')).filter((p) => p.type === 'NO_PAYEE_CONFIGURED');
    const noPayeeMails = async (email: string) =>
      (await k.h.c.mail.list({ to: email })).filter((m) => m.template === 'owner_alert_no_payee_configured');

    beforeAll(async () => {
      bank = await startSandbox();
      k = await startLineKit(kind, { CHECKER_URL: bank.url, DECODE_THREADS: '1', WEBHOOK_ALLOW_PRIVATE: 'true' });
      worker = createOutboxWorker({ db: k.h.c.db, caps: k.h.c.caps, clock: k.h.c.clock, handlers: k.h.c.outboxHandlers, maxAttempts: 3 });
    });
    afterAll(async () => {
      await worker?.stop({ timeoutMs: 1000 });
      await k?.close();
      await bank?.close();
    });

    it('a burst of refused slips from LINE, the dashboard and the API makes one alert, by e-mail and LINE push, with the count and the Payees link; again the next day', async () => {
      const s = await shopWithOwner('Uowner-np1');
      await s.viaLine('Ucust-np1');
      expect((await s.viaDashboard()).json()).toMatchObject({ code: 'NO_PAYEE_CONFIGURED' });
      expect((await s.viaApi()).json()).toMatchObject({ code: 'NO_PAYEE_CONFIGURED' });
      // The owner is told once the burst has had its minute, not per slip.
      await tick();
      expect(await noPayeeAlerts(s.owner.shopId)).toHaveLength(0);

      await minuteLater();
      const alerts = await noPayeeAlerts(s.owner.shopId);
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.detail).toMatchObject({ refused: 3, since: expect.any(String) });

      const mails = await noPayeeMails(s.owner.email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).not.toContain('NO_PAYEE_CONFIGURED');
      expect(mails[0]!.text).toContain('มีสลิป 3 ใบที่ยังไม่ได้ตรวจ');
      expect(mails[0]!.text).toContain('3 slips were not checked since');
      expect(mails[0]!.text).toContain(`${k.base}/payees`);

      const pushed = k.fake.sentTo('Uowner-np1').filter((p) => textOf(p).includes('บัญชีรับเงิน'));
      expect(pushed).toHaveLength(1);
      expect(textOf(pushed[0])).toContain('มีสลิป 3 ใบที่ยังไม่ได้ตรวจ');
      expect(textOf(pushed[0])).toContain(`${k.base}/payees`);
      expect(pushed[0]!.token).toBe(s.fc.token);

      // More refusals the same day: counted, but the owner is not told again.
      await s.viaApi();
      await minuteLater();
      expect(await noPayeeAlerts(s.owner.shopId)).toHaveLength(1);
      expect(await noPayeeMails(s.owner.email)).toHaveLength(1);

      // The next day, still no payee account: told again, counting that day's slips.
      k.clock.advance(24 * 3_600_000);
      await s.viaApi();
      await minuteLater();
      const again = await noPayeeAlerts(s.owner.shopId);
      expect(again).toHaveLength(2);
      expect(again.map((a) => a.detail?.refused)).toEqual(expect.arrayContaining([3, 1]));
      expect(await noPayeeMails(s.owner.email)).toHaveLength(2);
      expect(k.fake.sentTo('Uowner-np1').filter((p) => textOf(p).includes('บัญชีรับเงิน'))).toHaveLength(2);
    });

    it('no alert for a shop with a payee account, nor when the account is added before the alert falls due', async () => {
      const s = await shopWithOwner('Uowner-np2', { payee: true });
      expect((await s.viaApi()).statusCode).toBe(200);
      await minuteLater();
      expect(await noPayeeAlerts(s.owner.shopId)).toHaveLength(0);
      expect(await noPayeeMails(s.owner.email)).toHaveLength(0);

      const late = await shopWithOwner('Uowner-np3');
      expect((await late.viaApi()).json()).toMatchObject({ code: 'NO_PAYEE_CONFIGURED' });
      await k.h.c.payees.add(late.owner.shopId, { bankCode: '004', accountNumber: '1234566609', holder: 'บจก. ร้านกาแฟ ทดสอบ' }, 'test');
      await minuteLater();
      expect(await noPayeeAlerts(late.owner.shopId)).toHaveLength(0);
      expect(await noPayeeMails(late.owner.email)).toHaveLength(0);
      expect(k.fake.sentTo('Uowner-np3').filter((p) => textOf(p).includes('บัญชีรับเงิน'))).toHaveLength(0);
    });
  });
}
