import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { sleep } from './fault-kit.js';

// Node's HTTP parser counts the request line against its header limit (http.maxHeaderSize, 16 KiB),
// and refuses both before any route runs. A URL that is too long is 414 URI_TOO_LONG naming the limit;
// headers that are too large stay 431. Over a real socket: inject() never meets Node's parser.
const LIMIT = http.maxHeaderSize;

/** Sends `request` in pieces of `piece` bytes (the whole at once when 0), reading until the server closes. */
function exchange(port: number, request: string, piece = 0): Promise<string> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let answer = '';
    let closed = false;
    sock.on('data', (d) => (answer += d.toString('utf8')));
    sock.on('error', () => undefined);
    sock.on('close', () => {
      closed = true;
      resolve(answer);
    });
    void (async () => {
      if (!piece) return void sock.write(request);
      // A pause between pieces, so the server reads (and parses) each one on its own.
      for (let at = 0; at < request.length && !closed; at += piece) {
        sock.write(request.slice(at, at + piece));
        await sleep(5);
      }
    })();
  });
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
const headerOf = (answer: string, name: string) =>
  new RegExp(`\\r\\n${name}: ([^\\r]*)\\r\\n`, 'i').exec(answer.slice(0, answer.indexOf('\r\n\r\n') + 2))?.[1];
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('a request head over the limit', () => {
  let h: Harness;
  let port: number;
  beforeAll(async () => {
    h = await createHarness('sqlite');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => h.close());

  const longQuery = `/api/v1/transactions?clientRef=${'A'.repeat(LIMIT + 2000)}`;
  const get = (target: string, headers = '') =>
    `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sk_live_x\r\n${headers}\r\n`;

  const expectUriTooLong = (answer: string, path: string) => {
    expect(statusOf(answer)).toBe(414);
    const body = bodyOf(answer);
    expect(body).toMatchObject({ success: false, error: 'URI Too Long', statusCode: 414, code: 'URI_TOO_LONG', path });
    expect(body.message).toContain(`${LIMIT} bytes`);
    expect(body.message).toMatch(/URL/);
    expect(body.timestamp).toMatch(/\+07:00$/);
    expect(headerOf(answer, 'X-Request-Id')).toBe(body.requestId);
    expect(headerOf(answer, 'Connection')).toBe('close');
  };
  const expectHeadersTooLarge = (answer: string) => {
    expect(statusOf(answer)).toBe(431);
    const body = bodyOf(answer);
    expect(body).toMatchObject({ success: false, error: 'Request Header Fields Too Large', statusCode: 431, code: 'BAD_REQUEST' });
    expect(body.message).toContain(`${LIMIT} bytes`);
    expect(headerOf(answer, 'X-Request-Id')).toBe(body.requestId);
  };

  it('a URL over the limit, sent at once, is 414 URI_TOO_LONG naming the limit and the path', async () => {
    expectUriTooLong(await exchange(port, get(longQuery)), '/api/v1/transactions');
  });

  it('the same URL arriving in pieces is 414 as well (at /: the piece Node stopped in no longer shows the path)', async () => {
    expectUriTooLong(await exchange(port, get(longQuery), 1000), '/');
  });

  it('a long path (no query) is 414 too, answered at /', async () => {
    expectUriTooLong(await exchange(port, get(`/api/v1/transactions/${'x'.repeat(LIMIT)}`)), '/');
  });

  it('fetch with a URL over the limit reads the 414', async () => {
    const base = `http://127.0.0.1:${port}`;
    const r = await fetch(base + longQuery, { headers: { authorization: 'Bearer sk_live_x' } });
    expect(r.status).toBe(414);
    expect(await r.json()).toMatchObject({ code: 'URI_TOO_LONG', statusCode: 414, path: '/api/v1/transactions' });
  });

  it('a header over the limit stays 431, at once or in pieces', async () => {
    const big = get('/api/v1/quota', `X-Note: ${'lorem ipsum '.repeat(Math.ceil(LIMIT / 12) + 100)}\r\n`);
    expectHeadersTooLarge(await exchange(port, big));
    expectHeadersTooLarge(await exchange(port, big, 1000));
  });

  it('many small headers over the limit stay 431', async () => {
    const many = Array.from({ length: Math.ceil(LIMIT / 40) + 10 }, (_, i) => `X-H${i}: ${'c'.repeat(34)}\r\n`).join('');
    expectHeadersTooLarge(await exchange(port, get('/api/v1/quota', many)));
  });

  it('a URL under the limit with headers that take the head over it is 431: the URL was not what overflowed', async () => {
    const half = Math.floor(LIMIT / 2);
    expectHeadersTooLarge(
      await exchange(port, get(`/api/v1/transactions?clientRef=${'u'.repeat(half)}`, `X-Note: ${'n'.repeat(half)}\r\n`)),
    );
  });

  it('a URL just under the limit still reaches the route (its 401 without a key, not 414)', async () => {
    const r = await fetch(`http://127.0.0.1:${port}/api/v1/transactions?clientRef=${'A'.repeat(LIMIT - 1000)}`);
    expect(r.status).toBe(401);
  });
});
