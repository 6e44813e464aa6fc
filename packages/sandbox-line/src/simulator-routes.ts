import fs from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  channelToken,
  groupId as newGroupId,
  messageId as newMessageId,
  replyToken as newReplyToken,
  userId as newUserId,
  webhookEventId,
} from './line-ids.js';
import type { LoginChannel } from './line-login.js';
import type { Channel, ChatLine, PlatformState } from './platform-state.js';

export interface SimulatorOptions {
  /** The sandbox bank, whose recent transfers the simulator offers as slips. */
  bankUrl?: string;
}
type Person = { sub: string; name: string };
type Deps = SimulatorOptions & { people: Map<string, Person>; loginChannels: Map<string, LoginChannel> };
/** The sandbox bank's edited-slip kinds (`edit` of its slip render): a digit added, one changed, the decimal point moved. */
const EDITS = ['add', 'digit', 'decimal'];
type Source = { type: 'user'; userId: string } | { type: 'group'; groupId: string; userId: string };

const PUBLIC = new URL('../public/', import.meta.url);
const FILES: Record<string, string> = {
  'simulator.js': 'text/javascript',
  'simulator.css': 'text/css',
  'flex-render.js': 'text/javascript',
};

/**
 * The chat simulator: a page (`/`) and the JSON calls it makes (`/sandbox/...`). It plays the LINE app
 * of a customer (1:1 with the shop's official account) and of staff (a group with the bot): what
 * they send becomes a signed webhook delivered to the channel's webhook URL, exactly as LINE delivers
 * it; what the service replies or pushes shows up in the chat.
 */
