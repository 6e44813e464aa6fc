// The sandbox bank is a real peer process-level server: the checker talks HTTP to it exactly as to
// a provider, and receiver matching must cope with every mask style it prints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxBank, type SandboxBank } from '@slipcheck/sandbox-bank';
import { createCheckerFromConfig, type ConfiguredChecker } from '../../src/modules/checker/checker-factory.js';
import { matchName, matchReceiver, type PayeeForMatch } from '../../src/modules/verification/receiver-match.js';

let bank: SandboxBank;
let checker: ConfiguredChecker;
beforeAll(async () => {
  bank = await createSandboxBank({ apiKey: 'sbx_test', timeoutHoldMs: 30_000 });
  checker = createCheckerFromConfig({
    checker: 'sandbox',
    checkerUrl: bank.url,
    checkerKey: 'sbx_test',
    // Far above a loopback answer even on a loaded full run (300 ms was not, there), far below the hold.
    timeoutMs: 1_000,
    deadlineMs: 5_000,
    maxAttempts: 2,
    breaker: { failureThreshold: 1000 },
  });
});
afterAll(async () => {
  await checker.close();
  await bank.close();
});

const shop: PayeeForMatch = { bankCode: '004', kind: 'BANK', accountNumber: '123-4-56660-9', holder: 'นาย สมชาย ใจดี', status: 'ACTIVE' };
const sender = { name: 'นาง ผู้ซื้อ ดีมาก', nameEn: 'MRS. PHUSUE DEEMAK', account: '987-6-54321-0' };
const query = (t: { payload: string; sendingBank: string; transRef: string }) => ({
  payload: t.payload,
  bankCode: t.sendingBank,
  transRef: t.transRef,
});

describe('sandbox peer over HTTP', () => {
  it.each(['004', '006', '014', '002', '011', '025', '030', '069'])(
    'transfer from %s into the shop account is FOUND and matches',
    async (from) => {
      const t = bank.store.add({
        sendingBank: from,
        amount: 350.25,
        sender,
        receiver: { name: 'นาย สมชาย ใจดี', nameEn: 'MR. SOMCHAI JAIDEE', account: '1234566609', bankCode: '004' },
      });
      const r = await checker.check(query(t));
      expect(r.kind).toBe('FOUND');
      if (r.kind !== 'FOUND') return;
      expect(r.slip).toMatchObject({ transRef: t.transRef, amount: 350.25, sendingBankCode: from, receivingBankCode: '004' });
      expect(Date.parse(r.slip.transDate)).toBe(Math.floor(t.transDate.getTime() / 1000) * 1000);
      expect(matchReceiver(r.slip.receiver, [shop])).toEqual({ result: 'MATCH', payeeIndex: 0, basis: 'ACCOUNT' });
      expect(matchName(r.slip.receiver.name, 'สมชาย ใจดี')).toBe('MATCH');
      expect(matchName(r.slip.receiver.nameEn ?? '', 'Somchai Jaidee')).toBe('MATCH');
      // one digit off in the visible window of every mask style
      expect(matchReceiver(r.slip.receiver, [{ ...shop, accountNumber: '1234566619' }]).result).toBe('MISMATCH');
    },
  );

  it('PromptPay phone receiver matches a PROMPTPAY payee', async () => {
    const t = bank.store.add({
      sendingBank: '014',
      amount: 99,
      sender,
      receiver: { name: 'นาย สมชาย ใจดี', bankCode: '004', proxy: { type: 'PHONE', value: '081-234-5678' } },
    });
    const r = await checker.check(query(t));
    expect(r.kind).toBe('FOUND');
    const pp: PayeeForMatch = {
      bankCode: 'PROMPTPAY',
      kind: 'PROMPTPAY',
      accountNumber: '66812345678',
      proxyType: 'PHONE',
      holder: 'สมชาย',
      status: 'ACTIVE',
    };
    if (r.kind === 'FOUND')
      expect(matchReceiver(r.slip.receiver, [shop, pp])).toMatchObject({ result: 'MATCH', payeeIndex: 1, basis: 'PROXY' });
  });

  it('unknown transfer and forged payload are NOT_FOUND', async () => {
    const t = bank.store.add({ sendingBank: '004', amount: 1, sender, receiver: { name: 'x', account: '1234566609', bankCode: '004' } });
    bank.store.setFault(t.transRef, 'not_found');
    expect(await checker.check(query(t))).toEqual({ kind: 'NOT_FOUND' });
    const forged = t.payload.slice(0, -4) + (t.payload.endsWith('0000') ? '1111' : '0000');
    expect(await checker.check({ ...query(t), payload: forged })).toEqual({ kind: 'NOT_FOUND' });
  });

  it('pending and error faults', async () => {
    const t = bank.store.add({ sendingBank: '002', amount: 1, sender, receiver: { name: 'x', account: '1234566609', bankCode: '004' } });
    bank.store.setFault(t.transRef, 'pending');
    expect(await checker.check(query(t))).toEqual({ kind: 'PENDING', retryAfterSeconds: 300 });
    bank.store.setFault(t.transRef, 'error');
    const calls = bank.stats().checkerCalls;
    expect((await checker.check(query(t))).kind).toBe('UNAVAILABLE');
    expect(bank.stats().checkerCalls - calls).toBe(2); // retried once
  });

  it('a held request times out per attempt and stays inside the deadline', async () => {
    const t = bank.store.add({ sendingBank: '014', amount: 1, sender, receiver: { name: 'x', account: '1234566609', bankCode: '004' } });
    bank.store.setFault(t.transRef, 'timeout');
    const calls = bank.stats().checkerCalls;
    const t0 = Date.now();
    expect((await checker.check(query(t))).kind).toBe('UNAVAILABLE');
    // Both attempts were cut at the per-attempt timeout (the bank holds each for 30 s), inside the deadline.
    expect(bank.stats().checkerCalls - calls).toBe(2);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('a wrong key is UNAVAILABLE, never NOT_FOUND', async () => {
    const bad = createCheckerFromConfig({ checker: 'sandbox', checkerUrl: bank.url, checkerKey: 'wrong', timeoutMs: 1_000 });
    const t = bank.store.add({ sendingBank: '004', amount: 1, sender, receiver: { name: 'x', account: '1234566609', bankCode: '004' } });
    try {
      expect(await bad.check(query(t))).toMatchObject({ kind: 'UNAVAILABLE', retryable: false });
    } finally {
      await bad.close();
    }
  });
});
