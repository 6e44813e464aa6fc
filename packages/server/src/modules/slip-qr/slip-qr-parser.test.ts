import { describe, expect, it } from 'vitest';
import { anyId, slipVerify as ppBuildSlip, trueMoneySlipVerify as ppBuildTrueMoney } from 'promptparse/generate';
import { slipVerify as ppSlipVerify, trueMoneySlipVerify as ppTrueMoneyVerify } from 'promptparse/validate';
import { BANKS, crc16ccittFalse, parseSlipPayload } from './index.js';
// Seeded PRNG (mulberry32), the sandbox's: a failing case can be replayed from its seed.
import { prng } from '@slipcheck/sandbox-bank';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function alnum(rnd: () => number, len: number): string {
  let s = '';
  for (let i = 0; i < len; i++) s += ALNUM[Math.floor(rnd() * ALNUM.length)];
  return s;
}

function bankPayload(bank: string, transRef: string): string {
  const body =
    `00${String(10 + 7 + 4 + transRef.length).padStart(2, '0')}0006000001` +
    `0103${bank}02${String(transRef.length).padStart(2, '0')}${transRef}5102TH9104`;
  return body + crc16ccittFalse(body);
}

describe('crc16ccittFalse', () => {
  it('matches the CRC-16/CCITT-FALSE check value and pads to 4 uppercase digits', () => {
    expect(crc16ccittFalse('123456789')).toBe('29B1');
    expect(crc16ccittFalse('')).toBe('FFFF');
    for (let i = 0; i < 2000; i++) expect(crc16ccittFalse(`x${i}`)).toMatch(/^[0-9A-F]{4}$/);
  });
});

describe('parseSlipPayload: bank layout', () => {
  it('reads bank code, bank name and a mixed-case alphanumeric transRef', () => {
    const p = bankPayload('004', '015142155229CTF07587aB');
    expect(parseSlipPayload(p)).toEqual({
      ok: true,
      kind: 'BANK',
      bankCode: '004',
      bankName: 'Kasikornbank',
      transRef: '015142155229CTF07587aB',
      payload: p,
    });
  });

  it('agrees with promptparse on a payload it generates', () => {
    const p = ppBuildSlip({ sendingBank: '014', transRef: '2023091815201234567Ab' });
    const r = parseSlipPayload(p);
    expect(r).toMatchObject({ ok: true, bankCode: '014', transRef: '2023091815201234567Ab' });
  });

  it('accepts a CRC printed without its leading zeros and returns the padded payload', () => {
    // Find refs whose CRC starts with zeros, then drop them as some bank apps do.
    let found = 0;
    for (let i = 0; found < 3 && i < 200_000; i++) {
      const p = bankPayload('002', `REF${String(i).padStart(10, '0')}`);
      const crc = p.slice(-4);
      if (!crc.startsWith('0')) continue;
      found++;
      const short = p.slice(0, -4) + crc.replace(/^0+/, '');
      const r = parseSlipPayload(short);
      expect(r).toMatchObject({ ok: true, bankCode: '002', payload: p });
      expect(ppSlipVerify(short)).not.toBeNull();
    }
    expect(found).toBe(3);
  });

  it('accepts a lowercase CRC and surrounding whitespace (scanner newline)', () => {
    const p = bankPayload('025', 'AbCdEf123456');
    const lower = p.slice(0, -4) + p.slice(-4).toLowerCase();
    expect(parseSlipPayload(` ${lower}\r\n`)).toMatchObject({ ok: true, bankCode: '025', transRef: 'AbCdEf123456' });
  });

  it('names every bank of the table', () => {
    expect(Object.keys(BANKS)).toHaveLength(22);
    for (const [code, info] of Object.entries(BANKS)) {
      const r = parseSlipPayload(bankPayload(code, 'X1y2Z3w4V5u6'));
      expect(r).toMatchObject({ ok: true, bankCode: code, bankName: info.nameEn });
      expect(info.short).toMatch(/^[A-Z]+$/);
      expect(info.nameTh).toMatch(/^ธนาคาร/);
    }
    expect(BANKS['014'].short).toBe('SCB');
    expect(BANKS['098'].short).toBe('SME');
  });

  it('says BAD_CHECKSUM when the content does not match the CRC', () => {
    const p = bankPayload('006', 'ABCDEFGHIJKL1234');
    const tampered = p.replace('ABCDEFGHIJKL1234', 'ABCDEFGHIJKL1235');
    expect(parseSlipPayload(tampered)).toMatchObject({ ok: false, errorCode: 'BAD_CHECKSUM' });
    const badCrc = p.slice(0, -4) + (p.slice(-4) === '0000' ? '0001' : '0000');
    expect(parseSlipPayload(badCrc)).toMatchObject({ ok: false, errorCode: 'BAD_CHECKSUM' });
  });

  it('says UNKNOWN_BANK for a well-formed slip of a bank outside the table', () => {
    expect(parseSlipPayload(bankPayload('999', 'ABCDEFGHIJKL'))).toMatchObject({
      ok: false,
      errorCode: 'UNKNOWN_BANK',
      bankCode: '999',
    });
  });

  it('rejects slips without the TH country tag, with a bad API id or a bad transRef as NOT_SLIP_QR', () => {
    const noCountry = (() => {
      const body = '00330006000001010300402121234567890AB9104';
      return body + crc16ccittFalse(body);
    })();
    expect(parseSlipPayload(noCountry)).toMatchObject({ ok: false, errorCode: 'NOT_SLIP_QR' });
    const apiId = (() => {
      const body = '00330006000002010300402121234567890AB5102TH9104';
      return body + crc16ccittFalse(body);
    })();
    expect(parseSlipPayload(apiId)).toMatchObject({ ok: false, errorCode: 'NOT_SLIP_QR' });
    expect(parseSlipPayload(bankPayload('004', 'ABC-DEF-12345'))).toMatchObject({ errorCode: 'NOT_SLIP_QR' });
    expect(parseSlipPayload(bankPayload('004', 'ABC12'))).toMatchObject({ errorCode: 'NOT_SLIP_QR' });
  });

  it('rejects a PromptPay payment QR and non-slip text as NOT_SLIP_QR', () => {
    const promptPay = anyId({ type: 'MSISDN', target: '0812345678', amount: 100 });
    expect(parseSlipPayload(promptPay)).toMatchObject({ ok: false, errorCode: 'NOT_SLIP_QR' });
    for (const s of ['', '   ', 'https://example.com/', 'hello', '0000', '9104ABCD', 'ทดสอบ']) {
      expect(parseSlipPayload(s)).toMatchObject({ ok: false, errorCode: 'NOT_SLIP_QR' });
    }
  });
});

