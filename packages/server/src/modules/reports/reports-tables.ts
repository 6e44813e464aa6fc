/** Tables owned by the reports module (migration 0010). */
export interface DailySummariesTable {
  shop_id: string;
  day: string;
  status: string; // queued | sent | skipped
  job_id: string | null;
  sent_line: number;
  sent_email: number;
  created_at: string;
  updated_at: string;
}

/** One-time download tickets of the export (migration 0022): only the ticket's SHA-256 is stored. */
export interface ExportTicketsTable {
  id: string;
  shop_id: string;
  user_id: string;
  session_id: string;
  token_hash: string;
  format: string; // csv | xlsx
  lang: string | null; // th | en; null: the shop's language
  filters: string; // JSON ExportFilters
  created_at: string;
  expires_at: string;
  used_at: string | null;
}
