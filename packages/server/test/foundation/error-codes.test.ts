/**
 * One error-code catalogue (issue 25): every code the server answers or writes on a record is in the
 * SDK's `ERROR_CODES` with its HTTP status and a Thai and an English meaning; the error type takes
 * only its codes (a typo fails `npm run typecheck`); the 402 says why it was answered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODE_WORDS, WORDED_RESULT_CODES, resultWord } from '@slipcheck/sdk';
import { AppError } from '../../src/errors.js';
import { ALL_ERROR_CODES, API_ERROR_CODES, ERROR_CODES, RESULT_ERROR_CODES, isErrorCode } from '../../src/lib/error-codes.js';
import { createHarness, DB_KINDS, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';

const SRC = path.resolve(import.meta.dirname, '../../src');
const sources = (): Array<{ file: string; text: string }> => {
  const out: Array<{ file: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) out.push({ file: path.relative(SRC, p), text: fs.readFileSync(p, 'utf8') });
    }
  };
  walk(SRC);
  return out;
};

describe('the error-code catalogue', () => {
  it('every entry has a status and a meaning in Thai and in English', () => {
    expect(ALL_ERROR_CODES.length).toBeGreaterThan(60);
    for (const code of ALL_ERROR_CODES) {
      const e = ERROR_CODES[code];
      expect(code, code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(e.status === 200 || (e.status >= 400 && e.status < 600), code).toBe(true);
      expect(e.th.trim(), `${code} th`).not.toBe('');
      expect(e.en.trim(), `${code} en`).not.toBe('');
      expect(/[\u0E00-\u0E7F]/.test(e.th), `${code}: the Thai meaning is Thai`).toBe(true);
      expect(/[\u0E00-\u0E7F]/.test(e.en), `${code}: the English meaning is English`).toBe(false);
      expect(e.en, code).not.toBe(code);
      // A record's code names the statuses it accompanies; an error's does not.
      expect(e.status === 200, code).toBe(e.on !== undefined);
    }
    expect(API_ERROR_CODES.length + RESULT_ERROR_CODES.length).toBe(ALL_ERROR_CODES.length);
  });

  it('every AppError the server throws uses a catalogue code with the catalogue status', () => {
    const thrown: string[] = [];
    for (const { file, text } of sources()) {
      for (const m of text.matchAll(/new AppError\(\s*'([A-Z0-9_]+)'\s*,\s*(\d{3})/g)) {
        const [, code, status] = m;
        thrown.push(code);
        expect(isErrorCode(code), `${file}: ${code} is not in the catalogue`).toBe(true);
        if (!isErrorCode(code)) continue;
        const e = ERROR_CODES[code];
        expect([e.status, ...(e.alsoStatus ?? [])], `${file}: ${code} thrown with ${status}`).toContain(Number(status));
      }
    }
    // The scan is not vacuous: the codes the issue counted are found.
    expect(thrown.filter((c) => c === 'VALIDATION_ERROR').length).toBeGreaterThan(15);
    expect(new Set(thrown).size).toBeGreaterThan(40);
  });

  it('every code the envelope and the decoder answer, and every errorCode written on a record, is in the catalogue', () => {
    const envelope = fs.readFileSync(path.join(SRC, 'http/envelope.ts'), 'utf8');
    // Node's and Fastify's own error codes and HTTP methods are what the envelope reads, not what it sends.
    const notSent = (c: string) =>
      c.startsWith('FST_') || ['HEAD', 'HPE_HEADER_OVERFLOW', 'HPE_INVALID_URL', 'ECONNRESET', 'ERR_HTTP_REQUEST_TIMEOUT'].includes(c);
    const sent = [...envelope.matchAll(/'([A-Z][A-Z_]{3,})'/g)].map((m) => m[1]!).filter((c) => !notSent(c));
    expect(sent).toEqual(expect.arrayContaining(['VALIDATION_ERROR', 'METHOD_NOT_ALLOWED', 'INTERNAL_ERROR', 'REQUEST_TIMEOUT']));
    for (const c of sent) expect(isErrorCode(c), `envelope sends ${c}`).toBe(true);

    const written: string[] = [];
    for (const { file, text } of sources()) {
      for (const m of text.matchAll(/(?:error_code|errorCode): '([A-Z0-9_]+)'/g)) {
        written.push(m[1]);
        expect(RESULT_ERROR_CODES, `${file}: record errorCode ${m[1]}`).toContain(m[1]);
      }
      for (const m of text.matchAll(/type (?:DecodeErrorCode|SlipPayloadErrorCode) = ([^;]+);/g))
        for (const c of m[1].matchAll(/'([A-Z_]+)'/g)) expect(RESULT_ERROR_CODES, `${file}: decoder code ${c[1]}`).toContain(c[1]);
    }
    expect(written).toEqual(expect.arrayContaining(['EDITED_SLIP', 'CHECK_NOT_SUPPORTED', 'CHECK_UNAVAILABLE', 'STALE_SLIP']));
  });

  it('the record codes people read say what the catalogue says (edited slips are not just "fake")', () => {
    for (const c of WORDED_RESULT_CODES) {
      expect(RESULT_ERROR_CODES).toContain(c);
      expect(ERROR_CODE_WORDS[c]).toEqual({ th: ERROR_CODES[c].th, en: ERROR_CODES[c].en });
    }
    expect(resultWord({ status: 'FRAUD', errorCode: 'EDITED_SLIP' }, 'en')).toBe('Edited slip');
    expect(resultWord({ status: 'FRAUD', errorCode: 'EDITED_SLIP' }, 'th')).toBe('สลิปถูกแก้ไข');
    expect(resultWord({ status: 'INVALID', errorCode: 'CHECK_NOT_SUPPORTED' }, 'en')).toBe('This kind of slip cannot be checked');
    expect(resultWord({ status: 'PROVIDER_ERROR', errorCode: 'CHECK_UNAVAILABLE' }, 'en')).toBe('Slip checking is unavailable for now');
    expect(resultWord({ status: 'FRAUD', errorCode: 'SLIP_NOT_FOUND' }, 'en')).toBe('Fake slip');
  });

  it('the error type refuses a code that is not in the catalogue (at compile time)', () => {
    // @ts-expect-error a typo of VALIDATION_ERROR is not an ErrorCode: `npm run typecheck` fails without this line's directive
    const typo = new AppError('VALIDATON_ERROR', 400, 'x');
    expect(isErrorCode(typo.code)).toBe(false);
    expect(isErrorCode('VALIDATION_ERROR')).toBe(true);
  });
});

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`the 402 says why [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await createHarness(kind);
    });
    afterAll(async () => h.close());

    const refusal = async (p: Promise<unknown>) => {
      const e = await p.then(
        () => null,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(AppError);
      return e as AppError;
    };

    it("TRIAL_ENDED for an ended trial, TRIAL_QUOTA for a trial's used-up slips, MONTHLY_QUOTA for a used-up month, TEST_CAP for a test key over its cap", async () => {
      const trial = await seedShop(h, { plan: 'TRIAL' });
      const plan = await h.c.plans.get('TRIAL');
      await h.c.db
        .updateTable('shops')
        .set({ trial_ends_at: new Date(Date.now() - 60_000).toISOString() })
        .where('id', '=', trial.shop.id)
        .execute();
      const ended = await refusal(h.c.quota.reserve(await h.c.shops.get(trial.shop.id), plan, 'live'));
      expect(ended).toMatchObject({ code: 'QUOTA_EXCEEDED', statusCode: 402, extra: { reason: 'TRIAL_ENDED' } });
      // Nothing more can be checked, whatever the 50 left unused: the screens showed "40 left" beside "trial ended".
      await h.c.quota.adjust(trial.shop.id, { used: 10 }, 'test');
      const after = await refusal(h.c.quota.reserve(await h.c.shops.get(trial.shop.id), plan, 'live'));
      expect(after.extra.quota).toEqual({ used: 10, limit: plan.monthlyLimit, remaining: 0 });
      expect(await h.c.quota.snapshot(await h.c.shops.get(trial.shop.id), plan)).toMatchObject({ used: 10, remaining: 0 });
      expect(await h.c.quota.recentSnapshot(await h.c.shops.get(trial.shop.id), plan)).toMatchObject({ used: 10, remaining: 0 });

      const running = await seedShop(h, { plan: 'TRIAL' });
      await h.c.quota.adjust(running.shop.id, { used: plan.monthlyLimit }, 'test');
      const used = await refusal(h.c.quota.reserve(running.shop, plan, 'live'));
      expect(used).toMatchObject({ code: 'QUOTA_EXCEEDED', statusCode: 402, extra: { reason: 'TRIAL_QUOTA' } });
      const paid = await seedShop(h);
      const starter = await h.c.plans.get('STARTER');
      await h.c.quota.adjust(paid.shop.id, { used: 510 }, 'test'); // 500 and the free buffer of 10
      const monthly = await refusal(h.c.quota.reserve(paid.shop, starter, 'live'));
      expect(monthly).toMatchObject({ code: 'QUOTA_EXCEEDED', statusCode: 402, extra: { reason: 'MONTHLY_QUOTA' } });

      await h.c.quota.adjust(running.shop.id, { testUsed: h.config.TEST_QUOTA_LIMIT }, 'test');
      const cap = await refusal(h.c.quota.reserve(running.shop, plan, 'test'));
      expect(cap).toMatchObject({ code: 'TEST_QUOTA_EXCEEDED', statusCode: 402, extra: { reason: 'TEST_CAP' } });
    });
  });
}
