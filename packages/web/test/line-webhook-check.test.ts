import { describe, expect, it } from 'vitest';
import { translate } from '../src/i18n/translate';
import { explainWebhookCheck, type WebhookCheck } from '../src/lib/line-webhook-check';

const say = (r: WebhookCheck, lang: 'th' | 'en' = 'th') => {
  const e = explainWebhookCheck(r);
  return translate(lang, e.key, e.vars);
};

describe("the LINE page's webhook test", () => {
  it('a webhook that answered 401 names the channel secret: the signature did not match the one the owner pasted', () => {
    // The service refuses LINE's signature when the secret pasted at linking is not this channel's. LINE's
    // test then answers { success: false, statusCode: 401, reason: "ERROR" }, and the page said only
    // "LINE could not reach the webhook: ERROR", while every slip sent to the account went unanswered.
    const r = { success: false, statusCode: 401, reason: 'ERROR' };
    expect(say(r)).toContain('Channel secret');
    expect(say(r)).not.toContain('ERROR');
    expect(say(r, 'en')).toContain('Channel secret');
    // Linking the same Channel ID again updates it in place; unlinking would drop every linked group.
    expect(say(r)).toContain(`"${translate('th', 'line.link')}"`);
    expect(say(r, 'en')).toContain(`"${translate('en', 'line.link')}"`);
    expect(say(r, 'en')).not.toMatch(/unlink/i);
  });

  it('LINE refusing the access token, and LINE unreachable, are said in the page language', () => {
    expect(say({ success: false, statusCode: null, reason: 'LINE answered 401' })).toContain('Channel access token');
    expect(say({ success: false, statusCode: null, reason: 'LINE answered 401' })).not.toContain('answered');
    expect(say({ success: false, statusCode: null, reason: 'LINE answered 401' }, 'en')).toContain(`"${translate('en', 'line.link')}"`);
    expect(say({ success: false, statusCode: null, reason: 'LINE unreachable' })).not.toContain('unreachable');
    expect(say({ success: false, statusCode: null, reason: 'LINE unreachable' })).toMatch(/[\u0E00-\u0E7F]/);
  });

  it('success, and other failures keep what LINE said', () => {
    expect(say({ success: true, statusCode: 200, reason: 'OK' })).toBe(translate('th', 'line.verifyOk'));
    expect(say({ success: false, statusCode: 500, reason: 'ERROR' }, 'en')).toContain('500');
  });
});
