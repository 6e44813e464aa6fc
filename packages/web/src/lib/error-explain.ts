import type { ErrorCode } from '@slipcheck/sdk';
import { ApiError } from '../api/client';
import { th, type MessageKey } from '../i18n/th';

export interface ErrorText {
  key: MessageKey;
  vars?: Record<string, string | number>;
  fallback?: string;
}

/**
 * The API error codes the screens can receive (docs/dashboard-api.md), typed from the SDK's catalogue
 * (a code the server never sends does not compile). Every catalogue code has Thai and English words
 * (i18n/error-words.ts); the unit test checks these in particular read as sentences.
 */
export const SCREEN_ERROR_CODES = [
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'NOT_FOUND',
  'RATE_LIMITED',
  'INVALID_CREDENTIALS',
  'ACCOUNT_DISABLED',
  'EMAIL_TAKEN',
  'WEAK_PASSWORD',
  'UNKNOWN_PLAN',
  'WRONG_PASSWORD',
  'RESET_TOKEN_INVALID',
  'REFRESH_INVALID',
  'REFRESH_REUSED',
  'ORIGIN_REJECTED',
  'INVALID_IMAGE',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'QUOTA_EXCEEDED',
  'TEST_QUOTA_EXCEEDED',
  'NO_PAYEE_CONFIGURED',
  'PLAN_API_ACCESS_REQUIRED',
  'KEY_REVOKED',
  'INVALID_CURSOR',
  'INVALID_WEBHOOK_URL',
  'WEBHOOK_ENDPOINT_LIMIT',
  'DELIVERY_IN_PROGRESS',
  'WEBHOOK_ENDPOINT_DISABLED',
  'PLAN_LIMIT_SEATS',
  'OWNER_ONLY',
  'OWNER_NOT_REMOVABLE',
  'INVITE_INVALID',
] as const satisfies readonly ErrorCode[];

const isOnline = () => (typeof navigator === 'undefined' ? true : navigator.onLine !== false);

/** Picks the sentence for an error; `online` is injectable for tests. */
export function explainError(error: unknown, online = isOnline()): ErrorText {
  if (error instanceof ApiError) {
    if (error.status === 429 || error.code === 'RATE_LIMITED') {
      const s = Number(error.body.retryAfter);
      return Number.isFinite(s) && s > 0
        ? { key: 'error.RATE_LIMITED_wait', vars: { seconds: Math.ceil(s) } }
        : { key: 'error.RATE_LIMITED' };
    }
    // A refusal with a reason code (e.g. a webhook URL): the reason in the person's language, not the server's English.
    const reason = typeof error.body.reason === 'string' ? `error.${error.code}.${error.body.reason}` : null;
    if (reason && reason in th) {
      const host = /url host (\S+) does not resolve/.exec(error.message)?.[1] ?? '';
      return { key: reason as MessageKey, vars: { message: error.message, host } };
    }
    const key = `error.${error.code}`;
    if (key in th) return { key: key as MessageKey, vars: { message: error.message } };
    if (error.status >= 500) return { key: 'error.server' };
    return { key: 'error.generic', fallback: error.message || undefined };
  }
  // fetch rejects with a TypeError when the request never reached the server.
  if (!online) return { key: 'error.offline' };
  if (error instanceof TypeError) return { key: 'error.network' };
  return { key: 'error.generic' };
}
