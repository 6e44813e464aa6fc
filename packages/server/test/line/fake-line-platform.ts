import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/**
 * A fake LINE platform on loopback: the Messaging API (reply, push, bot info, webhook test) and the
 * content API on one port. It records what the service sent and can fail on request (status codes,
 * 429 with Retry-After, expired reply tokens, gone content). It also plays LINE's side of webhooks:
 * `deliver()` signs a body with the channel secret and posts it to the service.
 */
export interface FakeChannel {
  token: string;
  secret: string;
  botUserId: string;
  displayName: string;
}
export interface Sent {
  token: string;
  body: { replyToken?: string; to?: string; messages: Array<Record<string, any>> };
  retryKey?: string;
}
/**
 * A forced answer. `acceptThenHangMs`: the platform performs the call (a reply is posted, its token
 * used) but answers only after this long, so the client times out after LINE accepted it.
 */
type Forced = { status: number; retryAfter?: string; body?: unknown; delayMs?: number; acceptThenHangMs?: number };

/**
 * LINE's documented limits on a message body (Messaging API reference, "Message objects" and "Flex
 * Message elements"): 1-5 messages; text 1-5000 characters; flex altText 1-400 characters; a bubble's
 * JSON at most 30 KB; colours as #RRGGBB or #RRGGBBAA; a text component's text non-empty unless it
 * has spans. Returns what is wrong, empty when LINE would take it.
 */
