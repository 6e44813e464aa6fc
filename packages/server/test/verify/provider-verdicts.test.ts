// The pipeline's verdicts from real provider answers (fake providers on loopback, documented bodies
// from test/checker/provider-fixtures.ts): what shops see, what is charged, what the operator hears.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { startFakeUpstream, type FakeUpstream, type Reply, type SeenRequest } from '../checker/fake-upstream.js';
import type { DecodeResult } from '../../src/modules/slip-qr/slip-qr-decoder.js';
import { registry } from '../../src/lib/metrics.js';
import {
  EASYSLIP_KEY,
  SLIPOK_BRANCH_PATH,
  SLIPOK_KEY,
  easySlipBankSuccess,
  easySlipError,
  easySlipTrueWalletSuccess,
  slipOkError,
  slipOkQuota,
  slipOkSuccess,
} from '../checker/provider-fixtures.js';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);
const image = () => Buffer.concat([JPEG, randomBytes(64)]);
const bankQr = (transRef: string): DecodeResult => ({
  ok: true,
  kind: 'BANK',
  bankCode: '004',
  bankName: 'Kasikorn Bank',
  transRef,
  payload: `00410006000001010300402${String(transRef.length).padStart(2, '0')}${transRef}5102TH9104ABCD`,
  pass: 'fast',
});
/** TrueMoney QR date is DDMMYYYY (tag 00 sub-tag 04), read by the slip-qr parser */
const walletQr = (transRef: string, ddmmyyyy: string): DecodeResult => ({
  ok: true,
  kind: 'TRUEMONEY',
  bankCode: 'TRUEMONEY',
  bankName: 'TrueMoney Wallet',
  transRef,
  payload: `wallet-${transRef}`,
  pass: 'fast',
  trueMoney: { eventType: 'P2P', date: ddmmyyyy },
});
const PROVIDER_NAMES = /slipok|easyslip|easy slip|slip ok/i;

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`verdicts from provider answers [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let slipok: FakeUpstream;
    let easyslip: FakeUpstream;
    let slipokReply: (r: SeenRequest) => Reply;
    let easyslipReply: (r: SeenRequest) => Reply;
    let next: DecodeResult;
    let shop: Awaited<ReturnType<typeof seedShop>>;

    beforeAll(async () => {
      slipok = await startFakeUpstream((r) => slipokReply(r));
      easyslip = await startFakeUpstream((r) => easyslipReply(r));
      h = await createHarness(
        kind,
        {
          CHECKER: 'slipok,easyslip',
          CHECKER_URL: `${slipok.url}${SLIPOK_BRANCH_PATH},${easyslip.url}`,
          CHECKER_KEY: `${SLIPOK_KEY},${EASYSLIP_KEY}`,
          CHECKER_TIMEOUT_MS: '2000',
          OPERATOR_EMAIL: 'ops@example.com',
          CHECKER_MAX_OVERAGE: '100',
        },
        { decode: async () => next },
      );
      shop = await seedShop(h);
      // wallet transfers pay a PromptPay phone: the shop's wallet number
      await h.c.payees.add(
        shop.shop.id,
        { kind: 'PROMPTPAY', proxyType: 'PHONE', bankCode: '004', accountNumber: '0812346609', holder: 'บจก. ร้านกาแฟ ทดสอบ' } as never,
        'test',
      );
    });
    afterAll(async () => {
      await h.close();
      await slipok.close();
      await easyslip.close();
    });
    beforeEach(() => {
      slipokReply = () => slipOkSuccess();
      easyslipReply = () => ({ status: 200, body: easySlipBankSuccess() });
      slipok.requests.length = 0;
      easyslip.requests.length = 0;
    });

    const verify = async (decoded: DecodeResult) => {
      next = decoded;
      return h.c.verification.verifySlip({ shopId: shop.shop.id, source: 'API', image: image() });
    };
    const operatorMails = async () => (await h.c.mail.list({ to: 'ops@example.com' })).filter((m) => m.template.startsWith('operator_'));

    it('TrueMoney: sent as the image to the wallet endpoint of the provider that verifies it there', async () => {
      slipokReply = () => slipOkError(1008);
      easyslipReply = () => ({ status: 200, body: easySlipTrueWalletSuccess('50012345678901') });
      const r = await verify(walletQr('50012345678901', '01012026'));
      expect(r.record).toMatchObject({ status: 'SUCCESS', transRef: '50012345678901', amount: 250, receiverAccount: '081-xxx-6609' });
      expect(easyslip.requests).toHaveLength(1);
      const sent = easyslip.requests[0];
      expect(sent.url).toBe('/v2/verify/truewallet');
      expect(String(sent.headers['content-type'])).toMatch(/^multipart\/form-data/);
      expect(String(sent.body)).toContain('name="image"');
      expect(r.quota.used).toBe(1);
    });

    it('a kind no configured provider can check: INVALID CHECK_NOT_SUPPORTED, uncharged, never FRAUD', async () => {
      slipokReply = () => slipOkError(1008);
      easyslipReply = () => easySlipError(400, 'INVALID_IMAGE_FORMAT');
      const before = (await h.c.verification.verifySlip({ shopId: shop.shop.id, source: 'API', image: image() }).catch(() => null))?.quota
        .used;
      const r = await verify(walletQr('50099999999999', '01012026'));
      expect(r.record).toMatchObject({ status: 'INVALID', errorCode: 'CHECK_NOT_SUPPORTED' });
      expect(r.record.errorMessage).not.toMatch(PROVIDER_NAMES);
      expect(r.quota.used).toBe(before);
    });

    it('"no such transaction" on a wallet slip whose QR date is past the window: INVALID STALE_SLIP, not FRAUD', async () => {
      // Neither real provider says "no such transfer" for a wallet slip any more (SlipOK documents bank
      // slips only; EasySlip's picture endpoint may not have read the QR): both are "cannot check".
      slipokReply = () => slipOkError(1011);
      easyslipReply = () => easySlipError(404, 'SLIP_NOT_FOUND');
      const unread = await verify(walletQr('50011111111110', '01012020'));
      expect(unread.record).toMatchObject({ status: 'INVALID', errorCode: 'CHECK_NOT_SUPPORTED' });
      // A checker that does say so for a wallet slip past the window (the sandbox bank can): stale, not forged.
      const check = h.c.checker.check;
      h.c.checker.check = async () => ({ kind: 'NOT_FOUND' });
      try {
        const old = await verify(walletQr('50011111111111', '01012020'));
        expect(old.record).toMatchObject({ status: 'INVALID', errorCode: 'STALE_SLIP' });
      } finally {
        h.c.checker.check = check;
      }
      // a bank slip has no date in its QR: "no such transaction" stays FRAUD (charged: the bank answered)
      const usedBefore = (await verify(bankQr('014242082547BPM00000'))).quota.used;
      const forged = await verify(bankQr('014242082547BPM00001'));
      expect(forged.record).toMatchObject({ status: 'FRAUD', errorCode: 'SLIP_NOT_FOUND' });
      expect(forged.quota.used).toBe(usedBefore + 1);
    });

    it('a reference that differs only in case, padding or separators is the same transfer', async () => {
      slipokReply = () => slipOkSuccess(' 0014242082547bpm-00002 ');
      const r = await verify(bankQr('014242082547BPM00002'));
      expect(r.record.status).toBe('SUCCESS');
    });

    it('a reference that really differs is a provider error (uncharged), not FRAUD', async () => {
      slipokReply = () => slipOkSuccess('014242082547BPM99999');
      const r = await verify(bankQr('014242082547BPM00003'));
      expect(r.record).toMatchObject({ status: 'PROVIDER_ERROR', errorCode: 'PROVIDER_UNAVAILABLE' });
      const again = await verify(bankQr('014242082547BPM00004'));
      expect(again.quota.used).toBe(r.quota.used);
    });

    it('an answer without sending bank and sender falls back to the slip QR', async () => {
      slipokReply = () => slipOkSuccess('014242082547BPM00005', { sendingBank: '', sender: undefined });
      const r = await verify(bankQr('014242082547BPM00005'));
      expect(r.record).toMatchObject({ status: 'SUCCESS', bankCode: '004' });
    });

    it('SlipOK 1009: the next provider checks the slip at once; SlipOK is not asked again', async () => {
      slipokReply = () => slipOkError(1009);
      easyslipReply = () => ({ status: 200, body: easySlipBankSuccess('014242082547BPM00006') });
      const r = await verify(bankQr('014242082547BPM00006'));
      expect(r.record.status).toBe('SUCCESS');
      expect(slipok.requests).toHaveLength(1);
    });

    it('an account error fails over at once, alerts the operator once, marks /health degraded; shops are told the service cannot check', async () => {
      slipokReply = () => slipOkError(1003);
      easyslipReply = () => ({ status: 200, body: easySlipBankSuccess('014242082547BPM00007') });
      const r1 = await verify(bankQr('014242082547BPM00007'));
      expect(r1.record.status).toBe('SUCCESS');
      expect(slipok.requests).toHaveLength(1);
      easyslipReply = () => ({ status: 200, body: easySlipBankSuccess('014242082547BPM00008') });
      await verify(bankQr('014242082547BPM00008'));

      await expect.poll(operatorMails).toHaveLength(1);
      const [mail] = await operatorMails();
      expect(mail.template).toBe('operator_account_problem');
      expect(mail.text).toContain('1003');

      const health = await h.app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(200);
      expect(health.json()).toMatchObject({
        status: 'degraded',
        checks: { checker: { status: 'degraded', problems: ['package_expired'] } },
      });
      expect(health.body).not.toMatch(PROVIDER_NAMES);

      // both accounts broken: PROVIDER_ERROR CHECK_UNAVAILABLE (not "send again in a minute"), uncharged
      easyslipReply = () => easySlipError(403, 'QUOTA_EXCEEDED');
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/v1/verify',
        headers: { ...shop.auth, 'content-type': 'application/octet-stream' },
        payload: ((next = bankQr('014242082547BPM00009')), image()),
      });
      expect(res.json().data).toMatchObject({ status: 'PROVIDER_ERROR', errorCode: 'CHECK_UNAVAILABLE' });
      expect(res.json().data.errorMessage).not.toMatch(/minute/);
      expect(res.body).not.toMatch(PROVIDER_NAMES);
      expect(JSON.stringify(res.headers)).not.toMatch(PROVIDER_NAMES);
      await expect.poll(async () => (await operatorMails()).length).toBe(2);

      // the provider answers again: the incident closes (one "recovered" mail), /health is ok
      slipokReply = () => slipOkSuccess('014242082547BPM00010');
      await verify(bankQr('014242082547BPM00010'));
      easyslipReply = () => ({ status: 200, body: easySlipBankSuccess('014242082547BPM00011') });
      slipokReply = () => slipOkError(1008);
      await verify(bankQr('014242082547BPM00011'));
      expect((await h.app.inject({ method: 'GET', url: '/health' })).json().status).toBe('ok');
      // The operator reads when the problem began in the service's zone with its offset, not UTC ISO.
      await expect.poll(async () => (await operatorMails()).some((m) => m.template === 'operator_account_recovered')).toBe(true);
      const recovered = (await operatorMails()).find((m) => m.template === 'operator_account_recovered')!;
      expect(recovered.text).toMatch(/since \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC\+07:00\)\)\./);
      expect(recovered.text).toMatch(/ตั้งแต่ \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC\+07:00\)\)/);
      expect(recovered.text).not.toMatch(/\d{2}:\d{2}:\d{2}\.\d{3}Z/);
    });

    it('overage: polled, in metrics, warned near the cap, and at the cap the provider is skipped', async () => {
      slipokReply = (r) => (r.url.endsWith('/quota') ? slipOkQuota(0, 85) : slipOkSuccess('014242082547BPM00012'));
      easyslipReply = (r) =>
        r.url === '/v2/info'
          ? { status: 200, body: { success: true, data: {} } }
          : { status: 200, body: easySlipBankSuccess('014242082547BPM00012') };
      const polled = await h.c.configuredChecker!.pollAccounts();
      expect(polled.find((p) => p.adapter === 'slipok')!.status).toMatchObject({ quotaRemaining: 0, overage: 85 });
      expect(await registry.getSingleMetricAsString('slipcheck_checker_overage')).toContain(
        'slipcheck_checker_overage{upstream="slipok#0"} 85',
      );
      expect(await registry.getSingleMetricAsString('slipcheck_checker_quota_remaining')).toContain('{upstream="slipok#0"} 0');
      await expect.poll(async () => (await operatorMails()).some((m) => m.template === 'operator_overage_near_cap')).toBe(true);

      slipokReply = (r) => (r.url.endsWith('/quota') ? slipOkQuota(0, 100) : slipOkSuccess('014242082547BPM00013'));
      await h.c.configuredChecker!.pollAccounts();
      slipok.requests.length = 0;
      easyslipReply = () => ({ status: 200, body: easySlipBankSuccess('014242082547BPM00013') });
      const r = await verify(bankQr('014242082547BPM00013'));
      expect(r.record.status).toBe('SUCCESS');
      expect(slipok.requests).toHaveLength(0);
      await expect.poll(async () => (await operatorMails()).some((m) => m.template === 'operator_overage_cap_reached')).toBe(true);

      // a renewed package (overage back to 0) puts it back in the chain
      slipokReply = (r) => (r.url.endsWith('/quota') ? slipOkQuota(500, 0) : slipOkSuccess('014242082547BPM00014'));
      await h.c.configuredChecker!.pollAccounts();
      await verify(bankQr('014242082547BPM00014'));
      expect(slipok.requests.filter((q) => !q.url.endsWith('/quota'))).toHaveLength(1);
    });
  });
}
