import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxBank, type SandboxBank } from '../src/sandbox-server.js';
import { buildSlipPayload } from '../src/slip-payload.js';
import { readQrTexts } from './qr-reader.js';

const KEY = 'sandbox-test-key';
let bank: SandboxBank;

const json = (method: string, body?: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body: body === undefined ? undefined : JSON.stringify(body),
});

async function call(path: string, init?: RequestInit) {
  const res = await fetch(bank.url + path, init);
  const type = res.headers.get('content-type') ?? '';
  return { res, status: res.status, body: type.includes('json') ? await res.json() : Buffer.from(await res.arrayBuffer()) };
}

const verify = (payload: string, key: string | null = KEY, signal?: AbortSignal) =>
  call('/api/checker/verify', { ...json('POST', { payload }, key ? { authorization: `Bearer ${key}` } : {}), signal });

const transfer = {
  sendingBank: '004',
  amount: 1250,
  sender: { name: 'นาย สมชาย ใจดี', nameEn: 'MR. SOMCHAI JAIDEE', account: '987-6-54321-0' },
  receiver: { name: 'บจก. ร้านกาแฟดีดี', account: '123-4-56660-9', bankCode: '004' },
  transDate: '2025-11-21T07:30:05Z',
};

async function createTransfer(overrides: Record<string, unknown> = {}) {
  const r = await call('/transfers', json('POST', { ...transfer, ...overrides }));
  expect(r.status).toBe(201);
  return r.body as { transRef: string; payload: string };
}

beforeAll(async () => {
  bank = await createSandboxBank({ apiKey: KEY });
});
afterAll(async () => {
  await bank.close();
});

describe('admin API', () => {
  it('answers health', async () => {
    expect((await call('/health')).body).toEqual({ status: 'ok' });
  });

  it('registers transfers and validates input', async () => {
    const t = await createTransfer();
    expect(t.transRef).toMatch(/^[0-9A-Za-z]{12,25}$/);
    expect(t.payload).toBe(buildSlipPayload('004', t.transRef));
    for (const bad of [
      { ...transfer, amount: -1 },
      { ...transfer, sendingBank: 'KBANK' },
      { ...transfer, receiver: { name: 'x', bankCode: '004' } },
      { ...transfer, transRef: 'has-dash' },
      { ...transfer, fault: 'explode' },
      { sendingBank: '004' },
    ]) {
      const r = await call('/transfers', json('POST', bad));
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body).toMatchObject({ status: 'BAD_REQUEST' });
    }
    expect((await call('/transfers', json('POST', { ...transfer, transRef: t.transRef }))).status).toBe(409);
    const second = await createTransfer({ amount: 99.5 });
    const recent = (await call('/transfers?limit=2')).body as Array<{ transRef: string; amount: number }>;
    expect(recent.map((r) => r.transRef)).toEqual([second.transRef, t.transRef]);
    expect(recent[1]).toMatchObject({ amount: 1250, receiver: 'บจก. ร้านกาแฟดีดี' });
    expect((await call('/transfers?limit=0')).status).toBe(400);
  });

  it('serves slip images that decode to the payload, and non-slips', async () => {
    const t = await createTransfer({ transRef: 'Ab12Cd34Ef56Gh78' });
    const png = await call(`/transfers/${t.transRef}/slip.png`);
    expect(png.res.headers.get('content-type')).toBe('image/png');
    expect(await readQrTexts(png.body as Buffer)).toEqual([t.payload]);
    const jpg = await call(`/transfers/${t.transRef}/slip.jpg?variant=w540`);
    expect(jpg.res.headers.get('content-type')).toBe('image/jpeg');
    expect((await sharp(jpg.body as Buffer).metadata()).width).toBe(540);
    expect((await call(`/transfers/${t.transRef}/slip.png?variant=nope`)).status).toBe(400);
    expect((await call('/transfers/UNKNOWN12345/slip.png')).status).toBe(404);
    const pp = await call('/non-slip/promptpay.png');
    expect(pp.status).toBe(200);
    expect((await readQrTexts(pp.body as Buffer))[0]).toMatch(/^000201/);
  });
});

