import { createHash, createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxLine, type Channel, type SandboxLine } from '../src/index.js';

const LOGIN = { channelId: '2000000001', channelSecret: 'login-secret-for-tests-000000001', callbackUrls: ['http://shop.test/cb'] };
let line: SandboxLine;
let ch: Channel;
let now = new Date('2026-11-25T03:00:00Z');

beforeAll(async () => {
  line = await createSandboxLine({ loginChannels: [LOGIN], now: () => now, replyTokenTtlMs: 2_000 });
  ch = line.addChannel({ displayName: 'ร้านทดสอบ' });
});
afterAll(async () => line.close());

const api = (path: string, init: { method?: string; token?: string | null; body?: unknown; headers?: Record<string, string> } = {}) =>
  fetch(line.url + path, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? ch.token}` }),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
const text = (t: string) => [{ type: 'text', text: t }];

describe('Messaging API, strict like LINE', () => {
  it("answers an unknown or missing access token with 401 and LINE's message", async () => {
    for (const token of ['wrong', null]) {
      const r = await api('/v2/bot/info', { token });
      expect(r.status).toBe(401);
      expect(await r.json()).toEqual({
        message: 'Authentication failed. Confirm that the access token in the authorization header is valid.',
      });
    }
    expect(await (await api('/v2/bot/info')).json()).toMatchObject({ userId: ch.botUserId, displayName: 'ร้านทดสอบ', chatMode: 'bot' });
  });

  it('a reply token works once, only when the platform issued it, and not after it expires', async () => {
    const body = (replyToken: string) => ({ replyToken, messages: text('hi') });
    expect((await api('/v2/bot/message/reply', { body: body('made-up-token') })).status).toBe(400);
    const t = line.issueReplyToken(ch, 'Ucustomer');
    const ok = await api('/v2/bot/message/reply', { body: body(t) });
    expect(ok.status).toBe(200);
    expect((await ok.json()).sentMessages).toHaveLength(1);
    const again = await api('/v2/bot/message/reply', { body: body(t) });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ message: 'Invalid reply token' });
    const late = line.issueReplyToken(ch, 'Ucustomer');
    await new Promise((r) => setTimeout(r, 2_100)); // the TTL above: long enough for a loaded full run's round trips before it
    expect((await api('/v2/bot/message/reply', { body: body(late) })).status).toBe(400);
    // Another channel cannot use this channel's token.
    const other = line.addChannel();
    const t2 = line.issueReplyToken(ch, 'Ucustomer');
    expect((await api('/v2/bot/message/reply', { token: other.token, body: body(t2) })).status).toBe(400);
  });

  it("refuses bodies over LINE's limits with its error shape", async () => {
    const r = await api('/v2/bot/message/push', { body: { to: 'Uabc', messages: text('x'.repeat(5001)) } });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({
      message: 'The request body has 1 error(s)',
      details: [{ message: 'Length must be between 1 and 5000', property: 'messages[0].text' }],
    });
    expect((await api('/v2/bot/message/push', { body: '{not json' })).status).toBe(400);
  });

  it('push: a retry key must be a UUID, and one accepted is answered 409 with the accepted request id', async () => {
    expect(
      (await api('/v2/bot/message/push', { body: { to: 'Uabc', messages: text('a') }, headers: { 'x-line-retry-key': 'nope' } })).status,
    ).toBe(400);
    const key = crypto.randomUUID();
    const first = await api('/v2/bot/message/push', { body: { to: 'Uabc', messages: text('a') }, headers: { 'x-line-retry-key': key } });
    expect(first.status).toBe(200);
    const second = await api('/v2/bot/message/push', { body: { to: 'Uabc', messages: text('b') }, headers: { 'x-line-retry-key': key } });
    expect(second.status).toBe(409);
    expect(second.headers.get('x-line-accepted-request-id')).toBe(first.headers.get('x-line-request-id'));
    expect((await second.json()).message).toBe('The retry key is already accepted');
    expect(line.sentTo('Uabc').filter((p) => p.retryKey === key)).toHaveLength(1);
  });

  it("counts pushes against the monthly limit and answers 429 with LINE's message; replies stay free", async () => {
    const small = line.addChannel({ monthlyLimit: 1 });
    expect((await api('/v2/bot/message/push', { token: small.token, body: { to: 'Uabc', messages: text('1') } })).status).toBe(200);
    const over = await api('/v2/bot/message/push', { token: small.token, body: { to: 'Uabc', messages: text('2') } });
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ message: 'You have reached your monthly limit.' });
    expect(await (await api('/v2/bot/message/quota', { token: small.token })).json()).toEqual({ type: 'limited', value: 1 });
    expect(await (await api('/v2/bot/message/quota/consumption', { token: small.token })).json()).toEqual({ totalUsage: 1 });
    const t = line.issueReplyToken(small, 'Uabc');
    expect((await api('/v2/bot/message/reply', { token: small.token, body: { replyToken: t, messages: text('r') } })).status).toBe(200);
  });

  it("message content: the bytes for the channel, 404 for unknown ids or another channel's", async () => {
    line.setContent('m1', Buffer.from('jpegbytes'));
    const r = await api('/v2/bot/message/m1/content');
    expect(r.status).toBe(200);
    expect(Buffer.from(await r.arrayBuffer()).toString()).toBe('jpegbytes');
    expect((await api('/v2/bot/message/nope/content')).status).toBe(404);
    expect((await api('/v2/bot/message/m1/content', { token: 'bad' })).status).toBe(401);
  });

  it('delivers webhooks signed with the channel secret, and the reply tokens inside become usable', async () => {
    const got: Array<{ sig: string; raw: string }> = [];
    const hook = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', () => {
        got.push({ sig: String(req.headers['x-line-signature']), raw });
        res.writeHead(200).end('{}');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    try {
      const endpoint = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
      const event = { type: 'message', replyToken: 'tok-from-webhook', source: { type: 'user', userId: 'Uabc' }, webhookEventId: 'E1' };
      expect((await line.deliver(endpoint, ch.secret, { destination: ch.botUserId, events: [event] })).status).toBe(200);
      expect(got[0]!.sig).toBe(createHmac('sha256', ch.secret).update(got[0]!.raw).digest('base64'));
      expect((await api('/v2/bot/message/reply', { body: { replyToken: 'tok-from-webhook', messages: text('ok') } })).status).toBe(200);
    } finally {
      hook.close();
    }
  });

  it("delivers to a service on a port fetch() refuses (6000, X11's, is one; npm start's PORT may be it)", async () => {
    // WHATWG fetch blocks these ports ("bad port") before connecting; a service on one got no webhook at all.
    const hook = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end('{}'));
    });
    let port = 0;
    for (const p of [10080, 6665, 6666, 6667, 6668, 6669, 6697, 5060, 5061, 4190]) {
      const ok = await new Promise<boolean>((r) => {
        hook.once('error', () => r(false));
        hook.listen(p, '127.0.0.1', () => r(true));
      });
      if (ok) {
        port = p;
        break;
      }
    }
    expect(port, 'no blocked port free to listen on').not.toBe(0);
    try {
      const r = await line.deliver(`http://127.0.0.1:${port}/hook`, ch.secret, { destination: ch.botUserId, events: [] });
      expect(r.status).toBe(200);
    } finally {
      hook.close();
    }
  });

  it("forced failures answer instead of the call, with LINE's bodies", async () => {
    line.fail('push', { status: 500 });
    const r = await api('/v2/bot/message/push', { body: { to: 'Uabc', messages: text('x') } });
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual({ message: 'An error occurred in the LINE Platform.' });
  });
});

