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
