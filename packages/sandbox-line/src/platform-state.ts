import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import { messageId, signBody } from './line-ids.js';

/** One Messaging API channel (an official account) of the sandbox. */
export interface Channel {
  channelId: string;
  secret: string;
  token: string;
  botUserId: string;
  basicId: string;
  displayName: string;
  webhookUrl?: string;
  /** Push messages allowed this month (the plan's allowance; replies are free); null = unlimited. */
  monthlyLimit: number | null;
  usage: number;
}
/** A message object as the service sent it: its type and text fields typed, the rest as LINE's JSON. */
export interface LineMessage {
  type?: string;
  text?: string;
  altText?: string;
  contents?: unknown;
  [field: string]: unknown;
}
export interface Sent {
  token: string;
  body: { replyToken?: string; to?: string; messages: LineMessage[] };
  retryKey?: string;
}
/**
 * A forced answer. `acceptThenHangMs`: the platform performs the call (a reply is posted, its token
 * used) but answers only after this long, so the client times out after LINE accepted it.
 */
export type Forced = { status: number; retryAfter?: string; body?: unknown; delayMs?: number; acceptThenHangMs?: number };
export type Route = 'content' | 'reply' | 'push' | 'info';

/** One line of a chat as the simulator shows it. */
export interface ChatLine {
  id: string;
  chatId: string;
  at: number;
  from: 'user' | 'bot' | 'system';
  userId?: string;
  userName?: string;
  /** user: text | image; bot: the message objects as sent. */
  text?: string;
  imageUrl?: string;
  message?: LineMessage;
  via?: 'reply' | 'push';
  webhookEventId?: string;
}
export type Content = { data: Buffer; type: string; channelId?: string } | { status: number };

const REPLY_TOKEN_TTL_MS = 60_000; // LINE: a reply token must be used within one minute of the webhook
const RETRY_KEY_TTL_MS = 24 * 3600_000; // LINE: an accepted X-Line-Retry-Key is remembered for 24 hours

