import { describe, expect, it } from 'vitest';
import { matchAccount, matchName, matchProxy, matchReceiver, normalizeName, type PayeeForMatch } from './receiver-match.js';

describe('matchAccount', () => {
  const full = '123-4-56660-9';
  it.each([
    // one account, two masks (KTB->KBank and KBank->KBank)
    ['XXX-X-XX660-9', full, 'MATCH'],
    ['xxx-x-x6660-x', full, 'MATCH'],
    ['xxx-x-x6660-x', '1234566609', 'MATCH'],
    // SCB / BBL / KTB styles
    ['xxx-xxx660-9', full, 'MATCH'],
    ['XXX-X-XX660-9', '123 4 56660 9', 'MATCH'],
    ['xxxxxx6609', full, 'MATCH'],
    ['***-*-*6660-*', full, 'MATCH'],
    ['123-4-56660-9', full, 'MATCH'],
    // wrong last digit, wrong middle digit
    ['XXX-X-XX660-8', full, 'MISMATCH'],
    ['xxx-x-x7660-x', full, 'MISMATCH'],
    ['123-4-56660-8', full, 'MISMATCH'],
    // 12-digit GSB / BAAC accounts, full and masked
    ['0200xxxx5678', '020012345678', 'MATCH'],
    ['xxxx-xxxx-5678', '0200-1234-5678', 'MATCH'],
    ['0200xxxx5679', '020012345678', 'MISMATCH'],
    // lengths differ: right aligned
    ['x-6609', full, 'MATCH'],
    ['xxxx6609', '020012346609', 'MATCH'],
    ['xxxx6608', '020012346609', 'MISMATCH'],
    // too few comparable digits
    ['xxx-x-xxxx0-x', full, 'UNKNOWN'],
    ['xxx-x-xxxx9-x', full, 'MISMATCH'],
    ['xxx-x-xxx60-x', full, 'UNKNOWN'],
    ['xxx-x-xxxxx-x', full, 'UNKNOWN'],
    ['', full, 'UNKNOWN'],
    ['xxx-x-x6660-x', '', 'UNKNOWN'],
    ['😀😀😀', full, 'UNKNOWN'],
    // Thai digits fold to ASCII
    ['xxx-x-x๖๖๖๐-x', full, 'MATCH'],
  ])('%s vs %s -> %s', (masked, f, want) => {
    expect(matchAccount(masked, f)).toBe(want);
  });

  it('stays bounded and sane on hostile input', () => {
    const huge = 'x'.repeat(10_000) + '6609';
    const t0 = performance.now();
    expect(matchAccount(huge, full)).toBe('UNKNOWN'); // the digits beyond the cap are never read
    expect(matchAccount('9'.repeat(10_000), full)).toBe('MISMATCH');
    expect(performance.now() - t0).toBeLessThan(200);
    expect(matchAccount(undefined as unknown as string, full)).toBe('UNKNOWN');
  });
});

describe('matchProxy', () => {
  const phone = { accountNumber: '0812345678', proxyType: 'PHONE' };
  it.each([
    [{ type: 'PHONE', value: '0812345678' }, phone, 'MATCH'],
    [{ type: 'PHONE', value: '66812345678' }, phone, 'MATCH'],
    [{ type: 'PHONE', value: '+66 81 234 5678' }, phone, 'MATCH'],
    [{ type: 'PHONE', value: 'xxx-xxx-5678' }, phone, 'MATCH'],
    [{ type: 'PHONE', value: '+66xx-xxx-5678' }, phone, 'MATCH'],
    [{ type: 'PHONE', value: 'xxx-xxx-5679' }, phone, 'MISMATCH'],
    [{ type: 'PHONE', value: '0812345678' }, { accountNumber: '+66812345678', proxyType: null }, 'MATCH'],
    [{ type: 'PHONE', value: '0812345678' }, { accountNumber: '0066812345678' }, 'MATCH'],
    [{ type: 'PHONE', value: 'xxx-xxx-xxx8' }, phone, 'UNKNOWN'],
    // national id, 13 digits
    [{ type: 'NATID', value: 'x-xxxx-xxxx1-23-4' }, { accountNumber: '1-1020-00001-23-4', proxyType: 'NATID' }, 'MATCH'],
    [{ type: 'NATID', value: 'x-xxxx-xxxx1-23-5' }, { accountNumber: '1102000012234', proxyType: 'NATID' }, 'MISMATCH'],
    // e-wallet, 15 digits
    [{ type: 'EWALLET', value: 'xxxxxxxxxxx4567' }, { accountNumber: '140000001234567', proxyType: 'EWALLET' }, 'MATCH'],
    [{ type: 'EWALLET', value: 'xxxxxxxxxxx4568' }, { accountNumber: '140000001234567' }, 'MISMATCH'],
    // different proxy kinds cannot be compared
    [{ type: 'NATID', value: 'x-xxxx-xxxx5-67-8' }, phone, 'UNKNOWN'],
    [{ type: 'EMAIL', value: 'Shop@Example.com' }, { accountNumber: 'shop@example.com', proxyType: 'EMAIL' }, 'MATCH'],
    [{ type: 'EMAIL', value: 'sh**@example.com' }, { accountNumber: 'shop@example.com', proxyType: 'EMAIL' }, 'UNKNOWN'],
    [{ type: 'EMAIL', value: 'other@example.com' }, { accountNumber: 'shop@example.com', proxyType: 'EMAIL' }, 'MISMATCH'],
  ])('%j vs %j -> %s', (proxy, payee, want) => {
    expect(matchProxy(proxy, payee)).toBe(want);
  });

  it('UNKNOWN without a proxy', () => {
    expect(matchProxy(null, phone)).toBe('UNKNOWN');
    expect(matchProxy({ type: 'PHONE', value: '' }, phone)).toBe('UNKNOWN');
  });
});

