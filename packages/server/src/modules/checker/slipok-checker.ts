// Adapter for SlipOK (internal code: the provider's name must never reach users).
// POST {url}  (url = https://api.slipok.com/api/line/apikey/<branchId>)  {data: payload}
// GET  {url}/quota -> {success, data:{quota, specialQuota, overQuota}} (remaining and overage)
// header x-authorization: <key>. Documents: slipok.com/api-documentation/ (v1.7; check slip, error
// codes, quota route since v1.3) and its public clients (PrakritManStudio/slipok-sdk src/types,
// xhayper/node-slipok src/types.ts), which carry the same code table with the Thai messages.
// Failures carry a numeric `code`; the mapping below keys on the code, not on the HTTP status
// (the documents do not give an HTTP status per code).
import type { AccountReason, BankParty, BankSlip, Checker, CheckerQuery } from './checker-port.js';
import { accountError, unavailable, unsupported } from './checker-port.js';
import {
  bankCode,
  getJson,
  isBankAccountType,
  isRecord,
  postJson,
  providerAmount,
  proxyType,
  str,
  toUtcIso,
  type FetchFn,
} from './checker-http.js';
import type { ProviderAccount } from './checker-accounts.js';

export interface SlipOkCheckerOptions {
  url: string;
  key: string;
  fetch: FetchFn;
  id?: string;
}

/**
 * 1001 branch not found, 1002 bad authorization header, 1003 package expired, 1004 "your package is
 * 400 baht over its quota, renew it" (the overage limit: SlipOK keeps checking past the quota and bills
 * overage until then). IP allow-listing: the documents are silent, so no code maps to ip_not_allowed.
 */
const ACCOUNT_CODES: Record<number, AccountReason> = {
  1001: 'branch_inactive',
  1002: 'key_invalid',
  1003: 'package_expired',
  1004: 'quota_exhausted',
};

/** 1009: "bank data temporarily down, check again in the next 15 minutes (no slip quota used)". */
export const SLIPOK_BANK_DOWN_RETRY_S = 15 * 60;

export interface SlipOkChecker extends Checker, ProviderAccount {}

export function createSlipOkChecker(opts: SlipOkCheckerOptions): SlipOkChecker {
  const headers = { 'x-authorization': opts.key };
  const id = opts.id ?? 'slipok';
  return {
    id,
    // No document says whether TrueMoney QR payloads are checked: 1008 and 1011 for one are UNSUPPORTED
    // below (the next provider is asked), a confirmed transfer is FOUND, so sending it costs no verdict.
    supports: ['BANK', 'TRUEMONEY'],
    async check(q, o) {
      // no `log`: their duplicate tracking is off, duplicates are ours to decide per shop
      const out = await postJson(opts.fetch, opts.url, { data: q.payload }, headers, o?.signal);
      if (!out.ok) return { kind: 'UNAVAILABLE', reason: `slipok: ${out.reason}`, retryable: true, timeout: out.aborted };
      const { status, json } = out.answer;
      const body = isRecord(json) ? json : {};
      const code = Number(body.code);
      const data = isRecord(body.data) ? body.data : null;

      // 1012 repeated slip, 1013 amount differs, 1014 receiver differs: all still carry the slip data
      // (1013/1014 only happen with `amount`/`log`, which we never send); our own rules judge them.
      if ((status === 200 && body.success === true) || code === 1012 || code === 1013 || code === 1014) {
        const slip = data ? mapSlipOkData(data, q) : null;
        return slip ? { kind: 'FOUND', slip } : unavailable(`slipok: malformed body (HTTP ${status})`, false);
      }
      const account = ACCOUNT_CODES[code];
      if (account) return accountError(account, String(code), `slipok: HTTP ${status} code ${code}`);
      // A 401 without a known code (1002 is the documented form) is the key all the same: an operator problem.
      if (status === 401 && !Number.isFinite(code)) return accountError('key_invalid', 'HTTP 401', 'slipok: HTTP 401');
      if (code === 1010) {
        const minutes = Number(data?.delay);
        return { kind: 'PENDING', retryAfterSeconds: Number.isFinite(minutes) && minutes > 0 ? Math.ceil(minutes * 60) : 60 };
      }
      // "QR code expired or no such transaction": the pipeline tells expired (the slip's own date is
      // past the banks' window) from forged. Only for bank slips: the documents are about those alone
      // (the QR at the bottom right of a bank slip), so for a wallet payload the same code may just
      // mean "not something we look up": in doubt, this provider cannot check it (never FRAUD).
      if (code === 1011) {
        return (q.kind ?? 'BANK') === 'TRUEMONEY' ? unsupported('slipok: code 1011 for a TrueMoney payload') : { kind: 'NOT_FOUND' };
      }
      // "This QR is not a QR for payment verification": what this provider cannot check. Never FRAUD.
      if (code === 1008) return unsupported(`slipok: code 1008`);
      // Bank data down for about 15 minutes, no quota used: fail over now, no immediate re-send.
      if (code === 1009) {
        return {
          kind: 'UNAVAILABLE',
          reason: `slipok: code 1009`,
          retryable: false,
          providerCode: '1009',
          retryAfterSeconds: SLIPOK_BANK_DOWN_RETRY_S,
        };
      }
      if (status >= 500) return unavailable(`slipok: HTTP ${status}`, true);
      // 1000 (no data sent), 1005-1007 (image problems: we never send files): our request is wrong
      return unavailable(`slipok: HTTP ${status} code ${Number.isFinite(code) ? code : '-'}`, false);
    },
    async account(signal) {
      const out = await getJson(opts.fetch, `${opts.url.replace(/\/+$/, '')}/quota`, headers, signal);
      if (!out.ok) return { reachable: false, credentialsAccepted: null, detail: out.reason };
      const body = isRecord(out.answer.json) ? out.answer.json : {};
      const code = Number(body.code);
      const account = ACCOUNT_CODES[code];
      if (account) return { reachable: true, credentialsAccepted: account !== 'key_invalid', problem: account, providerCode: String(code) };
      if (out.answer.status === 401 && !Number.isFinite(code)) {
        return { reachable: true, credentialsAccepted: false, problem: 'key_invalid', providerCode: 'HTTP 401' };
      }
      const data = isRecord(body.data) ? body.data : null;
      if (out.answer.status !== 200 || body.success !== true || !data) {
        return { reachable: true, credentialsAccepted: null, detail: `HTTP ${out.answer.status}` };
      }
      // Counts are numbers (a numeric string is read too); null is "unknown", never 0 (Number(null) is).
      const quota = providerAmount(data.quota);
      const over = providerAmount(data.overQuota);
      return { reachable: true, credentialsAccepted: true, quotaRemaining: quota, overage: over ?? 0 };
    },
  };
}

