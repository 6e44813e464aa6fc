import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLineClient,
  LineApiError,
  LineContentGoneError,
  LineContentTooLargeError,
  retryKeyFor,
} from '../../src/modules/line/line-client.js';
import { resultMessage } from '../../src/modules/line/line-messages.js';
import { STATUSES, type TransactionRecord } from '../../src/modules/transactions/transaction-record.js';
import { lineLimitProblems, startFakeLinePlatform, type FakeLinePlatform, type FakeChannel } from './fake-line-platform.js';

describe('LINE client against the fake platform', () => {
  let fake: FakeLinePlatform;
  let ch: FakeChannel;
  const waits: number[] = [];
  const client = (o: Partial<Parameters<typeof createLineClient>[0]> = {}) =>
    createLineClient({
      apiBaseUrl: fake.url,
      dataApiBaseUrl: fake.url,
      // Far above a loopback answer on a loaded full run; the timeout case below sets its own.
      timeoutMs: 3_000,
      retries: 2,
      maxImageBytes: 1000,
      sleep: async (ms) => {
        waits.push(ms);
      },
      ...o,
    });
  beforeAll(async () => {
    fake = await startFakeLinePlatform();
    ch = fake.addChannel();
  });
  afterAll(async () => fake.close());

  it('downloads content within the cap; refuses larger content; 404/410 are "gone" and not retried', async () => {
    fake.setContent('ok', Buffer.alloc(1000, 7));
    expect((await client().getContent(ch.token, 'ok')).length).toBe(1000);
    fake.setContent('big', Buffer.alloc(1001, 7));
    await expect(client().getContent(ch.token, 'big')).rejects.toBeInstanceOf(LineContentTooLargeError);
    const hits = fake.hits.content;
    fake.setContentStatus('gone', 410);
    await expect(client().getContent(ch.token, 'gone')).rejects.toBeInstanceOf(LineContentGoneError);
    expect(fake.hits.content - hits).toBe(1);
  });

  it('enforces the size cap while streaming: an endless chunked answer (no Content-Length) stops at the cap, not at the timeout', async () => {
    let closed = false;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg' }); // chunked: no length to check up front
      const t = setInterval(() => res.write(Buffer.alloc(256, 1)), 2);
      res.on('close', () => {
        closed = true;
        clearInterval(t);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const started = Date.now();
      await expect(client({ dataApiBaseUrl: base, timeoutMs: 5000, retries: 0 }).getContent(ch.token, 'endless')).rejects.toBeInstanceOf(
        LineContentTooLargeError,
      );
      expect(Date.now() - started).toBeLessThan(2000);
      await expect.poll(() => closed).toBe(true); // the download was cancelled, not read to the end
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('times out slow answers and retries them; honours Retry-After; gives up on a Retry-After past the limit', async () => {
    fake.setContent('slow', Buffer.alloc(10, 1));
    fake.fail('content', { status: 200, delayMs: 4_000 }, { status: 200, delayMs: 4_000 });
    waits.length = 0;
    expect((await client({ timeoutMs: 1_000 }).getContent(ch.token, 'slow')).length).toBe(10);
    expect(waits).toHaveLength(2);

    waits.length = 0;
    fake.fail('push', { status: 429, retryAfter: '3' });
    await client().push(ch.token, 'Uabc', [{ type: 'text', text: 'hi' }]);
    expect(waits).toEqual([3000]);

    fake.fail('push', { status: 429, retryAfter: '120' });
    const err = await client()
      .push(ch.token, 'Uabc', [{ type: 'text', text: 'hi' }])
      .catch((e) => e);
    expect(err).toBeInstanceOf(LineApiError);
    expect(err).toMatchObject({ status: 429, retryable: true });
  });

  it('does not retry a 4xx; a push retried with the same key is accepted once (409 counts as sent)', async () => {
    const once = fake.issueReplyToken(ch, 'Ucustomer');
    await client().reply(ch.token, once, [{ type: 'text', text: 'x' }]);
    const hits = fake.hits.reply;
    await expect(client().reply(ch.token, once, [{ type: 'text', text: 'x' }])).rejects.toMatchObject({
      status: 400,
      lineMessage: 'Invalid reply token',
    });
    expect(fake.hits.reply - hits).toBe(1);
    const key = retryKeyFor('evt-1:answer');
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const before = fake.sentTo('Udedupe').length;
    await client().push(ch.token, 'Udedupe', [{ type: 'text', text: 'once' }], key);
    await client().push(ch.token, 'Udedupe', [{ type: 'text', text: 'once' }], key);
    expect(fake.sentTo('Udedupe').length - before).toBe(1);
    await expect(client().botInfo('wrong-token')).rejects.toMatchObject({ status: 401 });
  });
  it('LINE 429 "monthly limit" is not retried (no Retry-After wait); other 429s are', async () => {
    const hits = fake.hits.push;
    fake.fail('push', { status: 429, body: { message: 'You have reached your monthly limit.' }, retryAfter: '1' });
    const err = await client()
      .push(ch.token, 'Uanyone', [{ type: 'text', text: 'hi' }])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LineApiError);
    expect((err as LineApiError).monthlyLimit).toBe(true);
    expect(fake.hits.push - hits).toBe(1);
    fake.fail('push', { status: 429, retryAfter: '0' });
    await expect(client().push(ch.token, 'Uanyone', [{ type: 'text', text: 'hi' }])).resolves.toBe('sent');
  });

  it('external images go through the SSRF guard: loopback and plain http are refused unless private targets are allowed', async () => {
    fake.setContent('ext1', Buffer.alloc(10, 1));
    const before = fake.externalHits;
    await expect(client().getExternalContent(`${fake.url}/external/ext1`)).rejects.toBeInstanceOf(LineContentGoneError);
    await expect(client().getExternalContent('https://127.0.0.1:1/x.jpg')).rejects.toBeInstanceOf(LineContentGoneError);
    await expect(client().getExternalContent('https://[::ffff:10.0.0.1]/x.jpg')).rejects.toBeInstanceOf(LineContentGoneError);
    expect(fake.externalHits).toBe(before);
    expect((await client({ allowPrivateExternal: true }).getExternalContent(`${fake.url}/external/ext1`)).length).toBe(10);
    fake.setContent('ext-big', Buffer.alloc(1001, 1));
    await expect(client({ allowPrivateExternal: true }).getExternalContent(`${fake.url}/external/ext-big`)).rejects.toBeInstanceOf(
      LineContentTooLargeError,
    );
  });

  it('the fake refuses what LINE refuses, and every result bubble we build passes', () => {
    expect(lineLimitProblems([{ type: 'flex', altText: 'x'.repeat(401), contents: { type: 'bubble' } }])).toHaveLength(1);
    expect(
      lineLimitProblems([
        {
          type: 'flex',
          altText: 'ok',
          contents: { type: 'bubble', header: { type: 'box', layout: 'vertical', backgroundColor: 'orange', contents: [] } },
        },
      ]),
    ).toHaveLength(1);
    expect(
      lineLimitProblems([
        {
          type: 'flex',
          altText: 'ok',
          contents: { type: 'bubble', body: { type: 'box', layout: 'vertical', contents: [{ type: 'text', text: '' }] } },
        },
      ]),
    ).toHaveLength(1);
    expect(lineLimitProblems([{ type: 'text', text: '' }])).toHaveLength(1);
    expect(
      lineLimitProblems([
        {
          type: 'flex',
          altText: 'ok',
          contents: { type: 'bubble', body: { type: 'box', layout: 'vertical', contents: [{ type: 'text', text: 'x'.repeat(31_000) }] } },
        },
      ]),
    ).toHaveLength(1);
    const rec: TransactionRecord = {
      id: 'tx1',
      status: 'SUCCESS',
      verified: true,
      transRef: 'REF1',
      amount: 1,
      bankCode: '014',
      bankName: 'Siam Commercial Bank',
      senderName: 'x'.repeat(2000),
      senderAccount: null,
      receiverName: 'r',
      receiverAccount: '1',
      transDate: '2026-01-01T00:00:00Z',
      errorCode: null,
      errorMessage: null,
      createdAt: '2026-01-01T00:00:00Z',
      duplicate: false,
      cached: false,
      latencyMs: 1,
      environment: 'live',
      source: 'LINE',
      clientRef: null,
      stale: false,
      printedAmount: null,
      edited: false,
    };
    // Every status the record can carry: a status added later gets its bubble checked too.
    for (const status of STATUSES) {
      for (const l of ['th', 'en'] as const)
        for (const audience of ['customer', 'staff'] as const)
          for (const replay of [false, true]) {
            const m = resultMessage({ ...rec, status, errorCode: status === 'PROVIDER_ERROR' ? 'SLIP_PENDING' : null }, l, 'Asia/Bangkok', {
              audience,
              replay,
              original: { amount: 1, createdAt: rec.createdAt },
            });
            expect(lineLimitProblems([m]), `${status} ${l} ${audience} ${replay}`).toEqual([]);
          }
    }
    const pending = JSON.stringify(
      resultMessage(
        // As the pipeline records it: the bank has told nothing yet, the slip's QR gave the reference and bank.
        {
          ...rec,
          status: 'PROVIDER_ERROR',
          errorCode: 'SLIP_PENDING',
          amount: null,
          senderName: null,
          receiverName: null,
          receiverAccount: null,
          transDate: null,
        },
        'th',
        'Asia/Bangkok',
        {
          audience: 'customer',
          replay: false,
        },
      ),
    );
    expect(pending).toContain('ธนาคารยังไม่แสดงรายการโอนนี้');
    expect(pending).not.toMatch(/ขัดข้อง/);
    // The bank has told no amount yet: no "ยอดเงิน -" row, only the reference the slip itself gives.
    expect(pending).not.toContain('"text":"-"');
    expect(pending).not.toContain('ยอดเงิน');
    expect(pending).toContain(rec.transRef);
  });
});