describe('normalizeName', () => {
  it.each([
    ['นาย สมชาย ใจดี', 'สมชาย ใจดี'],
    ['นายสมชาย ใจดี', 'สมชาย ใจดี'],
    ['น.ส. สมหญิง  รักไทย', 'สมหญิง รักไทย'],
    ['นางสาวสมหญิง รักไทย', 'สมหญิง รักไทย'],
    ['ด.ญ. มาลี ดีใจ', 'มาลี ดีใจ'],
    ['MR. SOMCHAI JAIDEE', 'somchai jaidee'],
    ['Mr.Somchai Jaidee', 'somchai jaidee'],
    ['MISS SOMYING RAKTHAI', 'somying rakthai'],
    ['บริษัท ตัวอย่าง จำกัด', 'ตัวอย่าง'],
    ['บจก. ตัวอย่าง', 'ตัวอย่าง'],
    ['บริษัท ตัวอย่าง จำกัด (มหาชน)', 'ตัวอย่าง'],
    ['บริษัทตัวอย่างจำกัด', 'ตัวอย่าง'],
    ['EXAMPLE CO., LTD.', 'example'],
    ['Example Co.,Ltd', 'example'],
    ['EXAMPLE PUBLIC COMPANY LIMITED', 'example'],
    ['EXAMPLE PCL', 'example'],
    ['EXAMPLE CO., LT', 'example'],
    ['หจก. ร่ำรวย', 'ร่ำรวย'],
    ['😀 นาย สมชาย 🎉', 'สมชาย'],
    ['', ''],
    ['นาย', ''],
    // a name that merely starts like a title keeps its letters
    ['นายิกา สุขใจ', 'นายิกา สุขใจ'],
  ])('%s -> %s', (input, want) => {
    expect(normalizeName(input)).toBe(want);
  });

  it('handles non-strings and 10k-char inputs quickly', () => {
    expect(normalizeName(null)).toBe('');
    expect(normalizeName(42)).toBe('');
    const t0 = performance.now();
    const out = normalizeName('ก'.repeat(10_000));
    expect(out.length).toBeLessThanOrEqual(256);
    normalizeName('. '.repeat(5_000) + 'a');
    expect(performance.now() - t0).toBeLessThan(200);
  });
});

