import { describe, expect, it } from 'vitest';
import { parse } from 'promptparse';
import { slipVerify as genSlipVerify, trueMoneySlipVerify as genTrueMoney } from 'promptparse/generate';
import { anyId as validateAnyId, slipVerify as validateSlipVerify } from 'promptparse/validate';
import {
  buildPromptPayPayload,
  buildSlipPayload,
  buildTrueMoneyPayload,
  crc16,
  parseSlipPayload,
  randomTransRef,
} from '../src/slip-payload.js';
import { displayName, maskAccount, maskProxy, maskStyleFor } from '../src/account-mask.js';

// Independent table-driven CRC-16/CCITT-FALSE, written separately from the bitwise one under test.
const TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n << 8;
  for (let k = 0; k < 8; k++) c = (c & 0x8000 ? (c << 1) ^ 0x1021 : c << 1) & 0xffff;
  return c;
});
const crcRef = (s: string) => [...s].reduce((crc, ch) => ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ ch.charCodeAt(0)) & 0xff], 0xffff);

describe('crc16', () => {
  it('matches the CRC-16/CCITT-FALSE check value', () => {
    expect(crc16('123456789')).toBe(0x29b1);
    expect(crc16('')).toBe(0xffff);
  });
  it('agrees with an independent implementation', () => {
    for (const s of ['0041000600000101030040220014225091423BPM0000951 02TH9104', 'A', 'slipcheck', '00020101021129370016']) {
      expect(crc16(s)).toBe(crcRef(s));
    }
  });
});

describe('buildSlipPayload', () => {
  it('builds the exact mini-QR layout', () => {
    const p = buildSlipPayload('004', '014225091423BPM00009');
    const head = '0041' + '0006000001' + '0103004' + '0220014225091423BPM00009' + '5102TH' + '9104';
    expect(p.slice(0, -4)).toBe(head);
    expect(p.slice(-4)).toBe(crcRef(head).toString(16).toUpperCase().padStart(4, '0'));
    expect(p.slice(-4)).toMatch(/^[0-9A-F]{4}$/);
  });
  it('equals promptparse output and validates with it', () => {
    for (let i = 0; i < 50; i++) {
      const ref = randomTransRef();
      const p = buildSlipPayload('014', ref);
      expect(p).toBe(genSlipVerify({ sendingBank: '014', transRef: ref }));
      expect(validateSlipVerify(p)).toEqual({ sendingBank: '014', transRef: ref });
      expect(parseSlipPayload(p)).toEqual({ kind: 'bank', sendingBank: '014', transRef: ref });
    }
  });
  it('rejects non-alphanumeric refs and bad bank codes', () => {
    expect(() => buildSlipPayload('4', 'ABC123456789')).toThrow();
    expect(() => buildSlipPayload('004', 'ABC-123')).toThrow();
  });
});

describe('parseSlipPayload', () => {
  const p = buildSlipPayload('006', 'Ab12Cd34Ef56Gh');
  it('reports a wrong CRC as BAD_CRC', () => {
    const last = p.slice(-1) === '0' ? '1' : '0';
    expect(parseSlipPayload(p.slice(0, -1) + last)).toBe('BAD_CRC');
    // A forged transRef with the original CRC.
    expect(parseSlipPayload(p.replace('Ab12', 'Ab13'))).toBe('BAD_CRC');
  });
  it('accepts a CRC printed without leading zeros and lowercase hex', () => {
    const refs = Array.from({ length: 4000 }, (_, i) => `REF${String(i).padStart(9, '0')}`);
    const withZero = refs.map((r) => buildSlipPayload('004', r)).find((x) => x.slice(-4).startsWith('0'))!;
    expect(withZero).toBeDefined();
    const short = withZero.slice(0, -4) + withZero.slice(-4).replace(/^0+/, '');
    expect(parseSlipPayload(short)).toMatchObject({ kind: 'bank', sendingBank: '004' });
    expect(parseSlipPayload(withZero.slice(0, -4) + withZero.slice(-4).toLowerCase())).toMatchObject({ kind: 'bank' });
  });
  it('rejects things that are not slip payloads', () => {
    expect(parseSlipPayload('hello')).toBe('MALFORMED');
    expect(parseSlipPayload(buildPromptPayPayload('0812345678', 10))).toBe('MALFORMED');
    expect(parseSlipPayload('0010000600000191040000')).not.toMatchObject({ kind: 'bank' });
  });
});