export function lineLimitProblems(messages: unknown): string[] {
  const out: string[] = [];
  if (!Array.isArray(messages) || messages.length < 1 || messages.length > 5) return ['messages: 1 to 5 messages'];
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${path}[${i}]`));
      return;
    }
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    for (const [k, x] of Object.entries(o)) {
      if (/color$/i.test(k) && (typeof x !== 'string' || !/^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$/.test(x)))
        out.push(`${path}.${k}: invalid color ${JSON.stringify(x)}`);
    }
    if (o.type === 'text' && !Array.isArray(o.contents) && (typeof o.text !== 'string' || o.text.length === 0))
      out.push(`${path}.text: must not be empty`);
    for (const [k, x] of Object.entries(o)) if (x && typeof x === 'object') walk(x, `${path}.${k}`);
  };
  messages.forEach((m: any, i) => {
    const p = `messages[${i}]`;
    if (m?.type === 'text') {
      if (typeof m.text !== 'string' || m.text.length < 1 || m.text.length > 5000) out.push(`${p}.text: 1 to 5000 characters`);
    } else if (m?.type === 'flex') {
      if (typeof m.altText !== 'string' || m.altText.length < 1 || m.altText.length > 400) out.push(`${p}.altText: 1 to 400 characters`);
      const bubbles = m.contents?.type === 'carousel' ? m.contents.contents : [m.contents];
      for (const b of bubbles ?? [])
        if (Buffer.byteLength(JSON.stringify(b ?? {})) > 30_000) out.push(`${p}.contents: bubble larger than 30 KB`);
      walk(m.contents, `${p}.contents`);
    } else out.push(`${p}.type: unsupported ${m?.type}`);
  });
  return out;
}
type Route = 'content' | 'reply' | 'push' | 'info';

export async function startFakeLinePlatform() {
  const channels = new Map<string, FakeChannel>(); // by token
  const contents = new Map<string, { data: Buffer; type: string } | { status: number }>();
  const replies: Sent[] = [];
  const pushes: Sent[] = [];
  const usedReplyTokens = new Set<string>();
  const expiredReplyTokens = new Set<string>();
  const pushRetryKeys = new Set<string>();
  /** Bodies refused for breaking LINE's limits (a test asserting on replies/pushes also asserts this is empty). */
  const rejected: Array<{ route: string; problems: string[] }> = [];
  const forced: Record<Route, Forced[]> = { content: [], reply: [], push: [], info: [] };
  const hits: Record<Route, number> = { content: 0, reply: 0, push: 0, info: 0 };
  let waiters: Array<() => void> = [];
  let externalHits = 0;
  const pushAttempts: Array<{ retryKey?: string; body: string }> = [];
  const notify = () => {
    const w = waiters;
    waiters = [];
    w.forEach((f) => f());
  };

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const readBody = (req: http.IncomingMessage) =>
    new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks)));
    });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const auth = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const ch = channels.get(auth);
    const route: Route | null = /^\/v2\/bot\/message\/[^/]+\/content$/.test(url.pathname)
      ? 'content'
      : url.pathname === '/v2/bot/message/reply'
        ? 'reply'
        : url.pathname === '/v2/bot/message/push'
          ? 'push'
          : url.pathname === '/v2/bot/info'
            ? 'info'
            : null;
    const body = await readBody(req);
    if (route === 'push') {
      // Every push attempt, forced failures included: one retry key must never carry two bodies.
      pushAttempts.push({ retryKey: req.headers['x-line-retry-key'] as string | undefined, body: body.toString('utf8') });
    }
    if (route) {
      hits[route]++;
      const f = forced[route].shift();
      if (f && f.acceptThenHangMs !== undefined) {
        if (route === 'reply') {
          // Like LINE: a used token is refused (not posted again); the answer is slow either way.
          const b = JSON.parse(body.toString('utf8'));
          if (!usedReplyTokens.has(b.replyToken)) {
            usedReplyTokens.add(b.replyToken);
            replies.push({ token: auth, body: b });
          }
        } else if (route === 'push') {
          const key = req.headers['x-line-retry-key'] as string | undefined;
          if (key) pushRetryKeys.add(key);
          pushes.push({ token: auth, body: JSON.parse(body.toString('utf8')), retryKey: key });
        }
        notify();
        await new Promise((r) => setTimeout(r, f.acceptThenHangMs));
        if (!res.destroyed) send(res, 200, {});
        return;
      }
      if (f) {
        if (f.delayMs) await new Promise((r) => setTimeout(r, f.delayMs));
        send(res, f.status, f.body ?? { message: 'forced failure' }, f.retryAfter ? { 'retry-after': f.retryAfter } : {});
        notify();
        return;
      }
    }
    if (url.pathname.startsWith('/external/')) {
      // An image hosted outside LINE (contentProvider.type "external"): no token needed.
      const c = contents.get(decodeURIComponent(url.pathname.slice('/external/'.length)));
      externalHits++;
      if (!c || 'status' in c) {
        send(res, c && 'status' in c ? c.status : 404, { message: 'Not found' });
        return;
      }
      res.writeHead(200, { 'content-type': c.type, 'content-length': String(c.data.length) });
      res.end(c.data);
      return;
    }
    if (!ch && url.pathname !== '/health') {
      send(res, 401, { message: 'Authentication failed' });
      return;
    }
    if (route === 'content') {
      const id = decodeURIComponent(url.pathname.split('/')[4]!);
      const c = contents.get(id);
      if (!c) {
        send(res, 404, { message: 'Not found' });
        return;
      }
      if ('status' in c) {
        send(res, c.status, { message: 'gone' });
        return;
      }
      res.writeHead(200, { 'content-type': c.type, 'content-length': String(c.data.length) });
      res.end(c.data);
      return;
    }
    if (route === 'reply' || route === 'push') {
      const problems = lineLimitProblems(JSON.parse(body.toString('utf8')).messages);
      if (problems.length) {
        rejected.push({ route, problems });
        send(res, 400, {
          message: 'A message (messages[0]) in the request body is invalid',
          details: problems.map((m) => ({ message: m })),
        });
        notify();
        return;
      }
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
      if (key && pushRetryKeys.has(key)) {
        send(res, 409, { message: 'The retry key is already accepted' });
        notify();
        return;
      }
      if (key) pushRetryKeys.add(key);
      pushes.push({ token: auth, body: JSON.parse(body.toString('utf8')), retryKey: key });
      send(res, 200, { sentMessages: [] });
      notify();
      return;
    }
    if (route === 'info') {
      send(res, 200, { userId: ch!.botUserId, basicId: '@fake', displayName: ch!.displayName });
      return;
    }
    if (url.pathname === '/v2/bot/channel/webhook/test' && req.method === 'POST') {
      const { endpoint } = JSON.parse(body.toString('utf8'));
      const r = await deliverRaw(endpoint, ch!.secret, { destination: ch!.botUserId, events: [] });
      send(res, 200, {
        success: r.status === 200,
        timestamp: new Date().toISOString(),
        statusCode: r.status,
        reason: r.status === 200 ? 'OK' : 'ERROR',
        detail: String(r.status),
      });
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
    replies,
    pushes,
    hits,
    rejected,
    pushAttempts,
    get externalHits() {
      return externalHits;
    },
    addChannel(c: Partial<FakeChannel> = {}): FakeChannel {
      const n = ++seq;
      const ch: FakeChannel = {
        token: c.token ?? `tok${n}${'x'.repeat(40)}`,
        secret: c.secret ?? `${n}`.padStart(32, 'a'),
        botUserId: c.botUserId ?? `Ubot${String(n).padStart(29, '0')}`,
        displayName: c.displayName ?? `Shop bot ${n}`,
      };
      channels.set(ch.token, ch);
      return ch;
    },
    setContent(messageId: string, data: Buffer, type = 'image/jpeg') {
      contents.set(messageId, { data, type });
    },
    setContentStatus(messageId: string, status: number) {
      contents.set(messageId, { status });
    },
    fail(route: Route, ...f: Forced[]) {
      forced[route].push(...f);
    },
    expireReplyToken(t: string) {
      expiredReplyTokens.add(t);
    },
    /** LINE's side of a webhook: sign the body with the channel secret and POST it. */
    deliver: deliverRaw,
    /** Resolves when `pred` holds (checked after every recorded reply/push), or rejects after `ms`. */
    async waitFor(pred: () => boolean, ms = 5000): Promise<void> {
      const until = Date.now() + ms;
      while (!pred()) {
        if (Date.now() > until) throw new Error('fake LINE: condition not met in time');
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
    },
    sentTo(chatId: string) {
      return pushes.filter((p) => p.body.to === chatId);
    },
    reset() {
      replies.length = 0;
      pushes.length = 0;
      rejected.length = 0;
      for (const k of Object.keys(forced) as Route[]) forced[k].length = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
export type FakeLinePlatform = Awaited<ReturnType<typeof startFakeLinePlatform>>;

export function sign(secret: string, raw: Buffer | string): string {
  return createHmac('sha256', secret).update(raw).digest('base64');
}

let evSeq = 0;
/** A LINE webhook event, shaped like the platform's. */
export function lineEvent(
  type: string,
  source: { type: 'user' | 'group' | 'room'; userId?: string; groupId?: string },
  extra: Record<string, unknown> = {},
  now = Date.now(),
) {
  const n = ++evSeq;
  return {
    type,
    mode: 'active',
    timestamp: now,
    source,
    webhookEventId: `01FAKE${String(n).padStart(10, '0')}${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    deliveryContext: { isRedelivery: false },
    replyToken: `rt-${n}-${Math.random().toString(36).slice(2)}`,
    ...extra,
  };
}
export const imageMessage = (id: string) => ({ message: { id, type: 'image', contentProvider: { type: 'line' } } });
/** An image shared from outside LINE: LINE holds no bytes, only the URL. */
export const externalImageMessage = (id: string, originalContentUrl: string) => ({
  message: { id, type: 'image', contentProvider: { type: 'external', originalContentUrl } },
});
export const textMessage = (text: string) => ({ message: { id: `m${++evSeq}`, type: 'text', text } });
