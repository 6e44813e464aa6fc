import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/**
 * A fake LINE platform on loopback: the Messaging API (reply, push, bot info, webhook test) and the
 * content API on one port. It records what the service sent and can fail on request (status codes,
 * 429 with Retry-After, expired reply tokens, gone content). It also plays LINE's side of webhooks:
 * `deliver()` signs a body with the channel secret and posts it to the service.
 */
export interface FakeChannel { token: string; secret: string; botUserId: string; displayName: string }
export interface Sent { token: string; body: { replyToken?: string; to?: string; messages: Array<Record<string, any>> }; retryKey?: string }
type Forced = { status: number; retryAfter?: string; body?: unknown; delayMs?: number };
type Route = 'content' | 'reply' | 'push' | 'info';

export async function startFakeLinePlatform() {
  const channels = new Map<string, FakeChannel>(); // by token
  const contents = new Map<string, { data: Buffer; type: string } | { status: number }>();
  const replies: Sent[] = [];
  const pushes: Sent[] = [];
  const usedReplyTokens = new Set<string>();
  const expiredReplyTokens = new Set<string>();
  const pushRetryKeys = new Set<string>();
  const forced: Record<Route, Forced[]> = { content: [], reply: [], push: [], info: [] };
  const hits: Record<Route, number> = { content: 0, reply: 0, push: 0, info: 0 };
  let waiters: Array<() => void> = [];
  const notify = () => { const w = waiters; waiters = []; w.forEach((f) => f()); };

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const readBody = (req: http.IncomingMessage) => new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const auth = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const ch = channels.get(auth);
    const route: Route | null = /^\/v2\/bot\/message\/[^/]+\/content$/.test(url.pathname) ? 'content'
      : url.pathname === '/v2/bot/message/reply' ? 'reply' : url.pathname === '/v2/bot/message/push' ? 'push'
        : url.pathname === '/v2/bot/info' ? 'info' : null;
    const body = await readBody(req);
    if (route) {
      hits[route]++;
      const f = forced[route].shift();
      if (f) {
        if (f.delayMs) await new Promise((r) => setTimeout(r, f.delayMs));
        send(res, f.status, f.body ?? { message: 'forced failure' }, f.retryAfter ? { 'retry-after': f.retryAfter } : {});
        notify();
        return;
      }
    }
    if (!ch && url.pathname !== '/health') { send(res, 401, { message: 'Authentication failed' }); return; }
    if (route === 'content') {
      const id = decodeURIComponent(url.pathname.split('/')[4]!);
      const c = contents.get(id);
      if (!c) { send(res, 404, { message: 'Not found' }); return; }
      if ('status' in c) { send(res, c.status, { message: 'gone' }); return; }
      res.writeHead(200, { 'content-type': c.type, 'content-length': String(c.data.length) });
      res.end(c.data);
      return;
    }
    if (route === 'reply') {
      const b = JSON.parse(body.toString('utf8'));
      if (!b.replyToken || usedReplyTokens.has(b.replyToken) || expiredReplyTokens.has(b.replyToken)) {
        send(res, 400, { message: 'Invalid reply token' });
        notify();
        return;
      }
      usedReplyTokens.add(b.replyToken);
      replies.push({ token: auth, body: b });
      send(res, 200, { sentMessages: b.messages.map((_: unknown, i: number) => ({ id: String(i) })) });
      notify();
      return;
    }
    if (route === 'push') {
      const key = req.headers['x-line-retry-key'] as string | undefined;
      if (key && pushRetryKeys.has(key)) { send(res, 409, { message: 'The retry key is already accepted' }); notify(); return; }
      if (key) pushRetryKeys.add(key);
      pushes.push({ token: auth, body: JSON.parse(body.toString('utf8')), retryKey: key });
      send(res, 200, { sentMessages: [] });
      notify();
      return;
    }
    if (route === 'info') { send(res, 200, { userId: ch!.botUserId, basicId: '@fake', displayName: ch!.displayName }); return; }
    if (url.pathname === '/v2/bot/channel/webhook/test' && req.method === 'POST') {
      const { endpoint } = JSON.parse(body.toString('utf8'));
      const r = await deliverRaw(endpoint, ch!.secret, { destination: ch!.botUserId, events: [] });
      send(res, 200, { success: r.status === 200, timestamp: new Date().toISOString(), statusCode: r.status, reason: r.status === 200 ? 'OK' : 'ERROR', detail: String(r.status) });
      return;
    }
    send(res, 404, { message: 'Not found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function deliverRaw(endpoint: string, secret: string, payload: unknown, opts: { signature?: string | null } = {}) {
    const raw = Buffer.from(JSON.stringify(payload));
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    const sig = opts.signature === undefined ? sign(secret, raw) : opts.signature;
    if (sig !== null) headers['x-line-signature'] = sig;
    const r = await fetch(endpoint, { method: 'POST', headers, body: new Uint8Array(raw) });
    return { status: r.status, body: await r.json().catch(() => null) };
  }

  let seq = 0;
  return {
    url,
    replies, pushes, hits,
    addChannel(c: Partial<FakeChannel> = {}): FakeChannel {
      const n = ++seq;
      const ch: FakeChannel = {
        token: c.token ?? `tok${n}${'x'.repeat(40)}`, secret: c.secret ?? `${n}`.padStart(32, 'a'),
        botUserId: c.botUserId ?? `Ubot${String(n).padStart(29, '0')}`, displayName: c.displayName ?? `Shop bot ${n}`,
      };
      channels.set(ch.token, ch);
      return ch;
    },
    setContent(messageId: string, data: Buffer, type = 'image/jpeg') { contents.set(messageId, { data, type }); },
    setContentStatus(messageId: string, status: number) { contents.set(messageId, { status }); },
    fail(route: Route, ...f: Forced[]) { forced[route].push(...f); },
    expireReplyToken(t: string) { expiredReplyTokens.add(t); },
    /** LINE's side of a webhook: sign the body with the channel secret and POST it. */
    deliver: deliverRaw,
    /** Resolves when `pred` holds (checked after every recorded reply/push), or rejects after `ms`. */
    async waitFor(pred: () => boolean, ms = 5000): Promise<void> {
      const until = Date.now() + ms;
      while (!pred()) {
        if (Date.now() > until) throw new Error('fake LINE: condition not met in time');
        await new Promise<void>((r) => { waiters.push(r); setTimeout(r, 50); });
      }
    },
    sentTo(chatId: string) { return pushes.filter((p) => p.body.to === chatId); },
    reset() { replies.length = 0; pushes.length = 0; for (const k of Object.keys(forced) as Route[]) forced[k].length = 0; },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
export type FakeLinePlatform = Awaited<ReturnType<typeof startFakeLinePlatform>>;

export function sign(secret: string, raw: Buffer | string): string {
  return createHmac('sha256', secret).update(raw).digest('base64');
}

let evSeq = 0;
/** A LINE webhook event, shaped like the platform's. */
export function lineEvent(type: string, source: { type: 'user' | 'group' | 'room'; userId?: string; groupId?: string }, extra: Record<string, unknown> = {}, now = Date.now()) {
  const n = ++evSeq;
  return {
    type, mode: 'active', timestamp: now, source,
    webhookEventId: `01FAKE${String(n).padStart(10, '0')}${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    deliveryContext: { isRedelivery: false }, replyToken: `rt-${n}-${Math.random().toString(36).slice(2)}`,
    ...extra,
  };
}
export const imageMessage = (id: string) => ({ message: { id, type: 'image', contentProvider: { type: 'line' } } });
export const textMessage = (text: string) => ({ message: { id: `m${++evSeq}`, type: 'text', text } });
