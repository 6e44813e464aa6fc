import { newId } from '../../src/lib/ids.js';
import type { Harness } from '../helpers/harness.js';

export interface TxSeed {
  status?: string;
  amountSatang?: number | null;
  createdAt: string;
  source?: string;
  environment?: string;
  receiverAccount?: string | null;
  receiverName?: string | null;
  senderName?: string | null;
  clientRef?: string | null;
  transRef?: string | null;
  /** The bank's time of the transfer (default: the check time). */
  transDate?: string | null;
}

let seq = 0;
/** Result rows written straight into the table (the totals and exports read them; how they were checked is not under test here). */
export async function insertTx(h: Pick<Harness, 'c'>, shopId: string, seeds: TxSeed[]): Promise<string[]> {
  const ids: string[] = [];
  const rows = seeds.map((s) => {
    const id = newId('txn', Date.parse(s.createdAt));
    ids.push(id);
    const status = s.status ?? 'SUCCESS';
    const ref = s.transRef === undefined ? `REF${Date.now().toString(36)}${++seq}` : s.transRef;
    return {
      id,
      shop_id: shopId,
      source: s.source ?? 'API',
      environment: s.environment ?? 'live',
      status,
      trans_ref: ref,
      amount_satang: s.amountSatang === undefined ? 10_000 : s.amountSatang,
      expected_amount_satang: null,
      bank_code: '004',
      bank_name: 'KBANK',
      sender_name: s.senderName === undefined ? 'นาย สมชาย ใจดี' : s.senderName,
      sender_account: 'xxx-x-x1234-x',
      receiver_name: s.receiverName === undefined ? 'บจก. ร้านกาแฟ ทดสอบ' : s.receiverName,
      receiver_account: s.receiverAccount === undefined ? 'xxx-x-x6660-x' : s.receiverAccount,
      trans_date: s.transDate === undefined ? s.createdAt : s.transDate,
      error_code: null,
      error_message: null,
      duplicate: status === 'DUPLICATE' ? 1 : 0,
      stale: 0,
      charged: 1,
      latency_ms: 5,
      client_ref: s.clientRef ?? null,
      image_hash: null,
      api_key_id: null,
      success_ref: status === 'SUCCESS' && (s.environment ?? 'live') === 'live' ? ref : null,
      anonymized_at: null,
      created_at: s.createdAt,
    };
  });
  for (let i = 0; i < rows.length; i += 500)
    await h.c.db
      .insertInto('transactions')
      .values(rows.slice(i, i + 500))
      .execute();
  return ids;
}

/** UTC ISO of a Bangkok wall-clock time (UTC+7, no daylight saving). */
export const bkk = (local: string) => new Date(Date.parse(`${local}+07:00`)).toISOString();