describe('matchName', () => {
  it.each([
    ['นาย สมชาย ใ', 'สมชาย ใจดี', 'MATCH'],
    ['นาย สมชาย ใจดี', 'นายสมชาย ใจดี', 'MATCH'],
    ['นาย สมชาย', 'สมชาย ใจดี', 'MATCH'],
    ['MR. SOMCHAI J', 'Somchai Jaidee', 'MATCH'],
    ['MR. SOMCHAI JAI', 'MR SOMCHAI JAIDEE', 'MATCH'],
    ['MR. SOMCHAI K', 'Somchai Jaidee', 'MISMATCH'],
    ['MR. SOMSAK J', 'Somchai Jaidee', 'MISMATCH'],
    ['นาย สมศักดิ์ ใ', 'สมชาย ใจดี', 'MISMATCH'],
    ['นาย สมช', 'สมชาย ใจดี', 'UNKNOWN'],
    ['บริษัท ตัวอย่าง จำกัด', 'บจก. ตัวอย่าง', 'MATCH'],
    ['EXAMPLE CO., LTD.', 'Example Company Limited', 'MATCH'],
    ['EXAMPLE TRADING CO., LT', 'EXAMPLE TRADING CO.,LTD.', 'MATCH'],
    ['OTHER CO., LTD.', 'EXAMPLE CO., LTD.', 'MISMATCH'],
    // Thai against romanised: cannot compare
    ['MR. SOMCHAI J', 'สมชาย ใจดี', 'UNKNOWN'],
    ['', 'สมชาย ใจดี', 'UNKNOWN'],
    ['นาย', 'สมชาย ใจดี', 'UNKNOWN'],
    ['😀🎉', 'สมชาย ใจดี', 'UNKNOWN'],
    ['สมชาย ใจดี มีสุข', 'สมชาย ใจดี', 'UNKNOWN'],
    ['สมชาย ใจ ดี', 'สมชาย ใจดี', 'MATCH'],
  ])('%s vs %s -> %s', (slip, holder, want) => {
    expect(matchName(slip, holder)).toBe(want);
  });

  it('survives 10k-char strings', () => {
    expect(matchName('x'.repeat(10_000), 'สมชาย ใจดี')).toBe('UNKNOWN');
    expect(matchName('สมชาย '.repeat(2_000), 'สมชาย ใจดี')).not.toBe('MATCH');
  });
});

