import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Container } from '../../container.js';
import { AppError } from '../../errors.js';
import { errorResponses, success } from '../../http/common-schemas.js';
import type { BusMessage } from '../../lib/results-bus.js';
import { enforceRate, requireSession, type DashboardAuthDeps } from '../accounts/session-auth.js';
import { recordFromRow } from '../transactions/transaction-record.js';

const tags = ['dashboard'];
const REPLAY_MAX = 100;

/**
 * Live results over server-sent events. EventSource cannot send an Authorization header, so the
 * stream is opened with a 60-second ticket (a JWT of its own type, minted from the access token);
 * a leaked ticket in a proxy log is useless a minute later and for anything but this stream.
 */
export const eventsRoutes: FastifyPluginAsyncTypebox<{ c: Container; auth: DashboardAuthDeps; heartbeatMs?: number }> = async (
  app,
  { c, auth, heartbeatMs = 20_000 },
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
      const t = await c.dashboardTokens.issueTicket(req.dashboard!);
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
      const claims = await c.dashboardTokens.verifyTicket(req.query.ticket);
      if (!claims || !(await c.sessions.isActive(claims.sessionId, claims.userId)))
        throw new AppError('UNAUTHORIZED', 401, 'The stream ticket is missing or expired; get a new one');
      await enforceRate(auth.rateLimiter, reply, `dash:ses:${claims.sessionId}`, auth.perMinute);
      const shopId = claims.shopId;
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
      const sent = new Set<string>();
      const send = (m: BusMessage) => {
        const rec = m.data as { id?: string };
        if (m.type === 'transaction.created' && rec?.id) {
          if (sent.has(rec.id)) return;
          sent.add(rec.id);
          write(`event: transaction.created\nid: ${rec.id}\ndata: ${JSON.stringify(m.data)}\n\n`);
        } else {
          write(`event: ${String(m.type).replace(/[\r\n]/g, '')}\ndata: ${JSON.stringify(m.data)}\n\n`);
        }
      };

      // Subscribe before the replay query and hold live messages until it is written: nothing falls in between.
      let buffered: BusMessage[] | null = [];
      const unsubscribe = c.bus.subscribe(shopId, (m) => {
        if (buffered) buffered.push(m);
        else send(m);
      });
      const close = () => {
        if (!open) return;
        open = false;
        clearInterval(timer);
        unsubscribe();
        res.end();
      };
      const timer = setInterval(() => {
        void c.sessions.isActive(claims.sessionId, claims.userId).then(
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
        if (lastId) {
          const anchor = await c.db
            .selectFrom('transactions')
            .select(['created_at', 'id'])
            .where('shop_id', '=', shopId)
            .where('id', '=', lastId)
            .executeTakeFirst();
          if (anchor) {
            const rows = await c.db
              .selectFrom('transactions')
              .selectAll()
              .where('shop_id', '=', shopId)
              .where((eb) =>
                eb.or([
                  eb('created_at', '>', anchor.created_at),
                  eb.and([eb('created_at', '=', anchor.created_at), eb('id', '>', anchor.id)]),
                ]),
              )
              .orderBy('created_at', 'asc')
              .orderBy('id', 'asc')
              .limit(REPLAY_MAX)
              .execute();
            for (const r of rows) send({ shopId, type: 'transaction.created', data: recordFromRow(r) });
          }
        }
      } catch (err) {
        req.log.warn({ err }, 'sse replay failed');
      }
      const held = buffered;
      buffered = null;
      for (const m of held) send(m);
    },
  );
};
