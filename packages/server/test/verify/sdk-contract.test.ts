import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSlipcheckClient, SlipcheckApiError } from '@slipcheck/sdk';
import { createHarness, seedShop, type Harness } from '../helpers/harness.js';
import { startSandbox } from '../helpers/sandbox.js';

// The integrator SDK against the real service over HTTP: its types and the server's answers agree.
describe('SDK client against the real service', () => {
  let h: Harness;
  let bank: Awaited<ReturnType<typeof startSandbox>>;
  let baseUrl: string;
  beforeAll(async () => {
    bank = await startSandbox();
    h = await createHarness('sqlite', { CHECKER_URL: bank.url, DECODE_THREADS: '1' });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(async () => {
    await h.close();
    await bank.close();
  });

  it('verify, replay, duplicate, me, quota, transactions and errors', async () => {
    const s = await seedShop(h);
    const client = createSlipcheckClient({ apiKey: s.key, baseUrl });
    const me = await client.me();
    expect(me.shop.id).toBe(s.shop.id);
    expect(me.payeeAccounts[0].accountLast4).toBe('6609');

    const t = await bank.register({ amount: 300 });
    const img = await bank.slip(t.transRef);
    const first = await client.verify(img, { amount: 300, clientRef: 'order-77' });
    expect(first).toMatchObject({ status: 'SUCCESS', verified: true, duplicate: false, cached: false, amount: 300, clientRef: 'order-77' });
    expect(first.quotaHeaders?.used).toBe(1);
    // A replay is an identical request (the amount as a string or a number is the same amount).
    const again = await client.verify(img, { amount: '300.00', clientRef: 'order-77' });
    expect(again).toMatchObject({ id: first.id, cached: true });
    // The same image for another order is a DUPLICATE, not order-77's cached SUCCESS.
    const otherOrder = await client.verify(img, { amount: 500, clientRef: 'order-78' });
    expect(otherOrder).toMatchObject({ status: 'DUPLICATE', duplicate: true, verified: false, cached: false });
    const dup = await client.verify(await bank.slip(t.transRef, 'w540'));
    expect(dup).toMatchObject({ status: 'DUPLICATE', duplicate: true, verified: false });

    expect(await client.quota()).toMatchObject({ used: 1, limit: 500 });
    const all = [];
    for await (const tx of client.transactions({ limit: 1 })) all.push(tx.id);
    expect(all).toEqual([dup.id, otherOrder.id, first.id]);
    expect((await client.getTransaction(first.id)).clientRef).toBe('order-77');

    const err = await client.getTransaction('txn_missing').catch((e) => e);
    expect(err).toBeInstanceOf(SlipcheckApiError);
    expect(err).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
    const bad = createSlipcheckClient({ apiKey: 'sk_live_wrong', baseUrl, maxRetries: 0 });
    await expect(bad.quota()).rejects.toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
  });

  it('a baseUrl without /api/v1 is named as the cause, not only "answered 200 without a success envelope"', async () => {
    const s = await seedShop(h);
    // The host alone: GET /quota and /me reach the dashboard's page (200, text/html), not the API.
    const host = baseUrl.replace(/\/api\/v1$/, '');
    for (const base of [host, `${host}/`]) {
      const client = createSlipcheckClient({ apiKey: s.key, baseUrl: base, maxRetries: 0 });
      for (const call of [() => client.quota(), () => client.me()]) {
        const err = await call().catch((e) => e);
        expect(err).toBeInstanceOf(SlipcheckApiError);
        expect(err).toMatchObject({ statusCode: 200, code: 'INVALID_RESPONSE' });
        expect(err.message).toContain('text/html');
        expect(err.message).toContain(`baseUrl must include the API prefix /api/v1 (${host}/api/v1)`);
      }
    }
  });
});