describe('matchReceiver', () => {
  const kbank: PayeeForMatch = { bankCode: '004', kind: 'BANK', accountNumber: '123-4-56660-9', holder: 'นาย สมชาย ใจดี', status: 'ACTIVE' };
  const gsb: PayeeForMatch = { bankCode: '030', kind: 'BANK', accountNumber: '020012345678', holder: 'สมชาย ใจดี', status: 'ACTIVE' };
  const pp: PayeeForMatch = {
    bankCode: 'PROMPTPAY',
    kind: 'PROMPTPAY',
    accountNumber: '0812345678',
    proxyType: 'PHONE',
    holder: 'สมชาย ใจดี',
    status: 'ACTIVE',
  };
  const disabled: PayeeForMatch = { ...kbank, status: 'DISABLED' };

  type Case = [string, Parameters<typeof matchReceiver>[0], PayeeForMatch[], { result: string; payeeIndex?: number; basis: string }];
  const cases: Case[] = [
    [
      'KTB-style mask, right bank',
      { name: 'นาย สมชาย ใ', account: 'XXX-X-XX660-9', bankCode: '004' },
      [kbank],
      { result: 'MATCH', payeeIndex: 0, basis: 'ACCOUNT' },
    ],
    [
      'KBank-style mask, no bank stated',
      { name: 'x', account: 'xxx-x-x6660-x' },
      [kbank],
      { result: 'MATCH', payeeIndex: 0, basis: 'ACCOUNT' },
    ],
    [
      'matches the second payee',
      { name: 'x', account: 'xxxx-xxxx-5678', bankCode: '030' },
      [kbank, gsb],
      { result: 'MATCH', payeeIndex: 1, basis: 'ACCOUNT' },
    ],
    [
      'wrong last digit',
      { name: 'นาย สมชาย ใ', account: 'XXX-X-XX660-8', bankCode: '004' },
      [kbank],
      { result: 'MISMATCH', basis: 'ACCOUNT' },
    ],
    [
      'same digits, other bank',
      { name: 'นาย สมชาย ใ', account: 'XXX-X-XX660-9', bankCode: '014' },
      [kbank],
      { result: 'MISMATCH', basis: 'BANK' },
    ],
    [
      'inactive payee is ignored',
      { name: 'x', account: 'XXX-X-XX660-9', bankCode: '004' },
      [disabled],
      { result: 'UNKNOWN', basis: 'NONE' },
    ],
    [
      'inactive payee index skipped',
      { name: 'x', account: 'xxxx-xxxx-5678', bankCode: '030' },
      [disabled, gsb],
      { result: 'MATCH', payeeIndex: 1, basis: 'ACCOUNT' },
    ],
    ['no payees', { name: 'x', account: 'XXX-X-XX660-9' }, [], { result: 'UNKNOWN', basis: 'NONE' }],
    [
      'PromptPay phone, masked',
      { name: 'x', proxy: { type: 'PHONE', value: 'xxx-xxx-5678' }, bankCode: '014' },
      [kbank, pp],
      { result: 'MATCH', payeeIndex: 1, basis: 'PROXY' },
    ],
    [
      'PromptPay phone +66',
      { name: 'x', proxy: { type: 'PHONE', value: '+66812345678' } },
      [pp],
      { result: 'MATCH', payeeIndex: 0, basis: 'PROXY' },
    ],
    ['PromptPay other phone', { name: 'x', proxy: { type: 'PHONE', value: 'xxx-xxx-9999' } }, [pp], { result: 'MISMATCH', basis: 'PROXY' }],
    [
      'PromptPay other phone vs bank payee too',
      { name: 'x', proxy: { type: 'PHONE', value: 'xxx-xxx-9999' }, bankCode: '014' },
      [pp, kbank],
      { result: 'MISMATCH', basis: 'PROXY' },
    ],
    // a phone PromptPay linked to the KBank account: digits cannot decide for the bank payee
    [
      'proxy only vs bank payee, name+bank',
      { name: 'นาย สมชาย ใ', proxy: { type: 'PHONE', value: 'xxx-xxx-1111' }, bankCode: '004' },
      [kbank],
      { result: 'MATCH', payeeIndex: 0, basis: 'NAME' },
    ],
    [
      'fully masked account, name + bank',
      { name: 'นาย สมชาย ใจ', account: 'xxx-x-xxxxx-x', bankCode: '004' },
      [kbank],
      { result: 'MATCH', payeeIndex: 0, basis: 'NAME' },
    ],
    [
      'fully masked account, name, no bank',
      { name: 'นาย สมชาย ใจ', account: 'xxx-x-xxxxx-x' },
      [kbank],
      { result: 'UNKNOWN', basis: 'NONE' },
    ],
    [
      'fully masked account, first name only',
      { name: 'นาย สมชาย', account: 'xxx-x-xxxxx-x', bankCode: '004' },
      [kbank],
      { result: 'UNKNOWN', basis: 'NONE' },
    ],
    [
      'fully masked account, other name',
      { name: 'นาย สมศักดิ์ ร', account: 'xxx-x-xxxxx-x', bankCode: '004' },
      [kbank],
      { result: 'MISMATCH', basis: 'NAME' },
    ],
    [
      'English name matches Thai-less holder',
      { name: 'นาย สมชาย ใ', nameEn: 'MR. SOMCHAI J', account: 'xxx-x-xxxxx-x', bankCode: '004' },
      [{ ...kbank, holder: 'SOMCHAI JAIDEE' }],
      { result: 'MATCH', payeeIndex: 0, basis: 'NAME' },
    ],
    // The PromptPay may be bound to the account paid: its holder's name cannot confirm a bank account.
    [
      'mixed mismatch + unknown, the PromptPay holder name: cannot tell',
      { name: 'นาย สมชาย ใ', account: 'xxx-x-x7777-x', bankCode: '004' },
      [kbank, pp],
      { result: 'UNKNOWN', basis: 'NONE' },
    ],
    // A QA pass: another bank's account with another name answered "cannot confirm the receiver" once the
    // shop added a PromptPay payee, though it is plainly not the shop's.
    [
      'mixed mismatch + unknown, another name: MISMATCH',
      { name: 'ร้านอื่น', account: 'xxx-x-x3210-x', bankCode: '002' },
      [kbank, pp],
      { result: 'MISMATCH', basis: 'NAME' },
    ],
    [
      'one payee contradicted by bank, the other matched by name + bank',
      { name: 'นาย สมชาย ใจ', account: 'xxx-x-xxxxx-x', bankCode: '030' },
      [kbank, gsb],
      { result: 'MATCH', payeeIndex: 1, basis: 'NAME' },
    ],
    [
      'company names',
      { name: 'บริษัท ตัวอย่าง จำกัด', nameEn: 'EXAMPLE CO., LT', account: 'xxx-x-xxxxx-x', bankCode: '004' },
      [{ ...kbank, holder: 'บจก. ตัวอย่าง' }],
      { result: 'MATCH', payeeIndex: 0, basis: 'NAME' },
    ],
    [
      '12-digit GSB vs 10-digit payee, same tail digits, other bank',
      { name: 'x', account: 'xxxxxxxx6609', bankCode: '030' },
      [kbank],
      { result: 'MISMATCH', basis: 'BANK' },
    ],
    ['nothing on the slip', { name: '' }, [kbank], { result: 'UNKNOWN', basis: 'NONE' }],
    [
      'hostile strings',
      { name: '😀'.repeat(5_000), account: 'x'.repeat(10_000), proxy: { type: 'PHONE', value: '🎉'.repeat(5_000) }, bankCode: '💥' },
      [kbank, pp],
      { result: 'UNKNOWN', basis: 'NONE' },
    ],
  ];
  it.each(cases)('%s', (_label, receiver, payees, want) => {
    expect(matchReceiver(receiver, payees)).toEqual(want);
  });
});
