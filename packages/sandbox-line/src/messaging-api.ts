import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LINE_ERRORS, messageProblems, UUID } from './line-limits.js';
import type { Channel, PlatformState, Route, Sent } from './platform-state.js';

/**
 * The Messaging API calls the service makes (developers.line.biz/en/reference/messaging-api/), with
 * LINE's status codes and bodies: 401 for an unknown access token, 400 for an invalid body (with
 * `details`) or an unknown/used/expired reply token, 409 for a push retry key already accepted (with
 * `x-line-accepted-request-id`), 429 for the monthly limit, 404 for content that does not exist.
 * The content API (api-data.line.me) is served on the same port.
 */
/** A request body as the platform reads it: the fields it looks at, each checked before use. */
interface LineRequestBody {
  replyToken?: unknown;
  to?: unknown;
  messages?: unknown;
  endpoint?: unknown;
}

/** What recordSent keeps of a body whose messages passed messageProblems (or that a forced fault performs anyway). */
const sentBody = (b: LineRequestBody): Sent['body'] => ({
  ...(typeof b.replyToken === 'string' ? { replyToken: b.replyToken } : {}),
  ...(typeof b.to === 'string' ? { to: b.to } : {}),
  messages: Array.isArray(b.messages) ? (b.messages as Sent['body']['messages']) : [],
});

