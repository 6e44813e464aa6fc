import type { MessageKey } from '../i18n/th';

/** What `POST /api/dashboard/line/channels/:id/verify-webhook` answers (LINE's webhook test, passed on). */
export interface WebhookCheck {
  success: boolean;
  statusCode: number | null;
  reason?: string | null;
}

/**
 * The LINE page's sentence for a webhook test. LINE's own answer says little (`reason: "ERROR"` for any
 * status), and the service adds `LINE answered <status>` / `LINE unreachable` when LINE's test API itself
 * failed. The case owners meet is the wrong channel secret pasted at linking: the service then refuses
 * LINE's signature (401) and every chat goes unanswered, so the page says which value to fix.
 */
export function explainWebhookCheck(r: WebhookCheck): { key: MessageKey; vars?: Record<string, string | number> } {
  if (r.success) return { key: 'line.verifyOk' };
  if (r.statusCode === 401) return { key: 'line.verifySecret' };
  const reason = (r.reason ?? '').trim();
  if (r.statusCode === null && /^LINE answered 40[13]$/.test(reason)) return { key: 'line.verifyToken' };
  if (r.statusCode === null && reason === 'LINE unreachable') return { key: 'line.verifyUnreachable' };
  return { key: 'line.verifyFail', vars: { reason: r.statusCode !== null ? `HTTP ${r.statusCode}` : reason || '-' } };
}
