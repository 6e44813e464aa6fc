import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, type Harness, pgMissing, skipNote } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';
import { createDashHarness, signup, type Owner } from './dash-helpers.js';

// Issue 20 through the dashboard: an owner drops an edited slip on the check screen; the answer and
// the transactions list carry FRAUD EDITED_SLIP with both amounts (the result card's data).
for (const kind of DB_KINDS) {
  describe.skipIf(pgMissing(kind))(`dashboard: edited slips [${kind}]${skipNote(kind)}`, () => {
    let h: Harness;
    let bank: Awaited<ReturnType<typeof startSandbox>>;
    let a: Owner;
    beforeAll(async () => {
      bank = await startSandbox();
      ({ h } = await createDashHarness(kind, { CHECKER: 'sandbox', CHECKER_URL: bank.url, DECODE_THREADS: '1', SLIP_EDIT_MODE: 'reject' }));
      a = await signup(h);
      const payee = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/payees',
        headers: a.auth,
        payload: { bankCode: '004', accountNumber: '1234566609', holder: 'บจก. ร้านกาแฟ ทดสอบ' },
      });
      expect(payee.statusCode).toBe(201);
    }, 60_000);
    afterAll(async () => {
      await h?.close();
      await bank?.close();
    });

    it('the check answers FRAUD EDITED_SLIP with the bank amount and the printed one; the list shows both', async () => {
      const t = await bank.register({ amount: 100 });
      const r = await h.app.inject({
        method: 'POST',
        url: '/api/dashboard/verify',
        headers: { ...a.auth, 'content-type': 'image/png' },
        payload: await bank.slip(t.transRef, 'clean', 'png', { layout: 'kplus', edit: 'add' }),
      });
      expect(r.statusCode).toBe(200);
      expect(r.json().data).toMatchObject({
        status: 'FRAUD',
        errorCode: 'EDITED_SLIP',
        amount: 100,
        printedAmount: 1100,
        edited: true,
        source: 'DASHBOARD',
      });
      const list = await h.app.inject({ url: '/api/dashboard/transactions', headers: a.auth });
      const items = list.json().data.items;
      expect(items[0]).toMatchObject({ id: r.json().data.id, status: 'FRAUD', printedAmount: 1100, edited: true, amount: 100 });
    });
  });
}
