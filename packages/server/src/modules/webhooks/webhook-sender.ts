import { Agent, request } from 'undici';
import { parseRetryAfterMs } from '../../lib/retry-after.js';
import { assertLiteralHostAllowed, guardedLookup, parseWebhookUrl } from './webhook-url-guard.js';

/**
 * One HTTP attempt of one delivery. Any 2xx is delivered; redirects are never followed (a 3xx is a
 * failure: the receiver must give its final URL); 410 Gone is reported so the caller can disable
 * the endpoint. The response body is drained (bounded) and never stored.
 */
export const WEBHOOK_USER_AGENT = 'SlipWebhooks/1.0';

export interface SendInput {
  url: string;
  body: string;
  headers: Record<string, string>;
  signal?: AbortSignal;
}

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** From a Retry-After answer header, in ms (capped to a day). */
  retryAfterMs: number | null;
  gone: boolean;
}

export interface WebhookSender {
  send(input: SendInput): Promise<SendResult>;
  close(): Promise<void>;
}

export function createWebhookSender(opts: { timeoutMs: number; allowPrivate: boolean }): WebhookSender {
  // One pooled agent: keep-alive for throughput. Every new socket resolves through guardedLookup.
  const agent = new Agent({
    connect: { timeout: opts.timeoutMs, ...(opts.allowPrivate ? {} : { lookup: guardedLookup as never }) },
    keepAliveTimeout: 10_000,
    connections: 64,
  });

  return {
    async send(input) {
      const started = performance.now();
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      const signal = input.signal ? AbortSignal.any([timeout, input.signal]) : timeout;
      const done = (r: Partial<SendResult>): SendResult => ({
        ok: false,
        statusCode: null,
        error: null,
        retryAfterMs: null,
        gone: false,
        ...r,
        durationMs: Math.round(performance.now() - started),
      });
      try {
        const target = new URL(input.url);
        assertLiteralHostAllowed(target, opts.allowPrivate);
        // The saved URL was checked under the settings of its day: an http:// target saved while the
        // development flag was on must not be sent to once it is off (nor a URL with credentials).
        try {
          parseWebhookUrl(input.url, { allowPrivate: opts.allowPrivate });
        } catch (e) {
          // No `cause`: the reporter below unwraps causes (undici wraps socket errors) and would show the
          // inner message instead of this "refused:" one. The reason is carried in the message itself.
          // eslint-disable-next-line preserve-caught-error
          throw new Error(`refused: ${(e as Error).message}`);
        }
        const res = await request(input.url, {
          method: 'POST',
          body: input.body,
          dispatcher: agent,
          signal,
          headers: { 'content-type': 'application/json', 'user-agent': WEBHOOK_USER_AGENT, ...input.headers },
          headersTimeout: opts.timeoutMs,
          bodyTimeout: opts.timeoutMs,
        });
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        const code = res.statusCode;
        if (code >= 200 && code < 300) return done({ ok: true, statusCode: code });
        const retryAfterMs = parseRetryAfterMs(res.headers['retry-after'], Date.now(), 86_400_000);
        if (code >= 300 && code < 400) {
          const loc = String(res.headers.location ?? '').slice(0, 200);
          return done({ statusCode: code, retryAfterMs, error: `HTTP ${code}: redirect not followed${loc ? ` (Location: ${loc})` : ''}` });
        }
        return done({ statusCode: code, retryAfterMs, gone: code === 410, error: `HTTP ${code}` });
      } catch (e) {
        if (input.signal?.aborted) return done({ error: 'aborted: worker stopped' });
        const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
        const code = err.code ?? err.cause?.code;
        // undici's own headers/body timers run with the same limit as the abort timer, and either may
        // fire first: one timeout, one message for the owner (the deliveries screen showed
        // "UND_ERR_HEADERS_TIMEOUT: Headers Timeout Error" when undici's came first).
        if (timeout.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
          return done({ error: `timeout after ${opts.timeoutMs} ms` });
        const msg = err.cause?.message ?? err.message;
        return done({ error: `${code ? `${code}: ` : ''}${msg}`.slice(0, 500) });
      }
    },
    close: () => agent.close(),
  };
}
