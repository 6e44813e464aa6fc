/** Table types of the LINE channel (migration 0004-line); listed in db/db-schema.ts `Database`. */
export interface LineChannelsTable {
  id: string;
  shop_id: string;
  channel_id: string;
  webhook_key: string;
  secret_sealed: string; // secret-box value (carries its key id)
  token_sealed: string;
  bot_user_id: string | null;
  bot_name: string | null;
  status: string; // active | unlinked
  created_at: string;
  updated_at: string;
}

export interface LineGroupsTable {
  id: string;
  shop_id: string;
  line_channel_id: string;
  group_id: string;
  linked_by: string | null;
  silent_non_slip: number | null;
  status: string; // active | unlinked
  created_at: string;
  updated_at: string;
  /** Migration 0023: LINE's time on the latest join (or linking code) in this group; an older leave is stale. */
  joined_at?: string | null;
}

export interface LineLinkCodesTable {
  code_hash: string;
  shop_id: string;
  created_by: string;
  expires_at: string;
  used_at: string | null;
  used_for: string | null;
  created_at: string;
}

export interface LineOwnersTable {
  id: string;
  shop_id: string;
  line_channel_id: string;
  line_user_id: string;
  created_at: string;
}

export interface LineEventsTable {
  webhook_event_id: string;
  line_channel_id: string;
  received_at: string;
  /** Migration 0007: the record this event's image produced, and whether this event created it. */
  transaction_id?: string | null;
  created_record?: number | null;
  /** How far the answer got: replied | pushed | uncertain (reply timed out: LINE may have taken it). */
  answer_state?: string | null;
}

export interface LinePushUsageTable {
  line_channel_id: string;
  period: string; // YYYY-MM in the service's time zone
  pushes: number;
  updated_at: string;
}

export interface LineNoticesTable {
  shop_id: string;
  notice: string;
  period: string;
  created_at: string;
}
