import { createHmac } from 'node:crypto';
import { createSandboxLine, messageProblems } from '@slipcheck/sandbox-line';

/**
 * The LINE platform of the service's LINE tests is the shipped sandbox LINE platform
 * (packages/sandbox-line) on loopback, strict as LINE: unknown access tokens get 401, reply tokens work
 * once and only when the platform delivered them in a webhook, retry keys are remembered, bodies over
 * LINE's limits are refused. These helpers keep the names the tests were written with.
 */
export type { Channel as FakeChannel, Sent } from '@slipcheck/sandbox-line';

/** What LINE would refuse in a message body (empty when LINE takes it), as strings. */
export function lineLimitProblems(messages: unknown): string[] {
  return messageProblems(messages).map((d) => `${d.property}: ${d.message}`);
}

export const startFakeLinePlatform = () => createSandboxLine();
export type FakeLinePlatform = Awaited<ReturnType<typeof startFakeLinePlatform>>;

export function sign(secret: string, raw: Buffer | string): string {
  return createHmac('sha256', secret).update(raw).digest('base64');
}

let evSeq = 0;
/** A LINE webhook event, shaped like the platform's. */
export function lineEvent(
  type: string,
  source: { type: 'user' | 'group' | 'room'; userId?: string; groupId?: string },
  extra: Record<string, unknown> = {},
  now = Date.now(),
) {
  const n = ++evSeq;
  return {
    type,
    mode: 'active',
    timestamp: now,
    source,
    webhookEventId: `01FAKE${String(n).padStart(10, '0')}${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    deliveryContext: { isRedelivery: false },
    replyToken: `rt-${n}-${Math.random().toString(36).slice(2)}`,
    ...extra,
  };
}
export const imageMessage = (id: string) => ({ message: { id, type: 'image', contentProvider: { type: 'line' } } });
/** An image shared from outside LINE: LINE holds no bytes, only the URL. */
export const externalImageMessage = (id: string, originalContentUrl: string) => ({
  message: { id, type: 'image', contentProvider: { type: 'external', originalContentUrl } },
});
export const textMessage = (text: string) => ({ message: { id: `m${++evSeq}`, type: 'text', text } });