describe('parseSlipPayload: TrueMoney layout', () => {
  it('reads a wallet slip (no tag 51, lowercase CRC)', () => {
    const p = ppBuildTrueMoney({ eventType: 'P2P', transactionId: '50001234567890', date: '18092024' });
    expect(p).toMatch(/[0-9a-f]{4}$/);
    expect(parseSlipPayload(p)).toEqual({
      ok: true,
      kind: 'TRUEMONEY',
      bankCode: 'TRUEMONEY',
      bankName: 'TrueMoney Wallet',
      transRef: '50001234567890',
      payload: p,
      trueMoney: { eventType: 'P2P', date: '18092024' },
    });
  });

  it('says BAD_CHECKSUM for a tampered wallet slip', () => {
    const p = ppBuildTrueMoney({ eventType: 'P2P', transactionId: '50001234567890', date: '18092024' });
    expect(parseSlipPayload(p.replace('500012', '500013'))).toMatchObject({ ok: false, errorCode: 'BAD_CHECKSUM' });
  });
});

describe('parseSlipPayload: fuzz (never throws, always typed)', () => {
  function assertTyped(r: ReturnType<typeof parseSlipPayload>): void {
    if (r.ok) {
      expect(['BANK', 'TRUEMONEY']).toContain(r.kind);
      expect(r.transRef).toMatch(/^[A-Za-z0-9]+$/);
    } else {
      expect(['NOT_SLIP_QR', 'BAD_CHECKSUM', 'UNKNOWN_BANK']).toContain(r.errorCode);
      expect(r.message.length).toBeGreaterThan(0);
    }
  }

  it('random bytes, random digit strings and random TLV-ish strings', () => {
    const rnd = prng(1234);
    for (let i = 0; i < 20_000; i++) {
      const len = Math.floor(rnd() * 120);
      let s = '';
      const mode = i % 3;
      for (let k = 0; k < len; k++) {
        s +=
          mode === 0
            ? String.fromCharCode(Math.floor(rnd() * 0x10000))
            : mode === 1
              ? String(Math.floor(rnd() * 10))
              : '0123456789THABCDEF'[Math.floor(rnd() * 18)];
      }
      const r = parseSlipPayload(s);
      assertTyped(r);
      expect(r.ok).toBe(false);
    }
  });

  it('every truncation of a valid payload is rejected', () => {
    for (const p of [
      bankPayload('014', 'AbCdEf0123456789xyz'),
      ppBuildTrueMoney({ eventType: 'P2P', transactionId: 'TX1234567890', date: '01012025' }),
    ]) {
      for (let n = 0; n < p.length; n++) {
        const r = parseSlipPayload(p.slice(0, n));
        assertTyped(r);
        expect(r.ok, p.slice(0, n)).toBe(false);
      }
    }
  });

  it('huge strings and non-strings return quickly', () => {
    const t0 = performance.now();
    const huge = bankPayload('004', 'ABCDEFGHIJKL').repeat(200_000);
    expect(parseSlipPayload(huge)).toMatchObject({ ok: false, errorCode: 'NOT_SLIP_QR' });
    expect(parseSlipPayload('9'.repeat(5_000_000))).toMatchObject({ ok: false });
    expect(parseSlipPayload(undefined as unknown as string)).toMatchObject({ ok: false, errorCode: 'NOT_SLIP_QR' });
    expect(parseSlipPayload({} as unknown as string)).toMatchObject({ ok: false });
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});

describe('parseSlipPayload against promptparse (differential oracle)', () => {
  const codes = Object.keys(BANKS);

  function mutate(p: string, rnd: () => number): string {
    const at = Math.floor(rnd() * p.length);
    switch (Math.floor(rnd() * 9)) {
      case 0:
        return p; // untouched
      case 1:
        return p.slice(0, at) + ALNUM[Math.floor(rnd() * ALNUM.length)] + p.slice(at + 1); // substitute
      case 2:
        return p.slice(0, at) + p.slice(at + 1); // delete
      case 3:
        return p.slice(0, at) + String(Math.floor(rnd() * 10)) + p.slice(at); // insert
      case 4:
        return p.slice(0, at); // truncate
      case 5:
        return p.slice(0, -4) + p.slice(-4).replace(/^0+/, ''); // short CRC
      case 6:
        return p.slice(0, -4) + p.slice(-4).toLowerCase();
      case 7: {
        const body = p.replace('5102TH', '').slice(0, -4); // drop the country tag, re-sign
        return body + crc16ccittFalse(body);
      }
      default: {
        const body = p.slice(0, -8) + '5802TH9104'; // extra tag before the CRC, re-sign
        return body + crc16ccittFalse(body);
      }
    }
  }

  it('5000 random bank payloads: our accepts are a subset of promptparse accepts, canonical ones agree', () => {
    const rnd = prng(20240918);
    let bothOk = 0;
    let canonicalChecked = 0;
    for (let i = 0; i < 5000; i++) {
      const bank = rnd() < 0.85 ? codes[Math.floor(rnd() * codes.length)] : String(Math.floor(rnd() * 1000)).padStart(3, '0');
      const ref = alnum(rnd, 6 + Math.floor(rnd() * 30));
      const canonical = ppBuildSlip({ sendingBank: bank, transRef: ref });
      const p = i % 4 === 0 ? canonical : mutate(canonical, rnd);
      const ours = parseSlipPayload(p);
      const theirs = ppSlipVerify(p);
      if (ours.ok) {
        expect(theirs, p).toEqual({ sendingBank: ours.bankCode, transRef: ours.transRef });
        bothOk++;
      }
      // Where promptparse accepts the exact canonical layout of a known bank, we must accept it too.
      const padded = p.slice(0, -4) + p.slice(-4).padStart(4, '0');
      const isCanonical =
        theirs !== null &&
        BANKS[theirs.sendingBank] !== undefined &&
        /^[A-Za-z0-9]{8,64}$/.test(theirs.transRef) &&
        padded.toUpperCase() === ppBuildSlip(theirs).toUpperCase();
      if (isCanonical) canonicalChecked++;
      if (isCanonical) expect(ours, p).toMatchObject({ ok: true, bankCode: theirs.sendingBank, transRef: theirs.transRef });
      if (!ours.ok && ours.errorCode === 'BAD_CHECKSUM') expect(theirs, p).toBeNull();
    }
    expect(bothOk).toBeGreaterThan(1000);
    expect(canonicalChecked).toBeGreaterThan(1000);
  });

  it('2000 random TrueMoney payloads agree with promptparse', () => {
    const rnd = prng(777);
    for (let i = 0; i < 2000; i++) {
      const tx = alnum(rnd, 8 + Math.floor(rnd() * 20));
      const date = `${String(1 + Math.floor(rnd() * 28)).padStart(2, '0')}${String(1 + Math.floor(rnd() * 12)).padStart(2, '0')}20${20 + Math.floor(rnd() * 10)}`;
      const canonical = ppBuildTrueMoney({ eventType: 'P2P', transactionId: tx, date });
      const p = i % 2 === 0 ? canonical : mutate(canonical, rnd);
      const ours = parseSlipPayload(p);
      const theirs = ppTrueMoneyVerify(p);
      if (p === canonical) expect(ours, p).toMatchObject({ ok: true, kind: 'TRUEMONEY', transRef: tx });
      // promptparse does not re-pad a short wallet CRC; compare on the payload we normalised.
      if (ours.ok) expect(ppTrueMoneyVerify(ours.payload)?.transactionId, p).toBe(ours.transRef);
      if (theirs === null && ours.ok) expect(p).not.toBe(ours.payload);
    }
  });
});