describe('checker API', () => {
  it('finds a registered transfer with provider-shaped, masked data', async () => {
    const t = await createTransfer();
    const r = await verify(t.payload);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'FOUND',
      data: {
        transRef: t.transRef,
        sendingBank: '004',
        receivingBank: '004',
        amount: 1250,
        transDate: '2025-11-21T14:30:05+07:00',
        receiver: { name: 'บจก. ร้านกาแฟดีดี', account: 'xxx-x-x6660-x', proxy: null },
      },
    });
    const sender = (r.body as { data: { sender: { name: string; account: string } } }).data.sender;
    expect(sender.name.startsWith('นาย สมชาย ใ')).toBe(true);
    expect(sender.account).not.toContain('9876543210');
    expect(sender.account.replace(/\D/g, '')).toMatch(/^\d{3,5}$/);
  });

  it('masks differently for another bank pair, and shows PromptPay proxies', async () => {
    const t = await createTransfer({ sendingBank: '006' });
    const r = await verify(t.payload);
    expect((r.body as { data: { receiver: { account: string } } }).data.receiver.account).toBe('XXX-X-XX660-9');
    const p = await createTransfer({ receiver: { name: 'นาย ร้านค้า ดี', bankCode: '014', proxy: { type: 'PHONE', value: '0812345678' } } });
    const rp = await verify(p.payload);
    expect(rp.body).toMatchObject({ data: { receiver: { account: null, proxy: { type: 'PHONE', value: 'xxx-xxx-5678' } } } });
  });

  it('requires the API key', async () => {
    const t = await createTransfer();
    expect((await verify(t.payload, null)).status).toBe(401);
    expect((await verify(t.payload, 'wrong-key')).body).toMatchObject({ status: 'UNAUTHORIZED' });
  });

  it('answers NOT_FOUND for unknown or forged slips and BAD_PAYLOAD for a broken CRC', async () => {
    const t = await createTransfer();
    expect((await verify(buildSlipPayload('004', 'NeverRegistered123'))).body).toEqual({ status: 'NOT_FOUND' });
    // Forged: the real transRef under another bank code, with a freshly computed CRC.
    expect((await verify(buildSlipPayload('014', t.transRef))).status).toBe(404);
    const broken = t.payload.slice(0, -4) + (t.payload.endsWith('0000') ? '0001' : '0000');
    const r = await verify(broken);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 'BAD_PAYLOAD' });
    expect((await verify('not a slip at all')).status).toBe(400);
    expect((await call('/api/checker/verify', json('POST', {}, { authorization: `Bearer ${KEY}` }))).status).toBe(400);
  });

  it('applies per-transfer faults', async () => {
    const t = await createTransfer({ fault: 'pending' });
    const pending = await verify(t.payload);
    expect(pending.status).toBe(409);
    expect(pending.body).toEqual({ status: 'PENDING', retryAfterSeconds: 300 });
    expect(pending.res.headers.get('retry-after')).toBe('300');
    const patch = (fault: string | null) => call(`/transfers/${t.transRef}`, json('PATCH', { fault }));
    expect((await patch('error')).status).toBe(200);
    expect((await verify(t.payload)).status).toBe(503);
    await patch('not_found');
    expect((await verify(t.payload)).status).toBe(404);
    await patch(null);
    expect((await verify(t.payload)).status).toBe(200);
    expect((await call('/transfers/Unknown123456', json('PATCH', { fault: 'error' }))).status).toBe(404);
  });

  it('holds timeout-fault requests so clients time out', async () => {
    const t = await createTransfer({ fault: 'timeout' });
    const started = performance.now();
    await expect(verify(t.payload, KEY, AbortSignal.timeout(300))).rejects.toThrow();
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    // The server stays responsive meanwhile.
    expect((await call('/health')).status).toBe(200);
  });

  it('applies global latency and error rate, and counts calls', async () => {
    const t = await createTransfer();
    const before = ((await call('/stats')).body as { checkerCalls: number }).checkerCalls;
    await call('/faults', json('POST', { errorRate: 1 }));
    expect((await verify(t.payload)).status).toBe(503);
    await call('/faults', json('POST', { reset: true, latencyMs: 250 }));
    const started = performance.now();
    expect((await verify(t.payload)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    expect((await call('/faults', json('POST', { reset: true }))).body).toEqual({ latencyMs: 0, errorRate: 0 });
    expect(((await call('/stats')).body as { checkerCalls: number }).checkerCalls).toBe(before + 2);
    expect(bank.stats().checkerCalls).toBe(before + 2);
    expect((await call('/faults', json('POST', { errorRate: 2 }))).status).toBe(400);
  });
});

describe('lifecycle', () => {
  it('closes promptly while a timeout-fault request is held, answering it', async () => {
    const b = await createSandboxBank();
    const r = await fetch(`${b.url}/transfers`, json('POST', { ...transfer, fault: 'timeout' }));
    const { payload } = (await r.json()) as { payload: string };
    const held = fetch(`${b.url}/api/checker/verify`, json('POST', { payload }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    await b.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect((await held).status).toBe(504);
  });

  it('accepts any key when none is configured and answers shorter holds with 504', async () => {
    const b = await createSandboxBank({ timeoutHoldMs: 150 });
    try {
      const r = await fetch(`${b.url}/transfers`, json('POST', { ...transfer, fault: 'timeout' }));
      const { payload } = (await r.json()) as { payload: string };
      const res = await fetch(`${b.url}/api/checker/verify`, json('POST', { payload }));
      expect(res.status).toBe(504);
    } finally {
      await b.close();
    }
  });
});

describe('restart', () => {
  it('keeps transfers in its data dir: a transfer made before a restart still verifies after it', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-bank-'));
    try {
      const first = await createSandboxBank({ dataDir });
      const r = await fetch(`${first.url}/transfers`, json('POST', transfer));
      const { transRef, payload } = (await r.json()) as { transRef: string; payload: string };
      await fetch(`${first.url}/transfers/${transRef}`, json('PATCH', { fault: 'pending' }));
      await fetch(`${first.url}/transfers/${transRef}`, json('PATCH', { fault: null }));
      await first.close();

      const second = await createSandboxBank({ dataDir });
      try {
        const res = await fetch(`${second.url}/api/checker/verify`, json('POST', { payload }));
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({
          status: 'FOUND',
          data: { transRef, amount: 1250, transDate: '2025-11-21T14:30:05+07:00' },
        });
        // A taken transRef stays taken after the restart.
        expect((await fetch(`${second.url}/transfers`, json('POST', { ...transfer, transRef }))).status).toBe(409);
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
