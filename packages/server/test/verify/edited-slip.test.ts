import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderNonSlip } from '@slipcheck/sandbox-bank';
import { createHarness, DB_KINDS, type DbKind, type Harness, pgMissing, seedShop, skipNote } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/**
 * Issue 20: a genuine slip of a small transfer whose picture was edited to print a bigger amount.
 * Through POST /api/v1/verify, a real decoder pool (QR + OCR in the worker) and the sandbox bank.
 */
function fixture(kind: DbKind, mode: 'off' | 'alert' | 'reject') {
  const f = {} as { h: Harness; bank: Sandbox; s: Awaited<ReturnType<typeof seedShop>> };
  beforeAll(async () => {
    f.bank = await startSandbox();
    f.h = await createHarness(kind, {
      CHECKER: 'sandbox',
      CHECKER_URL: f.bank.url,
      CHECKER_TIMEOUT_MS: '2000',
      CHECKER_DEADLINE_MS: '4000',
      DECODE_THREADS: '1',
      SLIP_EDIT_MODE: mode,
    });
    f.s = await seedShop(f.h);
  }, 60_000);
  afterAll(async () => {
    await f.h?.close();
    await f.bank?.close();
  });
  const verify = async (image: Buffer) => {
    const r = await f.h.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      headers: { ...f.s.auth, 'content-type': 'application/octet-stream' },
      payload: image,
    });
    expect(r.statusCode).toBe(200);
    return r.json().data;
  };
  const alerts = async () =>
    (await f.h.c.db.selectFrom('outbox').select(['payload']).where('kind', '=', 'owner.alert').execute()).map((r) =>
      typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload,
    );
  return Object.assign(f, { verify, alerts });
}

/** Paints the amount rows of a classic slip white: the QR stays, the amount cannot be read. */
async function coverAmount(png: Buffer): Promise<Buffer> {
  const band = await sharp({ create: { width: 1080, height: 260, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
  return sharp(png)
    .composite([{ input: band, left: 0, top: 1240 }])
    .png()
    .toBuffer();
}

for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`edited slips, SLIP_EDIT_MODE=reject [${kind}]${skipNote(kind)}`, () => {
    const f = fixture(kind, 'reject');

    it('100 THB printed as 1,100.00: FRAUD EDITED_SLIP, the bank data kept, the printed amount beside it, charged', async () => {
      const t = await f.bank.register({ amount: 100 });
      const d = await f.verify(await f.bank.slip(t.transRef, 'clean', 'png', { edit: 'add' }));
      expect(d).toMatchObject({
        status: 'FRAUD',
        verified: false,
        errorCode: 'EDITED_SLIP',
        amount: 100,
        printedAmount: 1100,
        edited: true,
        transRef: t.transRef,
        senderName: expect.any(String),
        quota: { used: 1 },
      });
      expect(d.errorMessage).toContain('1,100.00');
      expect(d.errorMessage).toContain('100.00');
    });

    it('35 THB printed as 3,500.00 in a JPEG of the TrueMoney layout: FRAUD', async () => {
      const t = await f.bank.register({ amount: 35, sendingBank: 'TRUEMONEY' });
      const d = await f.verify(await f.bank.slip(t.transRef, 'jpeg70', 'jpg', { layout: 'truemoney', edit: 'decimal' }));
      expect(d).toMatchObject({ status: 'FRAUD', errorCode: 'EDITED_SLIP', amount: 35, printedAmount: 3500 });
    });

    it('genuine slips stay SUCCESS, with the printed amount read and equal', async () => {
      for (const [layout, variant, amount] of [
        ['classic', 'clean', 1250.5],
        ['scb', 'rot7', 20000],
        ['dark', 'jpeg70', 7.25],
      ] as const) {
        const t = await f.bank.register({ amount });
        const d = await f.verify(await f.bank.slip(t.transRef, variant, variant === 'jpeg70' ? 'jpg' : 'png', { layout }));
        expect(d, `${layout} ${variant}`).toMatchObject({
          status: 'SUCCESS',
          amount,
          printedAmount: amount,
          edited: false,
          errorCode: null,
        });
      }
    });

    it('an amount that cannot be read concludes nothing: SUCCESS, printedAmount null', async () => {
      const t = await f.bank.register({ amount: 100 });
      const d = await f.verify(await coverAmount(await f.bank.slip(t.transRef, 'clean', 'png', { edit: 'add' })));
      expect(d).toMatchObject({ status: 'SUCCESS', printedAmount: null, edited: false, errorCode: null });
    });

    it('an image the decoder refused is never read: INVALID, no printed amount', async () => {
      const d = await f.verify(await renderNonSlip('photo'));
      expect(d).toMatchObject({ status: 'INVALID', errorCode: 'NO_QR_FOUND', printedAmount: null, edited: false });
    });
  });

  describe.skipIf(pgMissing(kind))(`edited slips, SLIP_EDIT_MODE=alert [${kind}]${skipNote(kind)}`, () => {
    const f = fixture(kind, 'alert');
    it('keeps SUCCESS, marks it edited with the printed amount and alerts the owner', async () => {
      const t = await f.bank.register({ amount: 100 });
      const d = await f.verify(await f.bank.slip(t.transRef, 'clean', 'png', { edit: 'add' }));
      expect(d).toMatchObject({ status: 'SUCCESS', verified: true, errorCode: null, amount: 100, printedAmount: 1100, edited: true });
      expect(await f.alerts()).toContainEqual(expect.objectContaining({ type: 'EDITED_SLIP', transactionId: d.id }));
    });
  });

  describe.skipIf(pgMissing(kind))(`edited slips, SLIP_EDIT_MODE=off [${kind}]${skipNote(kind)}`, () => {
    const f = fixture(kind, 'off');
    it('reads nothing: the edited slip is SUCCESS as before, no printed amount', async () => {
      const t = await f.bank.register({ amount: 100 });
      const d = await f.verify(await f.bank.slip(t.transRef, 'clean', 'png', { edit: 'add' }));
      expect(d).toMatchObject({ status: 'SUCCESS', printedAmount: null, edited: false });
      expect(await f.alerts()).toEqual([]);
    });
  });
}

describe('slip.failed of an edited slip', () => {
  it('carries errorCode EDITED_SLIP, the printed amount and edited: true beside the bank amount', async () => {
    const { buildEvent } = await import('../../src/modules/webhooks/webhook-events.js');
    const { recordFromRow } = await import('../../src/modules/transactions/transaction-record.js');
    const { transactionRow } = await import('../helpers/records.js');
    const rec = recordFromRow(
      transactionRow('shop_x', new Date(), 'FRAUD', {
        amount_satang: 10_000,
        error_code: 'EDITED_SLIP',
        printed_amount_satang: 100_000,
        edited: 1,
      }),
    );
    const body = JSON.parse(buildEvent(rec, new Date()).body);
    expect(body.event).toBe('slip.failed');
    expect(body.data).toMatchObject({ status: 'FRAUD', amount: 100, errorCode: 'EDITED_SLIP', printedAmount: 1000, edited: true });
  });
});