export function registerMessagingApi(app: FastifyInstance, s: PlatformState) {
  const parse = (req: FastifyRequest): { ok: true; body: LineRequestBody } | { ok: false } => {
    try {
      const v: unknown = JSON.parse((req.body as Buffer | undefined)?.toString('utf8') ?? '');
      // Fields are checked where they are read; a body that is not an object has none of them.
      return { ok: true, body: v && typeof v === 'object' && !Array.isArray(v) ? (v as LineRequestBody) : {} };
    } catch {
      return { ok: false };
    }
  };
  const channelOf = (req: FastifyRequest): Channel | undefined => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    return m ? s.channelByToken(m[1]!) : undefined;
  };
  /** A fault queued by a test or the simulator's "make LINE fail": answered instead of the call. */
  async function forced(route: Route, req: FastifyRequest, reply: FastifyReply, perform: () => void): Promise<boolean> {
    s.hits[route]++;
    const f = s.forced[route].shift();
    if (!f) return false;
    if (f.acceptThenHangMs !== undefined) {
      // LINE performed the call, but the answer is late: the client times out after LINE accepted it.
      perform();
      await new Promise((r) => setTimeout(r, f.acceptThenHangMs));
      if (!reply.raw.destroyed) reply.code(200).send({});
      return true;
    }
    if (f.delayMs) await new Promise((r) => setTimeout(r, f.delayMs));
    if (route === 'reply' || route === 'push') {
      const p = parse(req);
      const token = p.ok && typeof p.body.replyToken === 'string' ? p.body.replyToken : undefined;
      const to = p.ok && typeof p.body.to === 'string' ? p.body.to : undefined;
      const chat = route === 'push' ? to : token !== undefined ? s.replyTokens.get(token)?.chatId : undefined;
      s.noteRefused(channelOf(req), chat, `LINE ${route} → ${f.status}`);
    }
    if (f.retryAfter) reply.header('retry-after', f.retryAfter);
    reply
      .code(f.status)
      .send(f.body ?? (f.status === 429 ? LINE_ERRORS.rateLimit : f.status >= 500 ? LINE_ERRORS.internal : { message: 'forced failure' }));
    s.notify();
    return true;
  }

  app.post('/v2/bot/message/reply', async (req, reply) => {
    const p = parse(req);
    const ch = channelOf(req);
    const doReply = () => {
      if (!p.ok || typeof p.body.replyToken !== 'string') return;
      const t = s.replyTokens.get(p.body.replyToken);
      if (t && !t.used) {
        t.used = true;
        s.recordSent('reply', ch, req, sentBody(p.body), t.chatId);
      }
    };
    if (await forced('reply', req, reply, doReply)) return reply;
    if (!ch) return reply.code(401).send(LINE_ERRORS.auth);
    if (!p.ok) return reply.code(400).send(LINE_ERRORS.badBody([{ message: 'invalid JSON', property: '' }]));
    const problems = messageProblems(p.body.messages);
    if (problems.length) {
      s.rejected.push({ route: 'reply', problems: problems.map((d) => `${d.property}: ${d.message}`) });
      s.notify();
      return reply.code(400).send(LINE_ERRORS.badBody(problems));
    }
    // A reply token works once, within its time, for the channel whose webhook carried it.
    const t = typeof p.body.replyToken === 'string' ? s.replyTokens.get(p.body.replyToken) : undefined;
    if (!t || t.used || t.channelId !== ch.channelId || t.expiresAt <= Date.now()) {
      if (t?.chatId) s.noteRefused(ch, t.chatId, 'LINE reply → 400 Invalid reply token');
      s.notify();
      return reply.code(400).send(LINE_ERRORS.invalidReplyToken);
    }
    t.used = true;
    const sent = s.recordSent('reply', ch, req, sentBody(p.body), t.chatId);
    return reply.send({ sentMessages: sent });
  });

  app.post('/v2/bot/message/push', async (req, reply) => {
    const p = parse(req);
    const ch = channelOf(req);
    const key = req.headers['x-line-retry-key'] as string | undefined;
    s.pushAttempts.push({ retryKey: key, body: (req.body as Buffer | undefined)?.toString('utf8') ?? '' });
    const doPush = () => {
      if (!p.ok || !ch) return;
      if (key) s.acceptRetryKey(ch, key);
      s.recordSent('push', ch, req, sentBody(p.body), typeof p.body.to === 'string' ? p.body.to : undefined);
    };
    if (await forced('push', req, reply, doPush)) return reply;
    if (!ch) return reply.code(401).send(LINE_ERRORS.auth);
    if (key !== undefined && !UUID.test(key)) return reply.code(400).send(LINE_ERRORS.badRetryKey);
    const accepted = key ? s.acceptedRetryKey(ch, key) : undefined;
    if (accepted) {
      s.notify();
      return reply
        .code(409)
        .header('x-line-accepted-request-id', accepted.requestId)
        .send({ ...LINE_ERRORS.retryKeyAccepted, sentMessages: accepted.sentMessages });
    }
    if (!p.ok) return reply.code(400).send(LINE_ERRORS.badBody([{ message: 'invalid JSON', property: '' }]));
    if (typeof p.body.to !== 'string' || !p.body.to)
      return reply.code(400).send(LINE_ERRORS.badBody([{ message: 'must be specified', property: 'to' }]));
    const problems = messageProblems(p.body.messages);
    if (problems.length) {
      s.rejected.push({ route: 'push', problems: problems.map((d) => `${d.property}: ${d.message}`) });
      s.notify();
      return reply.code(400).send(LINE_ERRORS.badBody(problems));
    }
    // Push messages count against the official account's monthly allowance (replies are free).
    if (ch.monthlyLimit !== null && ch.usage >= ch.monthlyLimit) {
      s.noteRefused(ch, p.body.to, 'LINE push → 429 You have reached your monthly limit.');
      s.notify();
      return reply.code(429).send(LINE_ERRORS.monthlyLimit);
    }
    ch.usage++;
    const sent = s.recordSent('push', ch, req, sentBody(p.body), p.body.to);
    const requestId = key ? s.acceptRetryKey(ch, key, sent) : undefined;
    if (requestId) reply.header('x-line-request-id', requestId);
    return reply.send({ sentMessages: sent });
  });

  app.get<{ Params: { id: string } }>('/v2/bot/message/:id/content', async (req, reply) => {
    if (await forced('content', req, reply, () => undefined)) return reply;
    const ch = channelOf(req);
    if (!ch) return reply.code(401).send(LINE_ERRORS.auth);
    const c = s.contents.get(req.params.id);
    if (!c || ('channelId' in c && c.channelId && c.channelId !== ch.channelId)) return reply.code(404).send(LINE_ERRORS.notFound);
    if ('status' in c) return reply.code(c.status).send(c.status === 404 ? LINE_ERRORS.notFound : { message: 'gone' });
    return reply.type(c.type).header('content-length', String(c.data.length)).send(c.data);
  });

  app.get('/v2/bot/info', async (req, reply) => {
    if (await forced('info', req, reply, () => undefined)) return reply;
    const ch = channelOf(req);
    if (!ch) return reply.code(401).send(LINE_ERRORS.auth);
    return { userId: ch.botUserId, basicId: ch.basicId, displayName: ch.displayName, chatMode: 'bot', markAsReadMode: 'auto' };
  });

  app.get('/v2/bot/message/quota', async (req, reply) => {
    const ch = channelOf(req);
    if (!ch) return reply.code(401).send(LINE_ERRORS.auth);
    return ch.monthlyLimit === null ? { type: 'none' } : { type: 'limited', value: ch.monthlyLimit };
  });
  app.get('/v2/bot/message/quota/consumption', async (req, reply) => {
    const ch = channelOf(req);
    if (!ch) return reply.code(401).send(LINE_ERRORS.auth);
    return { totalUsage: ch.usage };
  });

  // The console's "Verify" button: LINE posts an empty event list to the endpoint, signed.
  app.post('/v2/bot/channel/webhook/test', async (req, reply) => {
    const ch = channelOf(req);
    if (!ch) return reply.code(401).send(LINE_ERRORS.auth);
    const p = parse(req);
    const endpoint = (p.ok && typeof p.body.endpoint === 'string' && p.body.endpoint) || ch.webhookUrl;
    if (!endpoint) return reply.code(400).send(LINE_ERRORS.badBody([{ message: 'webhook URL is not set', property: 'endpoint' }]));
    const r = await s.deliverRaw(endpoint, ch.secret, { destination: ch.botUserId, events: [] }).catch(() => ({ status: 0 }));
    return {
      success: r.status === 200,
      timestamp: new Date().toISOString(),
      statusCode: r.status,
      reason: r.status === 200 ? 'OK' : r.status === 0 ? 'COULD_NOT_CONNECT' : 'ERROR',
      detail: String(r.status),
    };
  });

  // An image hosted outside LINE (a message with contentProvider.type "external"): no token needed.
  app.get<{ Params: { id: string } }>('/external/:id', async (req, reply) => {
    s.externalHits++;
    const c = s.contents.get(req.params.id);
    if (!c || 'status' in c) return reply.code(c && 'status' in c ? c.status : 404).send(LINE_ERRORS.notFound);
    return reply.type(c.type).header('content-length', String(c.data.length)).send(c.data);
  });
}
