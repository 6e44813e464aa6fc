import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLineClient, LineApiError, LineContentGoneError, LineContentTooLargeError, retryKeyFor } from '../../src/modules/line/line-client.js';
import { startFakeLinePlatform, type FakeLinePlatform, type FakeChannel } from './fake-line-platform.js';

describe('LINE client against the fake platform', () => {
  let fake: FakeLinePlatform;
  let ch: FakeChannel;
  const waits: number[] = [];
  const client = (o: Partial<Parameters<typeof createLineClient>[0]> = {}) => createLineClient({
    apiBaseUrl: fake.url, dataApiBaseUrl: fake.url, timeoutMs: 300, retries: 2, maxImageBytes: 1000,
    sleep: async (ms) => { waits.push(ms); }, ...o,
  });
  beforeAll(async () => { fake = await startFakeLinePlatform(); ch = fake.addChannel(); });
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
      res.on('close', () => { closed = true; clearInterval(t); });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const started = Date.now();
      await expect(client({ dataApiBaseUrl: base, timeoutMs: 5000, retries: 0 }).getContent(ch.token, 'endless')).rejects.toBeInstanceOf(LineContentTooLargeError);
      expect(Date.now() - started).toBeLessThan(2000);
      await new Promise((r) => setTimeout(r, 50));
      expect(closed).toBe(true); // the download was cancelled, not read to the end
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('times out slow answers and retries them; honours Retry-After; gives up on a Retry-After past the limit', async () => {
    fake.setContent('slow', Buffer.alloc(10, 1));
    fake.fail('content', { status: 200, delayMs: 600 }, { status: 200, delayMs: 600 });
    waits.length = 0;
    expect((await client().getContent(ch.token, 'slow')).length).toBe(10);
    expect(waits).toHaveLength(2);

    waits.length = 0;
    fake.fail('push', { status: 429, retryAfter: '3' });
    await client().push(ch.token, 'Uabc', [{ type: 'text', text: 'hi' }]);
    expect(waits).toEqual([3000]);

    fake.fail('push', { status: 429, retryAfter: '120' });
    const err = await client().push(ch.token, 'Uabc', [{ type: 'text', text: 'hi' }]).catch((e) => e);
    expect(err).toBeInstanceOf(LineApiError);
    expect(err).toMatchObject({ status: 429, retryable: true });
  });

  it('does not retry a 4xx; a push retried with the same key is accepted once (409 counts as sent)', async () => {
    await client().reply(ch.token, 'rt-once', [{ type: 'text', text: 'x' }]);
    const hits = fake.hits.reply;
    await expect(client().reply(ch.token, 'rt-once', [{ type: 'text', text: 'x' }])).rejects.toMatchObject({ status: 400, lineMessage: 'Invalid reply token' });
    expect(fake.hits.reply - hits).toBe(1);
    const key = retryKeyFor('evt-1:answer');
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const before = fake.sentTo('Udedupe').length;
    await client().push(ch.token, 'Udedupe', [{ type: 'text', text: 'once' }], key);
    await client().push(ch.token, 'Udedupe', [{ type: 'text', text: 'once' }], key);
    expect(fake.sentTo('Udedupe').length - before).toBe(1);
    await expect(client().botInfo('wrong-token')).rejects.toMatchObject({ status: 401 });
  });
});
