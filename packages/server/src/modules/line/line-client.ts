import { createHash } from 'node:crypto';
import { metrics } from '../../lib/metrics.js';

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
  /** A Retry-After longer than this is not waited for: the call fails as retryable (the outbox retries later). */
  maxRetryWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export class LineApiError extends Error {
  constructor(readonly status: number, message: string, readonly retryable: boolean, readonly lineMessage?: string) {
    super(message);
    this.name = 'LineApiError';
  }
}
/** The message content is gone (LINE keeps it for a limited time) or never existed. */
export class LineContentGoneError extends Error { name = 'LineContentGoneError'; }
export class LineContentTooLargeError extends Error { name = 'LineContentTooLargeError'; }

export interface LineBotInfo { userId: string; basicId?: string; displayName?: string }
export type LineMessage = Record<string, unknown>;

const sleepReal = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** LINE's X-Line-Retry-Key must be a UUID; derive it from a stable string so a retried job reuses it. */
export function retryKeyFor(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function retryAfterMs(h: string | null): number | null {
  if (!h) return null;
  if (/^\d+$/.test(h.trim())) return Number(h.trim()) * 1000;
  const t = Date.parse(h);
  return Number.isNaN(t) ? null : Math.max(0, t - Date.now());
}

export function createLineClient(opts: LineClientOptions) {
  const sleep = opts.sleep ?? sleepReal;
  const maxWait = opts.maxRetryWaitMs ?? 10_000;
  const api = opts.apiBaseUrl.replace(/\/+$/, '');
  const data = opts.dataApiBaseUrl.replace(/\/+$/, '');

  /** Runs one call with the retry policy; `attempt` returns a Response or throws on network errors. */
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
      try { lineMessage = (JSON.parse(body) as { message?: string }).message; } catch { /* not JSON */ }
      const retryable = res.status >= 500 || res.status === 429;
      last = new LineApiError(res.status, `${what}: LINE answered ${res.status}`, retryable, lineMessage);
      if (!retryable) throw last;
      if (i < opts.retries) {
        const wait = retryAfterMs(res.headers.get('retry-after')) ?? 200 * 2 ** i;
        if (wait > maxWait) throw last;
        await sleep(wait);
      }
    }
    throw last!;
  }

  const json = (token: string, extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8', ...extra,
  });
  const signal = () => AbortSignal.timeout(opts.timeoutMs);

  return {
    /** Downloads an image message's bytes: capped at maxImageBytes, 404/410 -> LineContentGoneError. */
    async getContent(token: string, messageId: string): Promise<Buffer> {
      const url = `${data}/v2/bot/message/${encodeURIComponent(messageId)}/content`;
      const result = await withRetry('content', async () => {
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
      }, async (res) => {
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
      });
      return result as Buffer;
    },

    async reply(token: string, replyToken: string, messages: LineMessage[]): Promise<void> {
      await withRetry('reply', () => fetch(`${api}/v2/bot/message/reply`, {
        method: 'POST', headers: json(token), body: JSON.stringify({ replyToken, messages }), signal: signal(),
      }), async (r) => { await r.body?.cancel(); }).then(
        () => { metrics.lineDeliveries.inc({ kind: 'reply', outcome: 'ok' }); },
        (e: unknown) => { metrics.lineDeliveries.inc({ kind: 'reply', outcome: 'failed' }); throw e; },
      );
    },

    /** Push with an idempotency key: LINE answers 409 for a key it already accepted, which counts as sent. */
    async push(token: string, to: string, messages: LineMessage[], retryKey?: string): Promise<void> {
      try {
        await withRetry('push', () => fetch(`${api}/v2/bot/message/push`, {
          method: 'POST', headers: json(token, retryKey ? { 'x-line-retry-key': retryKey } : {}), body: JSON.stringify({ to, messages }), signal: signal(),
        }), async (r) => { await r.body?.cancel(); });
        metrics.lineDeliveries.inc({ kind: 'push', outcome: 'ok' });
      } catch (e) {
        const sent = e instanceof LineApiError && e.status === 409 && !!retryKey;
        metrics.lineDeliveries.inc({ kind: 'push', outcome: sent ? 'ok' : 'failed' });
        if (sent) return;
        throw e;
      }
    },

    async botInfo(token: string): Promise<LineBotInfo> {
      return await withRetry('bot info', () => fetch(`${api}/v2/bot/info`, { headers: { authorization: `Bearer ${token}` }, signal: signal() }),
        async (r) => (await r.json()) as LineBotInfo) as LineBotInfo;
    },

    /** Asks LINE to call the webhook endpoint (the console's "Verify" button). */
    async testWebhook(token: string, endpoint: string): Promise<{ success: boolean; statusCode?: number; reason?: string; detail?: string }> {
      return await withRetry('webhook test', () => fetch(`${api}/v2/bot/channel/webhook/test`, {
        method: 'POST', headers: json(token), body: JSON.stringify({ endpoint }), signal: signal(),
      }), async (r) => r.json()) as { success: boolean; statusCode?: number; reason?: string; detail?: string };
    },
  };
}
export type LineClient = ReturnType<typeof createLineClient>;
