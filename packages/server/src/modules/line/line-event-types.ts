/** The parts of LINE webhook event objects this service reads (everything else is ignored). */
export interface LineSource {
  type: 'user' | 'group' | 'room';
  userId?: string;
  groupId?: string;
  roomId?: string;
}

export interface LineEvent {
  type: string; // message | join | leave | follow | unfollow | ...
  mode?: string; // active | standby
  timestamp: number;
  webhookEventId: string;
  deliveryContext?: { isRedelivery: boolean };
  replyToken?: string;
  source?: LineSource;
  message?: { id: string; type: string; text?: string; contentProvider?: { type: string } };
}

/** Where a chat answer goes by push: the group, the room or the user. */
export function chatIdOf(s: LineSource | undefined): string | null {
  if (!s) return null;
  if (s.type === 'group') return s.groupId ?? null;
  if (s.type === 'room') return s.roomId ?? null;
  return s.userId ?? null;
}
export const isGroupChat = (s: LineSource | undefined) => s?.type === 'group' || s?.type === 'room';

const str = (v: unknown, max: number): string | undefined => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : undefined);

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
  const out: LineEvent = { type, webhookEventId, timestamp: typeof e.timestamp === 'number' && Number.isFinite(e.timestamp) ? e.timestamp : 0 };
  const mode = str(e.mode, 20);
  if (mode) out.mode = mode;
  const replyToken = str(e.replyToken, 200);
  if (replyToken) out.replyToken = replyToken;
  const dc = e.deliveryContext as Record<string, unknown> | null | undefined;
  if (dc && typeof dc === 'object') out.deliveryContext = { isRedelivery: dc.isRedelivery === true };
  const s = e.source as Record<string, unknown> | null | undefined;
  if (s && typeof s === 'object' && (s.type === 'user' || s.type === 'group' || s.type === 'room')) {
    const source: LineSource = { type: s.type };
    for (const k of ['userId', 'groupId', 'roomId'] as const) { const v = str(s[k], 100); if (v) source[k] = v; }
    out.source = source;
  }
  const m = e.message as Record<string, unknown> | null | undefined;
  if (m && typeof m === 'object') {
    const id = str(m.id, 100);
    const mtype = str(m.type, 30);
    if (id && mtype) {
      out.message = { id, type: mtype };
      // LINE caps a text message at 5,000 characters; a link code or command is far shorter.
      if (typeof m.text === 'string') out.message.text = m.text.slice(0, 5000);
      const cp = m.contentProvider as Record<string, unknown> | null | undefined;
      const cpType = cp && typeof cp === 'object' ? str(cp.type, 20) : undefined;
      if (cpType) out.message.contentProvider = { type: cpType };
    }
  }
  return out;
}
