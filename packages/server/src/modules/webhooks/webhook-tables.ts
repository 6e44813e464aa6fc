/** Kysely table types of the webhooks module (migration 0002-webhooks). */
export interface WebhookEndpointsTable {
  id: string;
  shop_id: string;
  url: string;
  description: string | null;
  events: string; // comma list of event kinds
  status: string; // enabled | disabled
  disabled_reason: string | null; // MANUAL | GONE (receiver answered 410)
  secret_enc: string; // lib/secret-box sealed, aad = endpoint id
  previous_secret_enc: string | null; // still signs until previous_secret_expires_at (rotation overlap)
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  shop_id: string;
  endpoint_id: string;
  event_id: string;
  event_kind: string;
  transaction_id: string | null;
  payload: string; // the exact JSON body, identical on every attempt
  is_test: number;
  status: string; // pending | retrying | delivered | failed | cancelled
  attempts: number;
  round: number; // retry round of the latest attempt: 0 = first try, 1..N = retries
  last_status_code: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  shop_id: string;
  endpoint_id: string;
  event_id: string;
  round: number;
  manual: number;
  status: string; // delivered | failed | lost (worker died before the answer was recorded)
  response_code: number | null;
  duration_ms: number | null;
  error: string | null;
  next_attempt_at: string | null;
  worker_id: string | null;
  started_at: string;
  finished_at: string | null;
}
