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
}

export interface LineNoticesTable {
  shop_id: string;
  notice: string;
  period: string;
  created_at: string;
}