export function createPlatformState(opts: { dataDir?: string; replyTokenTtlMs?: number }) {
  const channels = new Map<string, Channel>(); // by channelId
  const file = opts.dataDir ? path.join(opts.dataDir, 'sandbox-line-channels.json') : undefined;
  if (file && fs.existsSync(file)) {
    for (const c of JSON.parse(fs.readFileSync(file, 'utf8')) as Channel[]) channels.set(c.channelId, c);
  }
  const retryKeys = new Map<string, { requestId: string; sentMessages: Array<{ id: string }>; at: number }>();
  let waiters: Array<() => void> = [];
  let seq = 0;

  const s = {
    channels,
    replyTokens: new Map<string, { channelId: string; chatId: string; expiresAt: number; used: boolean }>(),
    contents: new Map<string, Content>(),
    replies: [] as Sent[],
    pushes: [] as Sent[],
    /** Bodies refused for breaking LINE's limits (a test asserting on replies/pushes also asserts this is empty). */
    rejected: [] as Array<{ route: string; problems: string[] }>,
    pushAttempts: [] as Array<{ retryKey?: string; body: string }>,
    forced: { content: [], reply: [], push: [], info: [] } as Record<Route, Forced[]>,
    hits: { content: 0, reply: 0, push: 0, info: 0 } as Record<Route, number>,
    externalHits: 0,
    /** Chats of the simulator, by channel then chat id (user id or group id). */
    lines: [] as ChatLine[],
    replyTokenTtlMs: opts.replyTokenTtlMs ?? REPLY_TOKEN_TTL_MS,

    save() {
      if (!file) return;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(`${file}.tmp`, JSON.stringify([...channels.values()], null, 1));
      fs.renameSync(`${file}.tmp`, file);
    },
    channelByToken(token: string): Channel | undefined {
      for (const c of channels.values()) if (c.token === token) return c;
      return undefined;
    },
    notify() {
      const w = waiters;
      waiters = [];
      w.forEach((f) => f());
    },
    async waitFor(pred: () => boolean, ms = 5000): Promise<void> {
      const until = Date.now() + ms;
      while (!pred()) {
        if (Date.now() > until) throw new Error('sandbox LINE: condition not met in time');
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
    },
    /** Records a reply or push the platform accepted, in the transcript too; returns LINE's sentMessages. */
    recordSent(kind: 'reply' | 'push', ch: Channel | undefined, req: FastifyRequest, body: Sent['body'], chatId: string | undefined) {
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const retryKey = req.headers['x-line-retry-key'] as string | undefined;
      (kind === 'reply' ? s.replies : s.pushes).push({ token, body, ...(retryKey ? { retryKey } : {}) });
      const sent = (body.messages ?? []).map(() => ({ id: messageId(), quoteToken: `q${++seq}` }));
      if (ch && chatId)
        for (const [i, m] of (body.messages ?? []).entries())
          s.lines.push({ id: sent[i]!.id, chatId: `${ch.channelId}:${chatId}`, at: Date.now(), from: 'bot', message: m, via: kind });
      s.notify();
      return sent;
    },
    /** Shows in the simulator's chat that LINE refused a call for it (what a tester must see, LINE shows nobody). */
    noteRefused(ch: Channel | undefined, chatId: string | undefined, text: string) {
      if (ch && chatId) s.lines.push({ id: messageId(), chatId: `${ch.channelId}:${chatId}`, at: Date.now(), from: 'system', text });
    },
    acceptedRetryKey(ch: Channel, key: string) {
      const k = retryKeys.get(`${ch.channelId}:${key.toLowerCase()}`);
      return k && Date.now() - k.at < RETRY_KEY_TTL_MS ? k : undefined;
    },
    acceptRetryKey(ch: Channel, key: string, sentMessages: Array<{ id: string }> = []): string {
      const requestId = crypto.randomUUID();
      retryKeys.set(`${ch.channelId}:${key.toLowerCase()}`, { requestId, sentMessages, at: Date.now() });
      return requestId;
    },
    /** Registers the reply tokens of events the platform is about to deliver (only those can be replied to). */
    issueReplyTokens(ch: Channel, events: unknown[]) {
      for (const e of events as Array<{ replyToken?: unknown; source?: { groupId?: string; roomId?: string; userId?: string } } | null>) {
        if (!e || typeof e.replyToken !== 'string' || s.replyTokens.has(e.replyToken)) continue;
        const src = e.source ?? {};
        s.replyTokens.set(e.replyToken, {
          channelId: ch.channelId,
          chatId: src.groupId ?? src.roomId ?? src.userId ?? '',
          expiresAt: Date.now() + s.replyTokenTtlMs,
          used: false,
        });
      }
    },
    /** LINE's side of a webhook: sign the exact body with the channel secret and POST it. */
    async deliverRaw(endpoint: string, secret: string, payload: unknown, o: { signature?: string | null } = {}) {
      const raw = Buffer.from(JSON.stringify(payload));
      const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'LineBotWebhook/2.0' };
      const sig = o.signature === undefined ? signBody(secret, raw) : o.signature;
      if (sig !== null) headers['x-line-signature'] = sig;
      const ch = [...channels.values()].find((c) => c.secret === secret);
      const events = (payload as { events?: unknown })?.events;
      if (ch && Array.isArray(events)) s.issueReplyTokens(ch, events);
      return postRaw(endpoint, headers, raw, 10_000);
    },
    reset() {
      s.replies.length = 0;
      s.pushes.length = 0;
      s.rejected.length = 0;
      for (const k of Object.keys(s.forced) as Route[]) s.forced[k].length = 0;
    },
  };
  return s;
}
export type PlatformState = ReturnType<typeof createPlatformState>;

/**
 * POST with node:http rather than fetch(): fetch refuses the ports of the WHATWG "bad port" list
 * (6000, 6665-6669, 10080, ...) before connecting, so a service started with such a PORT never got a
 * webhook. LINE itself delivers to any port.
 */
function postRaw(endpoint: string, headers: Record<string, string>, body: Buffer, timeoutMs: number) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const url = new URL(endpoint);
    const req = (url.protocol === 'https:' ? https : http).request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(body.length) }, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            parsed = null;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('webhook delivery timed out')));
    req.on('error', reject);
    req.end(body);
  });
}
