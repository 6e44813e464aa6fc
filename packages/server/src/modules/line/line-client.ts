import { createHash } from 'node:crypto';
import type { messagingApi } from '@line/bot-sdk';
import { Agent, fetch as undiciFetch } from 'undici';
import { metrics } from '../../lib/metrics.js';
import { parseRetryAfterMs } from '../../lib/retry-after.js';
import { assertLiteralHostAllowed, guardedLookup, parseWebhookUrl } from '../webhooks/webhook-url-guard.js';

/**
 * A small client of the LINE Messaging API: only the calls this service makes. Written on fetch
 * rather than the SDK so timeouts, the size cap, Retry-After and the fake platform's base URLs are
 * all under our control. Never logs message bodies or image bytes.
 */
export interface LineClientOptions {
  apiBaseUrl: string;
  dataApiBaseUrl: string;
  timeoutMs: number;
  /** Retries after a 5xx, 429 or network error (not after 4xx). */
  retries: number;
  maxImageBytes: number;
  /** Development/tests only (WEBHOOK_ALLOW_PRIVATE): external images may live on loopback. */
  allowPrivateExternal?: boolean;
  /** A Retry-After longer than this is not waited for: the call fails as retryable (the outbox retries later). */
  maxRetryWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export class LineApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryable: boolean,
    readonly lineMessage?: string,
  ) {
    super(message);
    this.name = 'LineApiError';
  }
  /**
   * LINE's 429 "You have reached your monthly limit.": the official account's message allowance is
   * used up until the month turns. Waiting or retrying cannot help, so it is never retried.
   */
  get monthlyLimit(): boolean {
    return this.status === 429 && /monthly limit/i.test(this.lineMessage ?? '');
  }
}
/** The message content is gone (LINE keeps it for a limited time) or never existed. */
export class LineContentGoneError extends Error {
  name = 'LineContentGoneError';
}
export class LineContentTooLargeError extends Error {
  name = 'LineContentTooLargeError';
}
/** Every reply attempt timed out or failed on the network: LINE may or may not have posted it. */
export class LineReplyUncertainError extends LineApiError {
  constructor(message: string) {
    super(0, message, true);
    this.name = 'LineReplyUncertainError';
  }
}

export interface LineBotInfo {
  userId: string;
  basicId?: string;
  displayName?: string;
}
/** Outgoing messages are typed with the official SDK's model (text and Flex are what we send). */
export type LineMessage = messagingApi.Message;
/** How a reply ended: `sent`, or `probably-sent` when an attempt timed out and LINE then called the token used. */
export type ReplyOutcome = 'sent' | 'probably-sent';

const sleepReal = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * LINE's X-Line-Retry-Key must be a UUID; derive it from a stable string so a retried job reuses it.
 * LINE drops a second request with a key it accepted, whatever its body: so the seed must name the
 * message itself (see messageDigest), or a different answer would be silently dropped.
 */