describe('TrueMoney and PromptPay payloads', () => {
  it('builds the TrueMoney layout like promptparse (lowercase CRC, no tag 51)', () => {
    const p = buildTrueMoneyPayload({ transactionId: '50101234567890', date: '21112026' });
    expect(p).toBe(genTrueMoney({ eventType: 'P2P', transactionId: '50101234567890', date: '21112026' }));
    expect(p).not.toContain('5102TH');
    expect(p.slice(-4)).toMatch(/^[0-9a-f]{4}$/);
    expect(parseSlipPayload(p)).toEqual({ kind: 'truemoney', transRef: '50101234567890', eventType: 'P2P', date: '21112026' });
  });
  it('builds a valid PromptPay merchant QR', () => {
    const p = buildPromptPayPayload('0812345678', 1250);
    expect(p.startsWith('000201010212')).toBe(true);
    expect(parse(p, true)).not.toBeNull();
    expect(validateAnyId(p)).toMatchObject({ type: 'MSISDN', target: '0812345678', amount: 1250 });
  });
});

describe('randomTransRef', () => {
  it('is alphanumeric, 12-25 chars', () => {
    for (let i = 0; i < 300; i++) expect(randomTransRef()).toMatch(/^[0-9A-Za-z]{12,25}$/);
  });
});

describe('masking', () => {
  const acct = '1234566609';
  it('masks one account in each bank style', () => {
    expect(maskAccount(acct, 'kbank')).toBe('xxx-x-x6660-x');
    expect(maskAccount(acct, 'ktb')).toBe('XXX-X-XX660-9');
    expect(maskAccount(acct, 'scb')).toBe('xxx-xxx660-9');
    expect(maskAccount('123456789012', 'kbank')).toBe('xxxxxxxx9012');
  });
  it('picks styles per bank pair deterministically', () => {
    expect(maskStyleFor('004', '004', 'receiver')).toBe('kbank');
    expect(maskStyleFor('006', '004', 'receiver')).toBe('ktb');
    expect(maskStyleFor('025', '011', 'sender')).toBe(maskStyleFor('025', '011', 'sender'));
  });
  it('masks proxies and shortens names like real slips', () => {
    expect(maskProxy('PHONE', '0812345678')).toBe('xxx-xxx-5678');
    expect(maskProxy('NATID', '1234567890123')).toBe('x-xxxx-xxxxx-12-3');
    const pairs = [
      ['004', '004'],
      ['006', '004'],
      ['014', '002'],
      ['025', '030'],
      ['011', '069'],
    ];
    const shown = pairs.map(([s, r]) => displayName('นาย สมชาย ใจดี', s, r, 'sender'));
    expect(shown.every((n) => n === 'นาย สมชาย ใจดี' || n === 'นาย สมชาย ใ')).toBe(true);
    const partialPair = pairs.find(([s, r]) => displayName('นาย สมชาย ใจดี', s, r, 'sender') !== 'นาย สมชาย ใจดี')!;
    expect(partialPair).toBeDefined();
    expect(displayName('MR. SOMCHAI JAIDEE', partialPair[0], partialPair[1], 'sender')).toBe('MR. SOMCHAI J');
    expect(displayName('บจก. ร้านกาแฟดีดี', partialPair[0], partialPair[1], 'sender')).toBe('บจก. ร้านกาแฟดีดี');
  });
});
