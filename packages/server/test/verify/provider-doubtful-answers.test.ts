// What a shop sees for provider answers whose reading is in doubt (fake provider on loopback, real
// pipeline and store): never FRAUD or SUCCESS on doubt, and nothing charged when the provider did not
// answer about the transfer (docs/architecture.md, "Quota charging rule"). The adapter-level rows and
// their documents are test/checker/provider-doc-answers.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { startFakeUpstream, type FakeUpstream, type Reply } from '../checker/fake-upstream.js';
import type { DecodeResult } from '../../src/modules/slip-qr/slip-qr-decoder.js';
import {
  EASYSLIP_KEY,
  SLIPOK_BRANCH_PATH,
  SLIPOK_KEY,
  easySlipBankSuccess,
  easySlipError,
  slipOkError,
} from '../checker/provider-fixtures.js';

const image = () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(64)]);
const bankQr = (transRef: string, sendingBank = '004'): DecodeResult => ({
  ok: true,
  kind: 'BANK',
  bankCode: sendingBank,
  bankName: sendingBank === '004' ? 'Kasikorn Bank' : 'Siam Commercial Bank',
  transRef,
  payload: `004100060000010103${sendingBank}02${String(transRef.length).padStart(2, '0')}${transRef}5102TH9104ABCD`,
  pass: 'fast',
});
/** today's DDMMYYYY in Bangkok: a wallet slip the stale rule does not touch */
const todayTh = () => {
  const [y, m, d] = new Date(Date.now() + 7 * 3_600_000).toISOString().slice(0, 10).split('-');
  return `${d}${m}${y}`;
};
const walletQr = (transRef: string): DecodeResult => ({
  ok: true,
  kind: 'TRUEMONEY',
  bankCode: 'TRUEMONEY',
  bankName: 'TrueMoney Wallet',
  transRef,
  payload: `wallet-${transRef}`,
  pass: 'fast',
  trueMoney: { eventType: 'P2P', date: todayTh() },
});
const PROVIDER_NAMES = /slipok|easyslip|easy slip|slip ok/i;

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`doubtful provider answers [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let provider: FakeUpstream;
    let reply: Reply;
    let next: DecodeResult;
    let shop: Awaited<ReturnType<typeof seedShop>>;

    beforeAll(async () => {
      provider = await startFakeUpstream(() => reply);
      h = await createHarness(
        kind,
        { CHECKER: 'easyslip', CHECKER_URL: provider.url, CHECKER_KEY: EASYSLIP_KEY, CHECKER_TIMEOUT_MS: '2000' },
        { decode: async () => next },
      );
      shop = await seedShop(h);
      await h.c.payees.add(
        shop.shop.id,
        { kind: 'PROMPTPAY', proxyType: 'PHONE', bankCode: '004', accountNumber: '0812346609', holder: 'บจก. ร้านกาแฟ ทดสอบ' } as never,
        'test',
      );
    });
    afterAll(async () => {
      await h?.close();
      await provider?.close();
    });
    beforeEach(() => {
      provider.requests.length = 0;
    });

    // a new shop has used nothing; each verify below says how many units it took
    let used = 0;
    const verify = async (decoded: DecodeResult) => {
      next = decoded;
      const r = await h.c.verification.verifySlip({ shopId: shop.shop.id, source: 'API', image: image() });
      const charged = r.quota.used - used;
      used = r.quota.used;
      return { ...r, charged };
    };

    it('a wallet slip the image endpoint answers SLIP_NOT_FOUND for ("invalid slip or no QR") is not FRAUD and costs nothing', async () => {
      reply = easySlipError(404, 'SLIP_NOT_FOUND');
      const r = await verify(walletQr('50012345670001'));
      expect(provider.requests[0]?.url).toBe('/v2/verify/truewallet');
      expect(r.record.status).not.toBe('FRAUD');
      expect(r.record).toMatchObject({ status: 'INVALID', errorCode: 'CHECK_NOT_SUPPORTED' });
      expect(r.record.errorMessage).not.toMatch(PROVIDER_NAMES);
      expect(r.charged).toBe(0);
    });

    it('the same answer for a bank slip QR is "no such transfer": FRAUD SLIP_NOT_FOUND, charged (the provider answered)', async () => {
      reply = easySlipError(404, 'SLIP_NOT_FOUND');
      const r = await verify(bankQr('014242082547BPM10000'));
      expect(provider.requests[0]?.url).toBe('/v2/verify/bank');
      expect(r.record).toMatchObject({ status: 'FRAUD', errorCode: 'SLIP_NOT_FOUND' });
      expect(r.charged).toBe(1);
    });

    it('an SCB slip it has not found, sent just after the transfer, is pending until the reference has been known 10 minutes', async () => {
      // SCB and Bangkok Bank publish transfers minutes late (SlipOK's documented 1010); this provider
      // has no "not yet" answer. Before: FRAUD SLIP_NOT_FOUND, charged, for a slip sent at once.
      reply = easySlipError(404, 'SLIP_NOT_FOUND');
      const first = await verify(bankQr('014242082547BPM10010', '014'));
      expect(first.record).toMatchObject({ status: 'PROVIDER_ERROR', errorCode: 'SLIP_PENDING' });
      expect(first.record.errorMessage).toMatch(/about 10 minute/);
      expect(first.charged).toBe(0);
      // The same reference first checked 11 minutes ago: now "not found" is the bank's answer.
      await h.c.db
        .updateTable('transactions')
        .set({ created_at: new Date(Date.now() - 11 * 60_000).toISOString() })
        .where('id', '=', first.record.id)
        .execute();
      const later = await verify(bankQr('014242082547BPM10010', '014'));
      expect(later.record).toMatchObject({ status: 'FRAUD', errorCode: 'SLIP_NOT_FOUND' });
      expect(later.charged).toBe(1);
    });

    it('a rate limit that says when to come back tells the shop that wait, and charges nothing', async () => {
      reply = { status: 429, body: { success: false, error: { code: 'RATE_LIMITED', message: 'x' } }, headers: { 'retry-after': '180' } };
      const r = await verify(bankQr('014242082547BPM10020'));
      expect(r.record).toMatchObject({ status: 'PROVIDER_ERROR', errorCode: 'PROVIDER_UNAVAILABLE' });
      expect(r.record.errorMessage).toMatch(/in about 3 minutes/);
      expect(r.record.errorMessage).not.toMatch(PROVIDER_NAMES);
      expect(r.charged).toBe(0);
    });

    it('a bank answer without an amount is not a SUCCESS of 0.00: PROVIDER_ERROR, not charged', async () => {
      const body = easySlipBankSuccess('014242082547BPM10001', { amount: { amount: null, local: {} } });
      reply = { status: 200, body };
      const r = await verify(bankQr('014242082547BPM10001'));
      expect(r.record).toMatchObject({ status: 'PROVIDER_ERROR', errorCode: 'PROVIDER_UNAVAILABLE' });
      expect(r.record.errorMessage).not.toMatch(PROVIDER_NAMES);
      expect(r.charged).toBe(0);
    });

    it('a provider time without a zone is Thai time on the record', async () => {
      reply = { status: 200, body: easySlipBankSuccess('014242082547BPM10002', { date: '2026-01-01T23:30:00' }) };
      const r = await verify(bankQr('014242082547BPM10002'));
      expect(r.record).toMatchObject({ status: 'SUCCESS', transDate: '2026-01-01T16:30:00.000Z' });
    });

    it("a DUMMY receiver number that ends like the shop's account does not make the slip pay the shop", async () => {
      reply = {
        status: 200,
        body: easySlipBankSuccess('014242082547BPM10003', {
          receiver: {
            bank: { id: '004', name: 'กสิกรไทย', short: 'KBANK' },
            account: { name: { th: 'นาย อื่น ค', en: 'MR. UEN K' }, bank: { type: 'DUMMY', account: 'xxx-x-x6660-9' } },
          },
        }),
      };
      const r = await verify(bankQr('014242082547BPM10003'));
      expect(r.record.status).not.toBe('SUCCESS');
      expect(r.record.status).toBe('RECEIVER_MISMATCH');
    });
  });

  describe.skipIf(pgMissing(kind))(`doubtful answers, SlipOK alone [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let provider: FakeUpstream;
    let reply: Reply;
    let next: DecodeResult;
    let shop: Awaited<ReturnType<typeof seedShop>>;

    beforeAll(async () => {
      provider = await startFakeUpstream(() => reply);
      h = await createHarness(
        kind,
        { CHECKER: 'slipok', CHECKER_URL: `${provider.url}${SLIPOK_BRANCH_PATH}`, CHECKER_KEY: SLIPOK_KEY, CHECKER_TIMEOUT_MS: '2000' },
        { decode: async () => next },
      );
      shop = await seedShop(h);
    });
    afterAll(async () => {
      await h?.close();
      await provider?.close();
    });

    it('1011 for a TrueMoney wallet payload (wallet slips are not in its documents) is not FRAUD and costs nothing', async () => {
      reply = slipOkError(1011);
      next = walletQr('50012345670002');
      const r = await h.c.verification.verifySlip({ shopId: shop.shop.id, source: 'API', image: image() });
      expect(provider.requests).toHaveLength(1);
      expect(r.record).toMatchObject({ status: 'INVALID', errorCode: 'CHECK_NOT_SUPPORTED' });
      expect(r.record.errorMessage).not.toMatch(PROVIDER_NAMES);
      expect(r.quota.used).toBe(0);
      // a bank slip's 1011 stays "no such transaction" (charged: the provider answered)
      next = bankQr('014242082547BPM10009');
      const bank = await h.c.verification.verifySlip({ shopId: shop.shop.id, source: 'API', image: image() });
      expect(bank.record).toMatchObject({ status: 'FRAUD', errorCode: 'SLIP_NOT_FOUND' });
      expect(bank.quota.used).toBe(1);
    });
  });
}
