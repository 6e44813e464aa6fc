// Adapter for EasySlip API v2 (internal code: the provider's name must never reach users).
// POST {base}/v2/verify/bank {payload}, Authorization: Bearer <key>.
// Success: {success:true, data:{isDuplicate, matchedAccount, amountInSlip, rawSlip}}.
// Errors: {success:false, error:{code, message}}: 404 SLIP_NOT_FOUND, SLIP_PENDING (late banks),
// 401 key, 403 QUOTA_EXCEEDED/BRANCH_INACTIVE/..., 429 + Retry-After, 500 API_SERVER_ERROR.
import type { BankParty, BankSlip, Checker } from './checker-port.js';
import { unavailable } from './checker-port.js';
import { bankCode, isRecord, joinUrl, postJson, proxyType, retryAfterSeconds, str, toUtcIso, type FetchFn } from './checker-http.js';

export interface EasySlipCheckerOptions {
  /** base URL, default https://api.easyslip.com (the adapter appends /v2/verify/bank) */
  url?: string;
  key: string;
  fetch: FetchFn;
  id?: string;
}

/** Pending slips become visible within minutes; 60 s is a sensible first retry hint. */
const DEFAULT_PENDING_RETRY_S = 60;

export function createEasySlipChecker(opts: EasySlipCheckerOptions): Checker {
  const endpoint = joinUrl(opts.url ?? 'https://api.easyslip.com', '/v2/verify/bank');
  const headers = { authorization: `Bearer ${opts.key}` };
  return {
    id: opts.id ?? 'easyslip',
    async check(q, o) {
      // checkDuplicate stays off: duplicates are decided by our own database, per shop
      const out = await postJson(opts.fetch, endpoint, { payload: q.payload }, headers, o?.signal);
      if (!out.ok) return unavailable(`easyslip: ${out.reason}`, true);
      const { status, json, headers: h } = out.answer;
      const body = isRecord(json) ? json : {};
      const code = isRecord(body.error) ? (str(body.error.code) ?? '').toUpperCase() : '';

      if (status === 200 && body.success === true) {
        const slip = isRecord(body.data) ? mapEasySlipRawSlip(body.data.rawSlip, q.transRef) : null;
        return slip ? { kind: 'FOUND', slip } : unavailable('easyslip: malformed success body', false);
      }
      if (code === 'SLIP_PENDING') {
        return { kind: 'PENDING', retryAfterSeconds: retryAfterSeconds(h, DEFAULT_PENDING_RETRY_S) };
      }
      // only the documented code means "no such transfer"; a bare 404 is a wrong URL
      if (status === 404 && code === 'SLIP_NOT_FOUND') return { kind: 'NOT_FOUND' };
      if (status >= 500 || status === 408) return unavailable(`easyslip: HTTP ${status} ${code}`, true);
      // 400 validation, 401 key, 403 quota/ban/IP, 429 rate: retrying the same upstream won't help
      return unavailable(`easyslip: HTTP ${status} ${code}`, false);
    },
  };
}

function party(v: unknown): BankParty | null {
  if (!isRecord(v)) return null;
  const bank = isRecord(v.bank) ? bankCode(v.bank.id) : null;
  const acc = isRecord(v.account) ? v.account : {};
  const name = isRecord(acc.name) ? acc.name : {};
  const th = str(name.th);
  const en = str(name.en);
  const account = isRecord(acc.bank) ? str(acc.bank.account) : null;
  const proxy = isRecord(acc.proxy) && str(acc.proxy.account) ? { type: proxyType(acc.proxy.type), value: str(acc.proxy.account)! } : null;
  return { name: th || en || '', nameEn: en || null, account: account || null, proxy, bankCode: bank };
}

export function mapEasySlipRawSlip(raw: unknown, fallbackRef: string): BankSlip | null {
  if (!isRecord(raw)) return null;
  const amount = Number(isRecord(raw.amount) ? raw.amount.amount : raw.amount);
  const transDate = toUtcIso(raw.date);
  const sender = party(raw.sender);
  const receiver = party(raw.receiver);
  if (!Number.isFinite(amount) || !transDate || !sender || !receiver || !sender.bankCode) return null;
  return {
    transRef: str(raw.transRef) ?? fallbackRef,
    amount,
    transDate,
    sendingBankCode: sender.bankCode,
    receivingBankCode: receiver.bankCode ?? null,
    sender,
    receiver,
  };
}
