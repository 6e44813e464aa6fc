import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.js';
import { errorResponses, success } from '../../http/common-schemas.js';
import type { LineChannelService } from './line-channel-service.js';
import type { LineEventLog } from './line-event-log.js';
import { CONTROL_CHARS } from './line-event-types.js';

// The SDK's index loads its whole HTTP client (measured: ~1 s of start-up on this machine's kind) for a
// one-line HMAC check. Loaded once when the HTTP app registers this route, so the CLI and the worker
// process, which build the same container, never pay for it.
let lineSdk: Promise<typeof import('@line/bot-sdk')> | null = null;
const loadLineSdk = () => (lineSdk ??= import('@line/bot-sdk'));

/**
 * base64(HMAC-SHA256(channelSecret, rawBody)), compared in constant time by the official SDK's
 * `validateSignature`; a missing, oversized or non-string header is refused before it.
 */
async function verifyLineSignature(secret: string, rawBody: Buffer, header: unknown): Promise<boolean> {
  if (typeof header !== 'string' || !header || header.length > 100) return false;
  const { validateSignature } = await loadLineSdk();
  return validateSignature(rawBody, secret, header);
}

export interface LineWebhookRouteDeps {
  channels: Pick<LineChannelService, 'byWebhookKey' | 'recordBotUserId'>;
  eventLog: Pick<LineEventLog, 'ingest'>;
}

/** The webhook of each linked official account: checks LINE's signature, logs the events, answers at once. */
export const lineWebhookRoutes: FastifyPluginAsyncTypebox<LineWebhookRouteDeps> = async (app, { channels, eventLog }) => {
  void loadLineSdk();
  // The signature covers the exact bytes LINE sent: keep them raw (scoped to this plugin only).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));

  app.post(
    '/api/line/webhook/:channelKey',
    {
      schema: {
        tags: ['line'],
        summary: 'LINE Messaging API webhook of one linked official account (signed by LINE with the channel secret)',
        params: Type.Object({ channelKey: Type.String({ maxLength: 100 }) }),
        response: { 200: success(Type.Object({ received: Type.Integer() })), ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => {
      const found = await channels.byWebhookKey(req.params.channelKey);
      if (!found) throw new AppError('NOT_FOUND', 404, 'Unknown LINE webhook');
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (!(await verifyLineSignature(found.secret, raw, req.headers['x-line-signature']))) {
        throw new AppError('UNAUTHORIZED', 401, 'Missing or invalid LINE signature');
      }
      let body: { destination?: unknown; events?: unknown } | null;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new AppError('BAD_REQUEST', 400, 'Body is not valid JSON');
      }
      // Signed but odd (null, a number, events not a list): answer cleanly, store nothing.
      const events: unknown[] = body && typeof body === 'object' && Array.isArray(body.events) ? body.events : [];
      const destination = body && typeof body === 'object' ? body.destination : undefined;
      if (typeof destination === 'string' && destination.length <= 100 && !CONTROL_CHARS.test(destination) && !found.row.bot_user_id)
        await channels.recordBotUserId(found.row.id, destination);
      const received = await eventLog.ingest(found.row, events);
      return { success: true as const, data: { received } };
    },
  );
};
