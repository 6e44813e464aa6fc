import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from '../modules/webhooks/webhook-tables.js';
import type { LineIdTokensTable, LineLoginCodesTable, LineLoginsTable } from '../modules/line-login/line-login-tables.js';
import type { DailySummariesTable, ExportTicketsTable } from '../modules/reports/reports-tables.js';
import type {
  LineChannelsTable,
  LineEventsTable,
  LineGroupsTable,
  LineLinkCodesTable,
  LineNoticesTable,
  LineOwnersTable,
  LinePushUsageTable,
} from '../modules/line/line-tables.js';

/**
 * Table types for Kysely. Portable column choices (both SQLite and PostgreSQL):
 * timestamps are ISO 8601 UTC text (they sort as text), booleans are 0/1 integers,
 * money is integer satang (exact), JSON is text.
 */
export interface PlansTable {
  code: string;
  name: string;
  monthly_limit: number;
  trial_days: number;
  api_access: number;
  webhooks: number;
  seats: number;
  groups: number;
  messaging_accounts: number;
  allow_overage: number;
  free_buffer: number;
  monthly_cap: number;
  hard_block_multiple: number;
  price_thb: number;
  overage_price_satang: number;
  updated_at: string;
}

export interface ShopsTable {
  id: string;
  name: string;
  state: string; // trial | active | past_due | suspended
  plan_code: string;
  chosen_plan_code: string | null; // the plan card chosen at sign-up; entitlements start after payment
  trial_ends_at: string | null;
  language: string; // th | en
  settings: string; // JSON: notification preferences etc.
  created_at: string;
  deleted_at: string | null;
}

export interface PayeeAccountsTable {
  id: string;
  shop_id: string;
  bank_code: string;
  kind: string; // BANK | PROMPTPAY
  account_number: string; // full number (or PromptPay proxy value); only last 4 leave the service
  proxy_type: string | null; // PHONE | NATID | EWALLET for PROMPTPAY
  holder: string;
  is_primary: number;
  status: string; // ACTIVE | DISABLED
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  shop_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  environment: string; // live | test
  scopes: string; // comma separated
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  replaced_by: string | null;
}

export interface TransactionsTable {
  id: string;
  shop_id: string;
  source: string; // API | LINE | DASHBOARD
  environment: string;
  status: string;
  trans_ref: string | null;
  amount_satang: number | null;
  expected_amount_satang: number | null;
  bank_code: string | null;
  bank_name: string | null;
  sender_name: string | null;
  sender_account: string | null;
  receiver_name: string | null;
  receiver_account: string | null;
  trans_date: string | null;
  error_code: string | null;
  error_message: string | null;
  duplicate: number;
  stale: number;
  /** Amount the slip picture prints, read by the service (issue 20); null when not read with confidence. */
  printed_amount_satang?: number | null;
  /** 1 when the printed amount differs from the bank's: an edited slip. Optional on insert (default 0). */
  edited?: number;
  charged: number;
  latency_ms: number;
  client_ref: string | null;
  image_hash: string | null;
  api_key_id: string | null;
  /** trans_ref copied only on SUCCESS rows: a unique index on (environment, success_ref) allows one SUCCESS per transfer across all shops. */
  success_ref: string | null;
  /** The shop's payee account the receiver check matched (migration 0016); NULL when none did or an old row could not be placed. */
  payee_id: string | null;
  anonymized_at: string | null;
  created_at: string;
}

/** Same-image replay claims: one row per (shop, environment, image hash) inside the cache window. */
export interface ImageClaimsTable {
  shop_id: string;
  scope: string; // environment
  image_hash: string;
  transaction_id: string | null; // null while the first check is in flight
  claimed_at: string;
  owner: string | null; // random token of the check in flight (0006)
  lease_until: string | null; // the owner renews it while it works; past it, the claim is orphaned
  reserved_pool: string | null; // 'live' | 'test': the quota unit this in-flight check holds
  reserved_period: string | null;
}

