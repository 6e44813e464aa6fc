import type { webhook } from '@line/bot-sdk';

/**
 * The parts of LINE webhook event objects this service reads (everything else is ignored), typed
 * from the official SDK's webhook model (`webhook.Event`): a field LINE renames breaks the build.
 */
export type LineSource = { type: NonNullable<webhook.Source>['type'] } & Partial<
  Pick<webhook.UserSource, 'userId'> & Pick<webhook.GroupSource, 'groupId'> & Pick<webhook.RoomSource, 'roomId'>
>;

export interface LineEvent {
  type: webhook.Event['type']; // message | join | leave | follow | unfollow | ...
  mode?: webhook.EventMode;
  timestamp: webhook.EventBase['timestamp'];
  webhookEventId: webhook.EventBase['webhookEventId'];
  deliveryContext?: webhook.DeliveryContext;
  replyToken?: webhook.MessageEvent['replyToken'];
  source?: LineSource;
  message?: {
    id: webhook.MessageContentBase['id'];
    type: webhook.MessageContent['type'];
    text?: webhook.TextMessageContent['text'];
    contentProvider?: { type: webhook.ContentProvider['type']; originalContentUrl?: string };
  };
}

/** Where a chat answer goes by push: the group, the room or the user. */
export function chatIdOf(source: LineSource | undefined): string | null {
  if (!source) return null;
  if (source.type === 'group') return source.groupId ?? null;
  if (source.type === 'room') return source.roomId ?? null;
  return source.userId ?? null;
}
export const isGroupChat = (source: LineSource | undefined) => source?.type === 'group' || source?.type === 'room';

/**
 * C0/C1 control characters (NUL above all: PostgreSQL refuses it in text and jsonb) and bidi
 * overrides have no place in an id, a type or a token. Such a field is refused, and an event
 * without a usable id is ignored: the webhook still answers 200, or LINE would redeliver it forever.
 */
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const TEXT_CONTROL_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const str = (v: unknown, max: number): string | undefined =>
  typeof v === 'string' && v.length > 0 && v.length <= max && !CONTROL_CHARS.test(v) ? v : undefined;

/**
 * Keeps only the fields this service reads, each with the type it expects, so a hostile or odd
 * event (wrong types, huge extra fields) is stored small and cannot make the job throw again and
 * again. What is stored for an image is its message id: the bytes are fetched when the job runs
 * and never stored. Returns null for something that is not an event (no type or no event id).
 */
export function sanitizeLineEvent(raw: unknown): LineEvent | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const e = raw as Record<string, unknown>;
  const type = str(e.type, 50);
  const webhookEventId = str(e.webhookEventId, 100);
  if (!type || !webhookEventId) return null;
  const out: LineEvent = {
    type: type as LineEvent['type'],
    webhookEventId,
    timestamp: typeof e.timestamp === 'number' && Number.isFinite(e.timestamp) ? e.timestamp : 0,
  };
  const mode = str(e.mode, 20);
  if (mode) out.mode = mode as webhook.EventMode;
  const replyToken = str(e.replyToken, 200);
  if (replyToken) out.replyToken = replyToken;
  const dc = e.deliveryContext as Record<string, unknown> | null | undefined;
  if (dc && typeof dc === 'object') out.deliveryContext = { isRedelivery: dc.isRedelivery === true };
  const s = e.source as Record<string, unknown> | null | undefined;
  if (s && typeof s === 'object' && (s.type === 'user' || s.type === 'group' || s.type === 'room')) {
    const source: LineSource = { type: s.type };
    for (const k of ['userId', 'groupId', 'roomId'] as const) {
      const v = str(s[k], 100);
      if (v) source[k] = v;
    }
    out.source = source;
  }
  const m = e.message as Record<string, unknown> | null | undefined;
  if (m && typeof m === 'object') {
    const id = str(m.id, 100);
    const mtype = str(m.type, 30);
    if (id && mtype) {
      out.message = { id, type: mtype as webhook.MessageContent['type'] };
      // LINE caps a text message at 5,000 characters; a link code or command is far shorter. Control
      // characters other than line breaks and tabs are dropped (they cannot be stored on PostgreSQL).
      if (typeof m.text === 'string') out.message.text = m.text.slice(0, 5000).replace(TEXT_CONTROL_CHARS, '');
      const cp = m.contentProvider as Record<string, unknown> | null | undefined;
      const cpType = cp && typeof cp === 'object' ? str(cp.type, 20) : undefined;
      if (cpType === 'line' || cpType === 'external') {
        out.message.contentProvider = { type: cpType };
        const u = str(cp!.originalContentUrl, 2000);
        if (cpType === 'external' && u) out.message.contentProvider.originalContentUrl = u;
      }
    }
  }
  return out;
}