describe('LINE Login, strict like LINE', () => {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const authorize = (over: Record<string, string> = {}) =>
    fetch(
      `${line.url}/oauth2/v2.1/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: LOGIN.channelId,
        redirect_uri: LOGIN.callbackUrls[0]!,
        state: 'st4te',
        scope: 'openid profile',
        nonce: 'n0nce',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        ...over,
      })}`,
      { redirect: 'manual' },
    );
  const form = (path: string, f: Record<string, string>, type = 'application/x-www-form-urlencoded') =>
    fetch(line.url + path, { method: 'POST', headers: { 'content-type': type }, body: new URLSearchParams(f).toString() });
  const token = (code: string, over: Record<string, string> = {}) =>
    form('/oauth2/v2.1/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: LOGIN.callbackUrls[0]!,
      client_id: LOGIN.channelId,
      client_secret: LOGIN.channelSecret,
      code_verifier: verifier,
      ...over,
    });

  it('authorize: an unregistered redirect or client is an error page (no redirect); no state is refused; a sign-in returns code and state', async () => {
    expect((await authorize({ redirect_uri: 'http://evil.test/cb' })).status).toBe(400);
    expect((await authorize({ client_id: '1' })).status).toBe(400);
    const noState = await authorize({ state: '' });
    expect(new URL(noState.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const page = await authorize();
    expect(page.status).toBe(200); // the sign-in page: choose a simulated LINE user
    line.login.authorizeAs = { sub: line.lineUserId(), name: 'สมชาย' };
    const back = new URL((await authorize()).headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('st4te');
    expect(back.searchParams.get('code')).toBeTruthy();
  });

  it('token: PKCE verifier, redirect and secret must match; a code works once; the ID token carries the nonce and verifies', async () => {
    line.login.authorizeAs = { sub: line.lineUserId(), name: 'สมชาย' };
    const code = () => authorize().then((r) => new URL(r.headers.get('location')!).searchParams.get('code')!);
    expect(await (await token(await code(), { code_verifier: 'x'.repeat(43) })).json()).toMatchObject({ error: 'invalid_grant' });
    expect((await token(await code(), { client_secret: 'wrong' })).status).toBe(400);
    expect((await token(await code(), { redirect_uri: 'http://shop.test/other' })).status).toBe(400);
    const c = await code();
    const ok = await token(c);
    expect(ok.status).toBe(200);
    const { id_token } = (await ok.json()) as { id_token: string };
    expect((await token(c)).status).toBe(400);
    const verify = (f: Record<string, string>) => form('/oauth2/v2.1/verify', { id_token, client_id: LOGIN.channelId, ...f });
    const v = await verify({ nonce: 'n0nce' });
    expect(v.status).toBe(200);
    expect(await v.json()).toMatchObject({ iss: 'https://access.line.me', aud: LOGIN.channelId, nonce: 'n0nce', name: 'สมชาย' });
    expect(await (await verify({ nonce: 'other' })).json()).toEqual({
      error: 'invalid_request',
      error_description: 'Invalid IdToken Nonce.',
    });
    expect(await (await verify({ client_id: '2000000999' })).json()).toMatchObject({ error: 'invalid_request' });
    const forged = `${id_token.slice(0, -4)}AAAA`;
    expect(await (await verify({ id_token: forged })).json()).toEqual({ error: 'invalid_request', error_description: 'Invalid IdToken.' });
    now = new Date(now.getTime() + 2 * 3600_000);
    expect(await (await verify({})).json()).toEqual({ error: 'invalid_request', error_description: 'IdToken expired.' });
  });
});

describe('channel access tokens', () => {
  // A token starting with '-' is refused by `slipcheck line link --access-token TOKEN` as an
  // ambiguous option; base64url tokens began with '-' one time in 64 and failed a full test run.
  it("are in LINE's alphabet (base64), so none starts with '-'", () => {
    const tokens = Array.from({ length: 200 }, () => line.addChannel().token);
    for (const t of tokens) expect(t).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(new Set(tokens).size).toBe(200);
  });
});
