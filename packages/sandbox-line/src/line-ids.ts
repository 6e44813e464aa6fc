import { createHmac, randomBytes, randomInt } from 'node:crypto';

// IDs shaped like LINE's: user U + 32 hex, group C + 32 hex, message ids as digit strings, webhook
// event ids as 26-character ULIDs, reply tokens as 32 hex.
export const userId = () => `U${randomBytes(16).toString('hex')}`;
export const groupId = () => `C${randomBytes(16).toString('hex')}`;
export const replyToken = () => randomBytes(16).toString('hex');
/**
 * A channel access token in LINE's alphabet (base64: letters, digits, + / =). base64url's '-' could
 * start one, and an operator's `slipcheck line link --access-token -x...` is then refused as an
 * ambiguous option (a full test run failed on it); LINE's own tokens never start with '-'.
 */
export const channelToken = () => randomBytes(32).toString('base64');
export const messageId = () => `${Date.now()}${randomInt(100000, 999999)}`.slice(0, 18);
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export function webhookEventId(now = Date.now()): string {
  let t = now;
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let rand = '';
  for (const b of randomBytes(16)) rand += CROCKFORD[b % 32];
  return time + rand;
}

/** x-line-signature: base64(HMAC-SHA256(channel secret, the exact body bytes)). */
export function signBody(secret: string, raw: Buffer | string): string {
  return createHmac('sha256', secret).update(raw).digest('base64');
}