export function registerSimulator(app: FastifyInstance, s: PlatformState, deps: Deps) {
  const events = new Map<string, { channelId: string; event: Record<string, unknown> }>();
  const groups = new Map<string, string>(); // channelId -> group id (one simulated group per account)
  const joined = new Set<string>();
  let expireReplyTokens = false;

  // Two simulated LINE users to start with; the page renames them or adds more.
  for (const name of ['ลูกค้า สมหญิง', 'พนักงาน ต้น']) {
    const sub = newUserId();
    deps.people.set(sub, { sub, name });
  }

  const json = (body: unknown): Record<string, unknown> => {
    if (!Buffer.isBuffer(body) || !body.length) return {};
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      return {};
    }
  };
  const bad = (reply: FastifyReply, message: string) => reply.code(400).send({ message });
  const chatKey = (ch: Channel, src: Source) => `${ch.channelId}:${src.type === 'group' ? src.groupId : src.userId}`;

  async function deliver(ch: Channel, event: Record<string, unknown>, redelivery = false) {
    if (!ch.webhookUrl) return { status: 0, error: 'no webhook URL: link the shop (npx slipcheck demo) first' };
    const e = redelivery ? { ...event, deliveryContext: { isRedelivery: true } } : event;
    if (expireReplyTokens && typeof e.replyToken === 'string') {
      const src = (e.source ?? {}) as { groupId?: string; userId?: string };
      s.replyTokens.set(e.replyToken, { channelId: ch.channelId, chatId: src.groupId ?? src.userId ?? '', expiresAt: 0, used: false });
    }
    try {
      const r = await s.deliverRaw(ch.webhookUrl, ch.secret, { destination: ch.botUserId, events: [e] });
      return { status: r.status };
    } catch (err) {
      return { status: 0, error: (err as Error).message };
    }
  }

  function newEvent(ch: Channel, src: Source, type: string, extra: Record<string, unknown>) {
    const event = {
      type,
      mode: 'active',
      timestamp: Date.now(),
      source: src,
      webhookEventId: webhookEventId(),
      deliveryContext: { isRedelivery: false },
      ...(type === 'leave' ? {} : { replyToken: newReplyToken() }),
      ...extra,
    };
    events.set(event.webhookEventId, { channelId: ch.channelId, event });
    return event;
  }

  /** The first message into the group: LINE sends `join` when the bot is added. */
  async function ensureJoined(ch: Channel, src: Source) {
    if (src.type !== 'group' || joined.has(src.groupId)) return;
    joined.add(src.groupId);
    await deliver(ch, newEvent(ch, { type: 'group', groupId: src.groupId } as Source, 'join', {}));
  }

  function sourceOf(ch: Channel, b: Record<string, unknown>): Source | null {
    const person = deps.people.get(String(b.userId ?? ''));
    if (!person) return null;
    if (b.chat === 'group') {
      let g = groups.get(ch.channelId);
      if (!g) groups.set(ch.channelId, (g = newGroupId()));
      return { type: 'group', groupId: g, userId: person.sub };
    }
    return { type: 'user', userId: person.sub };
  }

  app.get('/', async (_req, reply) => reply.type('text/html; charset=utf-8').send(fs.readFileSync(new URL('simulator.html', PUBLIC))));
  app.get<{ Params: { file: string } }>('/static/:file', async (req, reply) => {
    const type = FILES[req.params.file];
    if (!type) return reply.code(404).send({ message: 'Not found' });
    return reply
      .type(`${type}; charset=utf-8`)
      .header('cache-control', 'no-cache')
      .send(fs.readFileSync(new URL(req.params.file, PUBLIC)));
  });

  app.get('/sandbox/state', async () => {
    const login = [...deps.loginChannels.values()].find((c) => c.liffId);
    return {
      channels: [...s.channels.values()].map((c) => ({
        channelId: c.channelId,
        displayName: c.displayName,
        basicId: c.basicId,
        webhookUrl: c.webhookUrl ?? null,
        monthlyLimit: c.monthlyLimit,
        usage: c.usage,
      })),
      people: [...deps.people.values()],
      liffId: login?.liffId ?? null,
      faults: { reply: s.forced.reply.length, push: s.forced.push.length, content: s.forced.content.length, expireReplyTokens },
      bank: !!deps.bankUrl,
    };
  });

  // A Messaging API channel, as the LINE Developers console makes one (its secret and token are shown
  // to whoever runs the sandbox: `slipcheck demo` links the shop with them).
  app.post('/sandbox/channels', async (req, reply) => {
    const b = json(req.body);
    if (b.webhookUrl !== undefined && !/^https?:\/\//.test(String(b.webhookUrl))) return bad(reply, 'webhookUrl must be an http(s) URL');
    const n = s.channels.size + 1;
    const ch: Channel = {
      channelId: String(2_000_200_000 + n),
      secret: crypto.randomUUID().replace(/-/g, ''),
      token: channelToken(),
      botUserId: newUserId(),
      basicId: `@${String(500 + n)}sbx`,
      displayName: String(b.displayName ?? `Shop ${n}`).slice(0, 20),
      webhookUrl: b.webhookUrl === undefined ? undefined : String(b.webhookUrl),
      monthlyLimit: null,
      usage: 0,
    };
    s.channels.set(ch.channelId, ch);
    s.save();
    return reply.code(201).send(ch);
  });
  app.patch<{ Params: { id: string } }>('/sandbox/channels/:id', async (req, reply) => {
    const ch = s.channels.get(req.params.id);
    if (!ch) return reply.code(404).send({ message: 'Not found' });
    const b = json(req.body);
    if (b.webhookUrl !== undefined) {
      if (!/^https?:\/\//.test(String(b.webhookUrl))) return bad(reply, 'webhookUrl must be an http(s) URL');
      ch.webhookUrl = String(b.webhookUrl);
    }
    if (b.displayName !== undefined) ch.displayName = String(b.displayName).slice(0, 20);
    s.save();
    return { channelId: ch.channelId, webhookUrl: ch.webhookUrl ?? null, displayName: ch.displayName };
  });

  app.post('/sandbox/people', async (req, reply) => {
    const b = json(req.body);
    const name = String(b.name ?? '')
      .trim()
      .slice(0, 40);
    if (!name) return bad(reply, 'name required');
    const existing = b.userId ? deps.people.get(String(b.userId)) : undefined;
    if (existing) {
      existing.name = name;
      return existing;
    }
    const p = { sub: newUserId(), name };
    deps.people.set(p.sub, p);
    return reply.code(201).send(p);
  });

  app.get<{ Querystring: { channelId?: string; chat?: string; userId?: string } }>('/sandbox/lines', async (req, reply) => {
    const ch = s.channels.get(req.query.channelId ?? '');
    if (!ch) return reply.code(404).send({ message: 'Not found' });
    const src = sourceOf(ch, req.query);
    if (!src) return bad(reply, 'unknown userId');
    const key = chatKey(ch, src);
    return s.lines.filter((l) => l.chatId === key).map((l) => ({ ...l, userName: l.userId ? deps.people.get(l.userId)?.name : undefined }));
  });

  // What a person sends: text, a postback (a quick-reply button), an image file, or a sandbox bank slip.
  app.post('/sandbox/send', async (req, reply) => {
    const b = json(req.body);
    const ch = s.channels.get(String(b.channelId ?? ''));
    if (!ch) return reply.code(404).send({ message: 'Not found' });
    const src = sourceOf(ch, b);
    if (!src) return bad(reply, 'unknown userId');
    await ensureJoined(ch, src);
    const key = chatKey(ch, src);
    const id = newMessageId();
    let event;
    if (typeof b.text === 'string' && b.text.trim()) {
      event = newEvent(ch, src, 'message', { message: { id, type: 'text', text: b.text.slice(0, 5000) } });
      s.lines.push({
        id,
        chatId: key,
        at: Date.now(),
        from: 'user',
        userId: src.userId,
        text: b.text.slice(0, 5000),
        webhookEventId: event.webhookEventId,
      });
    } else if (typeof b.postback === 'string') {
      event = newEvent(ch, src, 'postback', { postback: { data: b.postback.slice(0, 300) } });
      s.lines.push({
        id,
        chatId: key,
        at: Date.now(),
        from: 'user',
        userId: src.userId,
        text: String(b.label ?? b.postback),
        webhookEventId: event.webhookEventId,
      });
    } else {
      let data: Buffer;
      let type: string;
      if (b.transRef) {
        if (!deps.bankUrl) return bad(reply, 'no sandbox bank');
        if (b.edit !== undefined && b.edit !== '' && !EDITS.includes(String(b.edit)))
          return bad(reply, `edit must be one of ${EDITS.join(', ')}`);
        const query = new URLSearchParams();
        if (b.variant && b.variant !== 'clean') query.set('variant', String(b.variant));
        // The sandbox bank's edited render: the genuine QR with another amount typed over the printed one.
        if (b.edit) query.set('edit', String(b.edit));
        const qs = query.size ? `?${query}` : '';
        const format = ['jpeg70', 'screenphoto', 'camera12mp'].includes(String(b.variant)) ? 'jpg' : 'png';
        const r = await fetch(`${deps.bankUrl}/transfers/${encodeURIComponent(String(b.transRef))}/slip.${format}${qs}`).catch(() => null);
        if (!r || !r.ok) return bad(reply, `the sandbox bank did not render that slip (${r?.status ?? 'unreachable'})`);
        data = Buffer.from(await r.arrayBuffer());
        type = r.headers.get('content-type') ?? 'image/png';
      } else if (typeof b.imageBase64 === 'string') {
        data = Buffer.from(b.imageBase64, 'base64');
        type = String(b.imageType ?? 'image/jpeg');
        if (!data.length) return bad(reply, 'empty image');
      } else if (b.replayOf) {
        const c = s.contents.get(String(b.replayOf));
        if (!c || 'status' in c) return bad(reply, 'that image is gone');
        data = c.data;
        type = c.type;
      } else return bad(reply, 'send text, postback, imageBase64, transRef or replayOf');
      // LINE keeps the bytes; the webhook only names the message id.
      s.contents.set(id, { data, type, channelId: ch.channelId });
      event = newEvent(ch, src, 'message', { message: { id, type: 'image', contentProvider: { type: 'line' } } });
      s.lines.push({
        id,
        chatId: key,
        at: Date.now(),
        from: 'user',
        userId: src.userId,
        imageUrl: `/sandbox/content/${id}`,
        webhookEventId: event.webhookEventId,
      });
    }
    s.notify();
    const delivered = await deliver(ch, event);
    return { webhookEventId: event.webhookEventId, messageId: id, delivery: delivered };
  });

  // LINE's redelivery: the same event (same webhookEventId) again, marked isRedelivery.
  app.post('/sandbox/redeliver', async (req, reply) => {
    const b = json(req.body);
    const e = events.get(String(b.webhookEventId ?? ''));
    const ch = e && s.channels.get(e.channelId);
    if (!e || !ch) return reply.code(404).send({ message: 'Not found' });
    return { delivery: await deliver(ch, e.event, true) };
  });

  app.get<{ Params: { id: string } }>('/sandbox/content/:id', async (req, reply) => {
    const c = s.contents.get(req.params.id);
    if (!c || 'status' in c) return reply.code(404).send({ message: 'Not found' });
    return reply.type(c.type).send(c.data);
  });

  // "Make LINE fail": the next N replies or pushes answer 500, reply tokens arrive expired, or the
  // account's monthly allowance is used up (pushes answer 429).
  app.post('/sandbox/faults', async (req, reply) => {
    const b = json(req.body);
    if (b.reset) {
      s.forced.reply.length = 0;
      s.forced.push.length = 0;
      s.forced.content.length = 0;
      expireReplyTokens = false;
      for (const c of s.channels.values()) c.monthlyLimit = null;
    }
    const n = (v: unknown) => Math.max(0, Math.min(10, Number(v) || 0));
    for (let i = 0; i < n(b.reply5xx); i++) s.forced.reply.push({ status: 500 });
    for (let i = 0; i < n(b.push5xx); i++) s.forced.push.push({ status: 500 });
    if (typeof b.expireReplyTokens === 'boolean') expireReplyTokens = b.expireReplyTokens;
    if (typeof b.monthlyLimit === 'boolean') {
      const ch = s.channels.get(String(b.channelId ?? ''));
      if (!ch) return reply.code(404).send({ message: 'Not found' });
      ch.monthlyLimit = b.monthlyLimit ? ch.usage : null;
      s.save();
    }
    return { reply: s.forced.reply.length, push: s.forced.push.length, expireReplyTokens };
  });

  app.get('/sandbox/bank/transfers', async (_req, reply) => {
    if (!deps.bankUrl) return [];
    const r = await fetch(`${deps.bankUrl}/transfers?limit=15`, { signal: AbortSignal.timeout(5000) }).catch(() => null);
    if (!r || !r.ok) return reply.code(502).send({ message: 'the sandbox bank did not answer' });
    return r.json();
  });
}
export type { ChatLine };
