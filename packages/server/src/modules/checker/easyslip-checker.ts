// Adapter for EasySlip API v2 (internal code: the provider's name must never reach users).
// Bank slips:     POST {base}/v2/verify/bank {payload}, Authorization: Bearer <key>.
// TrueMoney:      POST {base}/v2/verify/truewallet, multipart field `image` (the wallet slip is
//                 verified only from its image: document.easyslip.com/en/v2/verify/truewallet/image).
// Account/quota:  GET  {base}/v2/info (easyslip-document.cl1.easythunder.com/en/v2/info).
// Success: {success:true, data:{...}}; errors: {success:false, error:{code, message}} with the codes
// of the v2 error table (easyslip-document.cl1.easythunder.com/en/reference/error-codes).
import type { AccountReason, BankParty, BankSlip, Checker, CheckerQuery, CheckerResult } from './checker-port.js';
import { LATE_PUBLISHING_BANKS, accountError, unavailable, unsupported } from './checker-port.js';
import {
  bankCode,
  getJson,
  isBankAccountType,
  isRecord,
  joinUrl,
  postImage,
  postJson,
  providerAmount,
  proxyType,
  retryAfterSeconds,
  str,
  toUtcIso,
  type FetchFn,
  type HttpOutcome,
} from './checker-http.js';
import type { ProviderAccount } from './checker-accounts.js';

export interface EasySlipCheckerOptions {
  /** base URL without a version, default https://api.easyslip.com (the adapter appends /v2/...) */
  url?: string;
  key: string;
  fetch: FetchFn;
  id?: string;
}

export const EASYSLIP_DEFAULT_URL = 'https://api.easyslip.com';
/** "Maximum size 4 MB (4,194,304 bytes)" on the v2 TrueMoney image page: larger images are not sent. */
export const EASYSLIP_MAX_IMAGE_BYTES = 4_194_304;

/** Pending slips become visible within minutes; 60 s is a sensible first retry hint. */
const DEFAULT_PENDING_RETRY_S = 60;

/** v2 error table, 401/403 rows: every one is the account, not the slip. */
const ACCOUNT_CODES: Record<string, AccountReason> = {
  MISSING_API_KEY: 'key_invalid',
  INVALID_API_KEY: 'key_invalid',
  BRANCH_INACTIVE: 'branch_inactive',
  SERVICE_BANNED: 'service_suspended',
  SERVICE_DELETED: 'service_suspended',
  IP_NOT_ALLOWED: 'ip_not_allowed',
  QUOTA_EXCEEDED: 'quota_exhausted',
};
/** v2 error table, 400 rows about the image itself: this provider cannot take it, the next may. */
const IMAGE_CODES = new Set(['IMAGE_SIZE_TOO_LARGE', 'INVALID_IMAGE_TYPE', 'INVALID_IMAGE_FORMAT']);

export interface EasySlipChecker extends Checker, ProviderAccount {}