function party(v: unknown, bank: string | null): BankParty | null {
  if (!isRecord(v)) return null;
  const display = str(v.displayName);
  const en = str(v.name);
  const account = isRecord(v.account) && isBankAccountType(v.account.type) ? str(v.account.value) : null;
  const proxy = isRecord(v.proxy) && str(v.proxy.value) ? { type: proxyType(v.proxy.type), value: str(v.proxy.value)! } : null;
  return { name: display || en || '', nameEn: en || null, account: account || null, proxy, bankCode: bank };
}

/**
 * Amount, date and receiver must come from the provider; the sending bank ("" in the SDK's type when
 * unknown) and the sender fall back to the slip QR's own data.
 */
export function mapSlipOkData(data: Record<string, unknown>, q: Pick<CheckerQuery, 'transRef' | 'bankCode'>): BankSlip | null {
  // data.success is "Valid QR code" (boolean, mandatory; a string in one public client): a no there
  // is not a confirmed transfer, whatever else the answer carries.
  if (data.success === false || String(data.success).trim().toLowerCase() === 'false') return null;
  const sendingBankCode = bankCode(data.sendingBank) || q.bankCode;
  const receivingBankCode = bankCode(data.receivingBank);
  const amount = providerAmount(data.amount);
  const transDate = toUtcIso(data.transTimestamp) ?? bangkokDate(str(data.transDate), str(data.transTime));
  const sender = party(data.sender, sendingBankCode) ?? { name: '', nameEn: null, account: null, proxy: null, bankCode: sendingBankCode };
  const receiver = party(data.receiver, receivingBankCode);
  if (amount === null || !transDate || !receiver) return null;
  return { transRef: str(data.transRef) || q.transRef, amount, transDate, sendingBankCode, receivingBankCode, sender, receiver };
}

/**
 * yyyyMMdd + HH:mm:ss in Bangkok time (UTC+7, no DST) -> ISO UTC. Both are mandatory in the response
 * table: without a usable time the moment is unknown (null), not midnight, which would age a fresh
 * slip by up to a day for the stale rule.
 */
function bangkokDate(date: string | null, time: string | null): string | null {
  if (!date || !/^\d{8}$/.test(date)) return null;
  if (!time || !/^\d{2}:\d{2}(:\d{2})?$/.test(time)) return null;
  return toUtcIso(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${time}+07:00`);
}
