/**
 * LINE's documented limits on a message body and its error answers, in one place.
 * Sources: Messaging API reference, "Message objects", "Flex Message elements", "Status codes" and
 * "Error responses" (developers.line.biz/en/reference/messaging-api/).
 */

/** A property-level problem, the shape of LINE's `details` entries. */
export interface LineErrorDetail {
  message: string;
  property: string;
}

/**
 * 1-5 messages; text 1-5000 characters; flex altText 1-400 characters; a bubble's JSON at most 30 KB
 * (a carousel at most 12 bubbles); colours as #RRGGBB or #RRGGBBAA; a text component's text non-empty
 * unless it has spans; quick reply at most 13 items. Returns what is wrong, empty when LINE would take it.
 */
export function messageProblems(messages: unknown): LineErrorDetail[] {
  const out: LineErrorDetail[] = [];
  if (!Array.isArray(messages) || messages.length < 1 || messages.length > 5)
    return [{ message: 'Size must be between 1 and 5', property: 'messages' }];
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${path}[${i}]`));
      return;
    }
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    for (const [k, x] of Object.entries(o)) {
      if (/color$/i.test(k) && (typeof x !== 'string' || !/^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$/.test(x)))
        out.push({ message: `invalid color ${JSON.stringify(x)}`, property: `${path}.${k}` });
    }
    if (o.type === 'text' && !Array.isArray(o.contents) && (typeof o.text !== 'string' || o.text.length === 0))
      out.push({ message: 'must not be empty', property: `${path}.text` });
    for (const [k, x] of Object.entries(o)) if (x && typeof x === 'object') walk(x, `${path}.${k}`);
  };
  type MessageShape = {
    type?: unknown;
    text?: unknown;
    altText?: unknown;
    contents?: { type?: unknown; contents?: unknown };
    quickReply?: { items?: unknown };
  } | null;
  messages.forEach((m: MessageShape, i) => {
    const p = `messages[${i}]`;
    if (m?.type === 'text') {
      if (typeof m.text !== 'string' || m.text.length < 1 || m.text.length > 5000)
        out.push({ message: 'Length must be between 1 and 5000', property: `${p}.text` });
    } else if (m?.type === 'flex') {
      if (typeof m.altText !== 'string' || m.altText.length < 1 || m.altText.length > 400)
        out.push({ message: 'Length must be between 1 and 400', property: `${p}.altText` });
      const bubbles = m.contents?.type === 'carousel' ? m.contents.contents : [m.contents];
      if (!Array.isArray(bubbles) || bubbles.length > 12)
        out.push({ message: 'Size must be between 1 and 12', property: `${p}.contents.contents` });
      for (const b of Array.isArray(bubbles) ? bubbles : [])
        if (Buffer.byteLength(JSON.stringify(b ?? {})) > 30_000)
          out.push({ message: 'bubble larger than 30 KB', property: `${p}.contents` });
      walk(m.contents, `${p}.contents`);
    } else out.push({ message: `unsupported type ${JSON.stringify(m?.type)}`, property: `${p}.type` });
    const items = m?.quickReply?.items;
    if (items !== undefined && (!Array.isArray(items) || items.length < 1 || items.length > 13))
      out.push({ message: 'Size must be between 1 and 13', property: `${p}.quickReply.items` });
  });
  return out;
}

/** LINE's answer bodies, word for word where LINE documents them. */
export const LINE_ERRORS = {
  auth: { message: 'Authentication failed. Confirm that the access token in the authorization header is valid.' },
  notFound: { message: 'Not found' },
  invalidReplyToken: { message: 'Invalid reply token' },
  monthlyLimit: { message: 'You have reached your monthly limit.' },
  rateLimit: { message: 'The API rate limit has been exceeded. Try again later.' },
  retryKeyAccepted: { message: 'The retry key is already accepted' },
  badRetryKey: { message: "The value for the 'X-Line-Retry-Key' header is invalid" },
  internal: { message: 'An error occurred in the LINE Platform.' },
  badBody: (details: LineErrorDetail[]) => ({ message: `The request body has ${details.length} error(s)`, details }),
} as const;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
