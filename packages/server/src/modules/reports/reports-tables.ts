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