/** Slips refused for want of a payee account, per shop, of the current local day (0021). */
export interface PayeeRefusalsTable {
  shop_id: string;
  day: string; // YYYY-MM-DD in TIME_ZONE
  refused: number;
  first_at: string;
  last_at: string;
  alerted_day: string | null; // the day the owner was last told of
}

export interface QuotaUsageTable {
  shop_id: string;
  period: string; // YYYY-MM
  used: number;
  test_used: number;
  updated_at: string;
}

export interface AuditLogTable {
  id: string;
  shop_id: string | null;
  actor: string; // operator:cli | user:<id> | api_key:<id> | system
  action: string;
  target: string | null;
  detail: string; // JSON
  ip: string | null;
  created_at: string;
}

export interface OutboxTable {
  id: string;
  kind: string;
  shop_id: string | null;
  payload: string; // JSON, never an image
  status: string; // pending | done | failed
  attempts: number;
  run_at: string;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** Unique when set: a job enqueued with a key exists at most once (scheduled slots, outbox-schedule.ts). */
  dedupe_key: string | null;
}

/** Dashboard owner accounts (module accounts). */
export interface UsersTable {
  id: string;
  shop_id: string;
  email: string; // lower-cased
  password_hash: string; // argon2id PHC string
  role: string; // owner | staff
  language: string;
  created_at: string;
  password_changed_at: string | null;
  disabled_at: string | null;
  deleted_at: string | null;
}

/** A login = one refresh-token family. */
export interface UserSessionsTable {
  id: string;
  user_id: string;
  shop_id: string;
  user_agent: string | null;
  ip: string | null;
  fingerprint: string; // sha256(user-agent | ip): new-device notice
  created_at: string;
  last_used_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoke_reason: string | null;
  /** dashboard | miniapp: shown on the security screen; unlinking LINE revokes the miniapp ones */
  kind: string;
  /** The LINE user whose ID token opened the session (mini-app or dashboard); null for password sessions. */
  line_user_id: string | null;
}

export interface RefreshTokensTable {
  token_hash: string; // sha256 of the random token; the token itself is never stored
  session_id: string;
  created_at: string;
  expires_at: string;
  rotated_at: string | null;
}

export interface PasswordResetsTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface MailMessagesTable {
  id: string;
  to_addr: string;
  subject: string;
  template: string;
  body_text: string | null; // development sink only
  transport: string; // sink | smtp
  status: string; // stored | sent | failed
  error: string | null;
  shop_id: string | null;
  created_at: string;
}

/** Staff invites (module team): single use, the token itself is never stored. */
export interface TeamInvitesTable {
  id: string;
  shop_id: string;
  email: string;
  role: string; // staff
  token_hash: string;
  invited_by: string; // user id
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
  accepted_user_id: string | null;
}

export interface Database {
  plans: PlansTable;
  shops: ShopsTable;
  payee_accounts: PayeeAccountsTable;
  api_keys: ApiKeysTable;
  transactions: TransactionsTable;
  image_claims: ImageClaimsTable;
  payee_refusals: PayeeRefusalsTable;
  quota_usage: QuotaUsageTable;
  audit_log: AuditLogTable;
  outbox: OutboxTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  users: UsersTable;
  user_sessions: UserSessionsTable;
  refresh_tokens: RefreshTokensTable;
  password_resets: PasswordResetsTable;
  mail_messages: MailMessagesTable;
  team_invites: TeamInvitesTable;
  line_channels: LineChannelsTable;
  line_groups: LineGroupsTable;
  line_link_codes: LineLinkCodesTable;
  line_owners: LineOwnersTable;
  line_events: LineEventsTable;
  line_notices: LineNoticesTable;
  line_push_usage: LinePushUsageTable;
  line_logins: LineLoginsTable;
  line_login_codes: LineLoginCodesTable;
  line_id_tokens: LineIdTokensTable;
  daily_summaries: DailySummariesTable;
  export_tickets: ExportTicketsTable;
}
