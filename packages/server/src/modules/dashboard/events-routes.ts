import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.js';
import { errorResponses, success } from '../../http/common-schemas.js';
import type { BusMessage, ResultsBus } from '../../lib/results-bus.js';
import { enforceRate, requireSession, type DashboardAuthDeps } from '../accounts/session-auth.js';
import type { AccessTokens } from '../accounts/access-tokens.js';
import type { SessionService } from '../accounts/session-service.js';
import type { TransactionService } from '../transactions/transaction-service.js';
import { createRecentIds } from './recent-ids.js';

const tags = ['dashboard'];
const REPLAY_MAX = 100;
/**
 * How many sent record ids a stream remembers to drop repeats: several replays' worth (a replay is at
 * most REPLAY_MAX, and it overlaps only the live messages held while it ran). Bounded, so a stream
 * open for days holds a few KB, not every id of its life.
 */
export const SENT_WINDOW = 5 * REPLAY_MAX;

/**
 * Live results over server-sent events. EventSource cannot send an Authorization header, so the
 * stream is opened with a 60-second ticket (a JWT of its own type, minted from the access token);
 * a leaked ticket in a proxy log is useless a minute later and for anything but this stream.
 */
export interface EventsRouteDeps {
  auth: DashboardAuthDeps;
  tokens: Pick<AccessTokens, 'issueTicket' | 'verifyTicket'>;
  sessions: Pick<SessionService, 'isActive'>;
  bus: Pick<ResultsBus, 'subscribe'>;
  transactions: Pick<TransactionService, 'listAfter'>;
  heartbeatMs?: number;
  /** Tests shrink it; default SENT_WINDOW. */
  sentWindow?: number;
}

export const eventsRoutes: FastifyPluginAsyncTypebox<EventsRouteDeps> = async (
  app,
  { auth, tokens, sessions, bus, transactions, heartbeatMs = 20_000, sentWindow = SENT_WINDOW },
) => {
  app.post(
    '/api/dashboard/events/ticket',
    {
      onRequest: requireSession(auth),
      schema: {
        tags,
        summary: 'A 60-second ticket to open the live results stream',
        response: { 200: success(Type.Object({ ticket: Type.String(), expiresAt: Type.String() })), ...errorResponses(401, 429) },
      },
    },
    async (req) => {
      const t = await tokens.issueTicket(req.dashboard!);
      return { success: true as const, data: { ticket: t.token, expiresAt: t.expiresAt } };
    },
  );

  app.get(
    '/api/dashboard/events',
    {
      // The ticket is in the URL and Fastify's access log writes URLs at info: below warn, nothing is logged for this route.
      logLevel: 'warn',
      schema: {
        tags,
        summary: 'Server-sent events: transaction.created, owner.alert (ticket auth)',
        querystring: Type.Object(
          { ticket: Type.String({ minLength: 1, maxLength: 2000 }), lastEventId: Type.Optional(Type.String({ maxLength: 64 })) },
          { additionalProperties: false },
        ),
        response: { ...errorResponses(400, 401, 429) },
      },
    },
    async (req, reply) => {
      const holder = await tokens.verifyTicket(req.query.ticket);
      if (!holder || !(await sessions.isActive(holder.sessionId, holder.userId)))
        throw new AppError('UNAUTHORIZED', 401, 'The stream ticket is missing or expired; get a new one');
      await enforceRate(auth.rateLimiter, reply, `dash:ses:${holder.sessionId}`, auth.perMinute);
      const shopId = holder.shopId;
      const lastHeader = req.headers['last-event-id'];
      const lastId = req.query.lastEventId ?? (typeof lastHeader === 'string' ? lastHeader.slice(0, 64) : undefined);

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
        'X-Request-Id': req.id,
      });
      let open = true;
      const write = (s: string) => {
        if (open) res.write(s);
      };
      const sent = createRecentIds(sentWindow);
      const send = (m: BusMessage) => {
        const rec = m.data as { id?: string };
        if (m.type === 'transaction.created' && rec?.id) {
          if (!sent.add(rec.id)) return;
          write(`event: transaction.created\nid: ${rec.id}\ndata: ${JSON.stringify(m.data)}\n\n`);
        } else {
          write(`event: ${String(m.type).replace(/[\r\n]/g, '')}\ndata: ${JSON.stringify(m.data)}\n\n`);
        }
      };

      // A stream outlives its ticket: a person removed from the team (or signed out everywhere) must not
      // read the next customer's name and amount during the up to 20 s before the heartbeat notices.
      // So every live message is sent only after its session is read as still active (one indexed read
      // per event), in arrival order through one chain; the first message after the end closes the stream.
      let chain: Promise<void> = Promise.resolve();
      const sendIfActive = (m: BusMessage) => {
        chain = chain.then(async () => {
          if (!open) return;
          let ok: boolean;
          try {
            ok = await sessions.isActive(holder.sessionId, holder.userId);
          } catch {
            // Cannot tell (database lost): send nothing and close without "ended"; the browser comes back
            // with a new ticket and its last event id, and the replay brings this message if still allowed.
            close();
            return;
          }
          if (ok) send(m);
          else {
            write('event: session.ended\ndata: {}\n\n');
            close();
          }
        });
      };
      // Subscribe before the replay query and hold live messages until it is written: nothing falls in between.
      let buffered: BusMessage[] | null = [];
      const unsubscribe = bus.subscribe(shopId, (m) => {
        if (buffered) buffered.push(m);
        else sendIfActive(m);
      });
      const close = () => {
        if (!open) return;
        open = false;
        clearInterval(timer);
        unsubscribe();
        res.end();
      };
      const timer = setInterval(() => {
        void sessions.isActive(holder.sessionId, holder.userId).then(
          (ok) => {
            if (!ok) {
              write('event: session.ended\ndata: {}\n\n');
              close();
            } else write(': ping\n\n');
          },
          () => write(': ping\n\n'),
        );
      }, heartbeatMs);
      timer.unref();
      req.raw.on('close', close);

      write(`retry: 3000\n\nevent: ready\ndata: ${JSON.stringify({ shopId })}\n\n`);
      try {
        if (lastId)
          for (const record of await transactions.listAfter(shopId, lastId, REPLAY_MAX))
            send({ shopId, type: 'transaction.created', data: record });
      } catch (err) {
        req.log.warn({ err }, 'sse replay failed');
      }
      const held = buffered;
      buffered = null;
      for (const m of held) sendIfActive(m);
    },
  );
};