export function retryKeyFor(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A short digest of the exact messages, part of a push's retry-key seed: one key per distinct message. */
export const messageDigest = (messages: LineMessage[]) => createHash('sha256').update(JSON.stringify(messages)).digest('hex').slice(0, 16);

export function createLineClient(opts: LineClientOptions) {
  const sleep = opts.sleep ?? sleepReal;
  const maxWait = opts.maxRetryWaitMs ?? 10_000;
  const api = opts.apiBaseUrl.replace(/\/+$/, '');
  const data = opts.dataApiBaseUrl.replace(/\/+$/, '');

  /**
   * Runs one call with the retry policy; `attempt` returns a Response or throws on network errors.
   * A plain loop rather than cockatiel's retry (see lib/README.md): a Retry-After past maxRetryWaitMs
   * must end the call at once (the outbox retries later), which a cockatiel backoff cannot decide.
   */
  async function withRetry(what: string, attempt: () => Promise<Response>, onOk: (r: Response) => Promise<unknown>): Promise<unknown> {
    let last: LineApiError | undefined;
    for (let i = 0; i <= opts.retries; i++) {
      let res: Response;
      try {
        res = await attempt();
      } catch (e) {
        if (e instanceof LineContentTooLargeError || e instanceof LineContentGoneError) throw e;
        last = new LineApiError(0, `${what}: ${(e as Error).name === 'TimeoutError' ? 'timed out' : 'network error'}`, true);
        if (i < opts.retries) await sleep(200 * 2 ** i);
        continue;
      }
      if (res.ok) return onOk(res);
      const body = await res.text().catch(() => '');
      let lineMessage: string | undefined;
      try {
        lineMessage = (JSON.parse(body) as { message?: string }).message;
      } catch {
        /* not JSON */
      }
      last = new LineApiError(res.status, `${what}: LINE answered ${res.status}`, false, lineMessage);
      const retryable = res.status >= 500 || (res.status === 429 && !last.monthlyLimit);
      if (!retryable) throw last;
      last = new LineApiError(res.status, last.message, true, lineMessage);
      if (i < opts.retries) {
        const wait = parseRetryAfterMs(res.headers.get('retry-after')) ?? 200 * 2 ** i;
        if (wait > maxWait) throw last;
        await sleep(wait);
      }
    }
    throw last!;
  }

  const json = (token: string, extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${token}`,
    'content-type': 'application/json; charset=utf-8',
    ...extra,
  });
  const signal = () => AbortSignal.timeout(opts.timeoutMs);
  const externalAgent = new Agent({
    connect: { timeout: opts.timeoutMs, ...(opts.allowPrivateExternal ? {} : { lookup: guardedLookup as never }) },
  });
  const externalFetch = (url: string, init: Record<string, unknown>) => undiciFetch(url, { ...init, dispatcher: externalAgent } as never);

  /** Reads a body up to maxImageBytes (a lying or absent Content-Length is caught while streaming). */
  async function readCapped(res: Response): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > opts.maxImageBytes) {
        await reader.cancel().catch(() => undefined);
        throw new LineContentTooLargeError('image is larger than the cap');
      }
      chunks.push(Buffer.from(value));
    }
    return Buffer.concat(chunks);
  }

  return {
    /** Downloads an image message's bytes: capped at maxImageBytes, 404/410 -> LineContentGoneError. */
    async getContent(token: string, messageId: string): Promise<Buffer> {
      const url = `${data}/v2/bot/message/${encodeURIComponent(messageId)}/content`;
      const result = await withRetry(
        'content',
        async () => {
          const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: signal() });
          if (res.status === 404 || res.status === 410) {
            await res.body?.cancel().catch(() => undefined);
            throw new LineContentGoneError('message content is no longer available');
          }
          const len = Number(res.headers.get('content-length') ?? NaN);
          if (res.ok && Number.isFinite(len) && len > opts.maxImageBytes) {
            await res.body?.cancel().catch(() => undefined);
            throw new LineContentTooLargeError('image is larger than the cap');
          }
          return res;
        },
        readCapped,
      );
      return result as Buffer;
    },

    /**
     * An image a user shared from another service (`contentProvider.type: "external"`): LINE holds no
     * bytes, only `originalContentUrl`. Fetched through the same SSRF guard as outgoing webhooks
     * (https only, public addresses checked at connect time, no redirects) and the same size cap.
     */
    async getExternalContent(rawUrl: string): Promise<Buffer> {
      let u: URL;
      try {
        u = parseWebhookUrl(rawUrl, { allowPrivate: !!opts.allowPrivateExternal });
        assertLiteralHostAllowed(u, !!opts.allowPrivateExternal);
      } catch {
        throw new LineContentGoneError('external image URL refused');
      }
      const res = await externalFetch(u.toString(), { redirect: 'manual', signal: signal() }).catch((e: Error) => {
        throw new LineApiError(0, `external content: ${e.name === 'TimeoutError' ? 'timed out' : 'network error'}`, false);
      });
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        throw new LineContentGoneError(`external image answered ${res.status}`);
      }
      const len = Number(res.headers.get('content-length') ?? NaN);
      if (Number.isFinite(len) && len > opts.maxImageBytes) {
        await res.body?.cancel().catch(() => undefined);
        throw new LineContentTooLargeError('image is larger than the cap');
      }
      return readCapped(res as unknown as Response);
    },

    /**
     * A reply token works once, so retrying a reply can never post twice. An attempt that timed out
     * may still have been accepted by LINE: when a later attempt then hears 400 (token used), the
     * answer is `probably-sent`, and the caller must not fall back to a push (that would post twice).
     */
    async reply(
      token: string,
      replyToken: string,
      messages: LineMessage[],
      opts: { uncertainBefore?: boolean } = {},
    ): Promise<ReplyOutcome> {
      let uncertain = !!opts.uncertainBefore;
      try {
        await withRetry(
          'reply',
          async () => {
            try {
              return await fetch(`${api}/v2/bot/message/reply`, {
                method: 'POST',
                headers: json(token),
                body: JSON.stringify({ replyToken, messages }),
                signal: signal(),
              });
            } catch (e) {
              uncertain = true;
              throw e;
            }
          },
          async (r) => {
            await r.body?.cancel();
          },
        );
        metrics.lineDeliveries.inc({ kind: 'reply', outcome: 'ok' });
        return 'sent';
      } catch (e) {
        if (uncertain && e instanceof LineApiError && e.status === 400) {
          metrics.lineDeliveries.inc({ kind: 'reply', outcome: 'ok' });
          return 'probably-sent';
        }
        metrics.lineDeliveries.inc({ kind: 'reply', outcome: 'failed' });
        if (uncertain && e instanceof LineApiError && e.status === 0) throw new LineReplyUncertainError(e.message);
        throw e;
      }
    },

    /** Push with an idempotency key: LINE answers 409 for a key it already accepted, which counts as sent. */
    async push(token: string, to: string, messages: LineMessage[], retryKey?: string): Promise<'sent' | 'already-sent'> {
      try {
        await withRetry(
          'push',
          () =>
            fetch(`${api}/v2/bot/message/push`, {
              method: 'POST',
              headers: json(token, retryKey ? { 'x-line-retry-key': retryKey } : {}),
              body: JSON.stringify({ to, messages }),
              signal: signal(),
            }),
          async (r) => {
            await r.body?.cancel();
          },
        );
        metrics.lineDeliveries.inc({ kind: 'push', outcome: 'ok' });
        return 'sent';
      } catch (e) {
        const sent = e instanceof LineApiError && e.status === 409 && !!retryKey;
        metrics.lineDeliveries.inc({ kind: 'push', outcome: sent ? 'ok' : 'failed' });
        if (sent) return 'already-sent';
        throw e;
      }
    },

    async botInfo(token: string): Promise<LineBotInfo> {
      return (await withRetry(
        'bot info',
        () => fetch(`${api}/v2/bot/info`, { headers: { authorization: `Bearer ${token}` }, signal: signal() }),
        async (r) => (await r.json()) as LineBotInfo,
      )) as LineBotInfo;
    },

    /**
     * Whether the official account may push this month: LINE's message quota (`none` = no limit, else
     * `limited` with `value`) against its consumption this month. Used to lift the monthly-limit mark once
     * the owner raises the plan; LINE documents both endpoints (Messaging API "Get the target limit for
     * sending messages this month", "Get number of messages sent this month").
     */
    async canPush(token: string): Promise<boolean> {
      const get = async (path: string) =>
        withRetry(
          'message quota',
          () => fetch(`${api}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: signal() }),
          async (r) => r.json(),
        );
      const quota = (await get('/v2/bot/message/quota')) as { type?: string; value?: number };
      if (quota.type !== 'limited') return true;
      const used = (await get('/v2/bot/message/quota/consumption')) as { totalUsage?: number };
      return typeof quota.value === 'number' && typeof used.totalUsage === 'number' && used.totalUsage < quota.value;
    },

    /** Asks LINE to call the webhook endpoint (the console's "Verify" button). */
    async testWebhook(
      token: string,
      endpoint: string,
    ): Promise<{ success: boolean; statusCode?: number; reason?: string; detail?: string }> {
      return (await withRetry(
        'webhook test',
        () =>
          fetch(`${api}/v2/bot/channel/webhook/test`, {
            method: 'POST',
            headers: json(token),
            body: JSON.stringify({ endpoint }),
            signal: signal(),
          }),
        async (r) => r.json(),
      )) as { success: boolean; statusCode?: number; reason?: string; detail?: string };
    },
  };
}
export type LineClient = ReturnType<typeof createLineClient>;