export function createEasySlipChecker(opts: EasySlipCheckerOptions): EasySlipChecker {
  const base = opts.url || EASYSLIP_DEFAULT_URL;
  const headers = { authorization: `Bearer ${opts.key}` };
  const id = opts.id ?? 'easyslip';

  /**
   * `fromImage`: the answer of the picture endpoint (TrueMoney), where SLIP_NOT_FOUND is in doubt.
   * `sendingBank`: the bank slip's sending bank, whose late publishing may explain a SLIP_NOT_FOUND.
   */
  function mapError(out: HttpOutcome, o: { fromImage?: boolean; sendingBank?: string } = {}): CheckerResult | null {
    const fromImage = o.fromImage ?? false;
    if (!out.ok) return { kind: 'UNAVAILABLE', reason: `easyslip: ${out.reason}`, retryable: true, timeout: out.aborted };
    const { status, json, headers: h } = out.answer;
    const body = isRecord(json) ? json : {};
    const code = isRecord(body.error) ? (str(body.error.code) ?? '').toUpperCase() : '';
    if (status === 200 && body.success === true) return null;
    const account = ACCOUNT_CODES[code];
    if (account) return accountError(account, code, `easyslip: HTTP ${status} ${code}`);
    // 401 is authentication whatever the body says (a gateway in front, a code not in the table): the
    // key, so the operator hears of it, instead of shops being told "send again in a minute".
    if (status === 401) return accountError('key_invalid', code || 'HTTP 401', `easyslip: HTTP 401 ${code}`);
    // Not in the v2 error table; the earlier adapter handled it as "bank publishes late". Kept: a
    // pending answer is never charged and never FRAUD, so honouring it cannot hurt a shop.
    if (code === 'SLIP_PENDING') return { kind: 'PENDING', retryAfterSeconds: retryAfterSeconds(h, DEFAULT_PENDING_RETRY_S) };
    // "Slip not found or invalid", cause "Invalid slip or no QR": only the documented code; a bare 404
    // (NOT_FOUND) is a wrong URL. From the picture endpoint "no QR" also means "could not read the QR
    // we read ourselves" (a genuine wallet slip was once called FRAUD so): in doubt, this provider
    // cannot check it. UNSUPPORTED, not UNAVAILABLE: the same picture gets the same answer, and a run of
    // such pictures must not open the breaker that bank slips share.
    if (status === 404 && code === 'SLIP_NOT_FOUND') {
      if (fromImage) return unsupported(`easyslip: HTTP 404 SLIP_NOT_FOUND from the image endpoint`);
      // Its v2 table has no "not published yet" code (SlipOK's 1010 says some banks publish minutes late).
      return o.sendingBank !== undefined && LATE_PUBLISHING_BANKS.has(o.sendingBank)
        ? { kind: 'NOT_FOUND', mayBeUnpublished: true }
        : { kind: 'NOT_FOUND' };
    }
    if (IMAGE_CODES.has(code)) return unsupported(`easyslip: HTTP ${status} ${code}`);
    if (status >= 500 || status === 408) return unavailable(`easyslip: HTTP ${status} ${code}`, true);
    // A rate limit (not in the v2 table) that says when to come back: shops are told that wait, not "a minute".
    if (status === 429 && h.get('retry-after'))
      return { kind: 'UNAVAILABLE', reason: `easyslip: HTTP 429 ${code}`, retryable: false, retryAfterSeconds: retryAfterSeconds(h, 60) };
    // 400 VALIDATION_ERROR (our request is wrong), 404 NOT_FOUND (wrong URL), 429 (not in the table):
    // another attempt at the same upstream will not help
    return unavailable(`easyslip: HTTP ${status} ${code}`, false);
  }

  async function checkBank(q: CheckerQuery, signal?: AbortSignal): Promise<CheckerResult> {
    // checkDuplicate stays off: duplicates are decided by our own database, per shop
    const out = await postJson(opts.fetch, joinUrl(base, '/v2/verify/bank'), { payload: q.payload }, headers, signal);
    const err = mapError(out, { sendingBank: q.bankCode });
    if (err || !out.ok) return err!;
    const body = out.answer.json as Record<string, unknown>;
    const slip = isRecord(body.data) ? mapEasySlipRawSlip(body.data.rawSlip, q) : null;
    return slip ? { kind: 'FOUND', slip } : unavailable('easyslip: malformed success body', false);
  }

  async function checkTrueMoney(q: CheckerQuery, signal?: AbortSignal): Promise<CheckerResult> {
    // The wallet endpoint reads the slip from its picture; without one (or over its size limit)
    // this provider cannot check it, which is a reason to ask the next one, never FRAUD.
    if (!q.image || q.image.length === 0) return unsupported('easyslip: TrueMoney slips are verified from the image only');
    if (q.image.length > EASYSLIP_MAX_IMAGE_BYTES) return unsupported('easyslip: image over the TrueMoney endpoint limit');
    const out = await postImage(opts.fetch, joinUrl(base, '/v2/verify/truewallet'), 'image', q.image, headers, signal);
    const err = mapError(out, { fromImage: true });
    if (err || !out.ok) return err!;
    const body = out.answer.json as Record<string, unknown>;
    const slip = mapEasySlipTrueWallet(body.data, q);
    return slip ? { kind: 'FOUND', slip } : unavailable('easyslip: malformed TrueMoney success body', false);
  }

  return {
    id,
    supports: ['BANK', 'TRUEMONEY'],
    check: (q, o) => ((q.kind ?? 'BANK') === 'TRUEMONEY' ? checkTrueMoney(q, o?.signal) : checkBank(q, o?.signal)),
    async account(signal) {
      const out = await getJson(opts.fetch, joinUrl(base, '/v2/info'), headers, signal);
      if (!out.ok) return { reachable: false, credentialsAccepted: null, detail: out.reason };
      const err = mapError(out);
      if (err?.kind === 'UNAVAILABLE' && err.account) {
        return {
          reachable: true,
          credentialsAccepted: err.account !== 'key_invalid',
          problem: err.account,
          providerCode: err.providerCode,
        };
      }
      if (err) return { reachable: true, credentialsAccepted: null, detail: `HTTP ${out.answer.status}` };
      const data = isRecord((out.answer.json as Record<string, unknown>).data)
        ? (out.answer.json as { data: Record<string, unknown> }).data
        : {};
      const app = isRecord(data.application) ? data.application : {};
      const quota = isRecord(app.quota) ? app.quota : {};
      const renew = isRecord(app.autoRenew) ? app.autoRenew : {};
      const branch = isRecord(data.branch) ? data.branch : {};
      const remaining = typeof quota.remaining === 'number' ? quota.remaining : null;
      const problem: AccountReason | undefined =
        branch.isActive === false
          ? 'branch_inactive'
          : renew.expired === true
            ? 'package_expired'
            : remaining === 0
              ? 'quota_exhausted'
              : undefined;
      // /v2/info documents no overage: EasySlip refuses (QUOTA_EXCEEDED) instead of billing past the quota
      return { reachable: true, credentialsAccepted: true, quotaRemaining: remaining, overage: null, problem };
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
  const account = isRecord(acc.bank) && isBankAccountType(acc.bank.type) ? str(acc.bank.account) : null;
  const proxy = isRecord(acc.proxy) && str(acc.proxy.account) ? { type: proxyType(acc.proxy.type), value: str(acc.proxy.account)! } : null;
  return { name: th || en || '', nameEn: en || null, account: account || null, proxy, bankCode: bank };
}

/**
 * The money facts (amount, date, receiver) must come from the provider; the sending bank and the
 * sender are optional in the answer and fall back to what the slip QR says (the QR's bank code is
 * signed by its CRC), so a real slip is not failed for a field the bank left out.
 */
export function mapEasySlipRawSlip(raw: unknown, q: Pick<CheckerQuery, 'transRef' | 'bankCode'>): BankSlip | null {
  if (!isRecord(raw)) return null;
  const amount = providerAmount(isRecord(raw.amount) ? raw.amount.amount : raw.amount);
  const transDate = toUtcIso(raw.date);
  const sender = party(raw.sender) ?? { name: '', nameEn: null, account: null, proxy: null, bankCode: null };
  const receiver = party(raw.receiver);
  if (amount === null || !transDate || !receiver) return null;
  const sendingBankCode = sender.bankCode || q.bankCode;
  return {
    transRef: str(raw.transRef) ?? q.transRef,
    amount,
    transDate,
    sendingBankCode,
    receivingBankCode: receiver.bankCode ?? null,
    sender: { ...sender, bankCode: sendingBankCode },
    receiver,
  };
}

/**
 * TrueMoney wallet answer. The v2 image page refers to a type definition we could not read; the
 * fields mapped are those of the documented wallet slip (transactionId, date, amount, sender.name,
 * receiver.name, receiver.phone masked), read from `data.rawSlip` when present, else from `data`.
 */
export function mapEasySlipTrueWallet(data: unknown, q: Pick<CheckerQuery, 'transRef' | 'bankCode'>): BankSlip | null {
  if (!isRecord(data)) return null;
  const raw = isRecord(data.rawSlip) ? data.rawSlip : data;
  const amount = providerAmount(isRecord(raw.amount) ? raw.amount.amount : raw.amount);
  const transDate = toUtcIso(raw.date);
  if (amount === null || !transDate) return null;
  const sender = isRecord(raw.sender) ? raw.sender : {};
  const receiver = isRecord(raw.receiver) ? raw.receiver : {};
  const phone = str(receiver.phone);
  return {
    transRef: str(raw.transactionId) ?? str(raw.transRef) ?? q.transRef,
    amount,
    transDate,
    sendingBankCode: q.bankCode,
    receivingBankCode: null,
    sender: { name: str(sender.name) ?? '', nameEn: null, account: null, proxy: null, bankCode: q.bankCode },
    receiver: {
      name: str(receiver.name) ?? '',
      nameEn: null,
      account: null,
      proxy: phone ? { type: 'PHONE', value: phone } : null,
      bankCode: null,
    },
  };
}
