import type { MessageKey } from '../i18n/th';

/**
 * The sentence for a webhook delivery's recorded error (`lastError` of the dashboard API). The server
 * records what its HTTP client said, for integrators: `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9`,
 * `timeout after 10000 ms`, `HTTP 500` (webhook-sender.ts and webhook-delivery.ts in the server's
 * webhooks module). Owners read the deliveries screen too, in Thai first, so the screen says what
 * happened in words and keeps the recorded text as a detail. The API stays as it is: the text is
 * read here, by its known shapes; anything else gets the general sentence (and its detail).
 */
export interface DeliveryErrorText {
  key: MessageKey;
  vars?: Record<string, string | number>;
}

/** Node's and OpenSSL's codes for a TLS handshake or certificate that failed. */
const TLS_CODE =
  /^(?:ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|EPROTO$|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$)/;

/** `CODE: message` as the sender writes an error its HTTP client threw; the code, if there is one. */
const codeOf = (raw: string) => /^([A-Z][A-Z0-9_]+):\s/.exec(raw)?.[1] ?? null;

export function explainDeliveryError(raw: string | null | undefined): DeliveryErrorText | null {
  if (!raw) return null;
  const text = raw.trim();

  // Our own side: the worker stopped mid-round, or the job could not run. Either is sent again or is ours to fix.
  if (/^aborted: worker stopped|^worker stopped before the answer/.test(text)) return { key: 'webhooks.err.interrupted' };
  if (/^delivery could not be attempted/.test(text)) return { key: 'webhooks.err.notAttempted' };
  // Not a failure of the receiver: the owner turned the endpoint off (or removed it) while the delivery waited.
  if (text === 'endpoint disabled') return { key: 'webhooks.err.cancelledDisabled' };
  if (text === 'endpoint deleted') return { key: 'webhooks.err.cancelledDeleted' };

  // Read from the text, not the delivery's lastStatusCode: the two may come from different attempts.
  const http = /^HTTP (\d{3})\b/.exec(text);
  if (http) {
    const status = Number(http[1]);
    if (status >= 300 && status < 400) return { key: 'webhooks.err.redirect', vars: { code: status } };
    if (status === 410) return { key: 'webhooks.err.gone' };
    if (status === 413) return { key: 'webhooks.err.tooLarge' };
    if (status === 404) return { key: 'webhooks.err.notFound' };
    if (status === 401 || status === 403) return { key: 'webhooks.err.forbidden', vars: { code: status } };
    if (status === 429) return { key: 'webhooks.err.busy' };
    if (status >= 500) return { key: 'webhooks.err.http5xx', vars: { code: status } };
    return { key: 'webhooks.err.httpStatus', vars: { code: status } };
  }

  const timeout = /^timeout after (\d+) ms/.exec(text);
  if (timeout) return { key: 'webhooks.err.timeout', vars: { seconds: Number(timeout[1]) / 1000 } };

  // The address guard: a private address, or a URL saved under settings that no longer allow it.
  const code = codeOf(text);
  if (/^refused: /.test(text) || code === 'EADDRBLOCKED') return { key: 'webhooks.err.blocked' };
  if (code === 'ECONNREFUSED') return { key: 'webhooks.err.connectionRefused' };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA' || code === 'EAI_NONAME' || code === 'EAI_FAIL')
    return { key: 'webhooks.err.dnsNotFound' };
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return { key: 'webhooks.err.timeoutPlain' };
  if ((code && TLS_CODE.test(code)) || /SSL routines|certificate/i.test(text)) return { key: 'webhooks.err.tls' };
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED' || /other side closed/.test(text))
    return { key: 'webhooks.err.connectionClosed' };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EHOSTDOWN' || code === 'ENETDOWN')
    return { key: 'webhooks.err.unreachable' };
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return { key: 'webhooks.err.answerTooLarge' };
  return { key: 'webhooks.err.unknown' };
}
