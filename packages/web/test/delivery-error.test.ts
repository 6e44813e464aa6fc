import { describe, expect, it } from 'vitest';
import { en } from '../src/i18n/en';
import { th } from '../src/i18n/th';
import { translate } from '../src/i18n/translate';
import { explainDeliveryError } from '../src/lib/delivery-error';

const thai = /[\u0E00-\u0E7F]/;

/** What the server's webhook sender and delivery runner record (webhook-sender.ts, webhook-delivery.ts), and the sentence for each. */
const RECORDED: Array<[string, string, Record<string, number>?]> = [
  ['ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9', 'webhooks.err.connectionRefused'],
  ['ENOTFOUND: getaddrinfo ENOTFOUND shop.example', 'webhooks.err.dnsNotFound'],
  ['EAI_AGAIN: getaddrinfo EAI_AGAIN shop.example', 'webhooks.err.dnsNotFound'],
  ['timeout after 10000 ms', 'webhooks.err.timeout', { seconds: 10 }],
  ['UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error', 'webhooks.err.timeoutPlain'],
  ['ERR_SSL_WRONG_VERSION_NUMBER: 808C2254B67F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number', 'webhooks.err.tls'],
  ['CERT_HAS_EXPIRED: certificate has expired', 'webhooks.err.tls'],
  ['DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate', 'webhooks.err.tls'],
  ["ERR_TLS_CERT_ALTNAME_INVALID: Hostname/IP does not match certificate's altnames", 'webhooks.err.tls'],
  ['UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate', 'webhooks.err.tls'],
  ['UND_ERR_SOCKET: other side closed', 'webhooks.err.connectionClosed'],
  ['ECONNRESET: read ECONNRESET', 'webhooks.err.connectionClosed'],
  ['EHOSTUNREACH: connect EHOSTUNREACH 203.0.113.9:443', 'webhooks.err.unreachable'],
  ['refused: 127.0.0.1 is not a public address', 'webhooks.err.blocked'],
  ['EADDRBLOCKED: refused: localhost resolves to a non-public address', 'webhooks.err.blocked'],
  ['refused: url must use https', 'webhooks.err.blocked'],
  ['HTTP 500', 'webhooks.err.http5xx', { code: 500 }],
  ['HTTP 503', 'webhooks.err.http5xx', { code: 503 }],
  ['HTTP 400', 'webhooks.err.httpStatus', { code: 400 }],
  ['HTTP 404', 'webhooks.err.notFound'],
  ['HTTP 401', 'webhooks.err.forbidden', { code: 401 }],
  ['HTTP 413', 'webhooks.err.tooLarge'],
  ['HTTP 429', 'webhooks.err.busy'],
  ['HTTP 410: endpoint disabled (410 Gone)', 'webhooks.err.gone'],
  ['HTTP 301: redirect not followed (Location: https://shop.example/new)', 'webhooks.err.redirect', { code: 301 }],
  ['aborted: worker stopped', 'webhooks.err.interrupted'],
  ['worker stopped before the answer was recorded; round sent again', 'webhooks.err.interrupted'],
  ['delivery could not be attempted: handler crashed', 'webhooks.err.notAttempted'],
  // Cancelled by the owner's own change (webhook-delivery.ts cancels the round), not a receiver's failure.
  ['endpoint disabled', 'webhooks.err.cancelledDisabled'],
  ['endpoint deleted', 'webhooks.err.cancelledDeleted'],
  ['something nobody has seen', 'webhooks.err.unknown'],
];

describe('webhook delivery errors in words', () => {
  it.each(RECORDED)('%s', (raw, key, vars) => {
    const said = explainDeliveryError(raw);
    expect(said).toEqual(vars ? { key, vars } : { key });
    const k = key as keyof typeof th;
    expect(th[k]).toMatch(thai);
    expect(en[k]).not.toMatch(thai);
    // Every placeholder is filled, and the sentence does not repeat the recorded error's code.
    for (const lang of ['th', 'en'] as const) {
      const s = translate(lang, k, said?.vars);
      expect(s).not.toMatch(/\{\w+\}/);
      expect(s).not.toMatch(/ECONN|ENOTFOUND|EAI_|ERR_SSL|UND_ERR|timeout after/);
    }
  });

  it('says nothing when nothing went wrong', () => {
    expect(explainDeliveryError(null)).toBeNull();
    expect(explainDeliveryError('')).toBeNull();
  });
});

it('a one-second timeout reads "1 second" in English', () => {
  expect(translate('en', 'webhooks.err.timeout', explainDeliveryError('timeout after 1000 ms')?.vars)).toContain('within 1 second,');
});
