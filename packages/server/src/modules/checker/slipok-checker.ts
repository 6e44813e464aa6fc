// Adapter for SlipOK (internal code: the provider's name must never reach users).
// POST {url}  (url = https://api.slipok.com/api/line/apikey/<branchId>)  {data: payload}
// header x-authorization: <key>. Success {success:true, data:{...}}; failures carry a numeric
// `code`: 1008 not a slip QR, 1009 bank down, 1010 delayed slip (data.delay minutes),
// 1011 no such transaction, 1012 repeated slip (still carries the slip data).
import type { BankParty, BankSlip, Checker } from './checker-port.js';
import { unavailable } from './checker-port.js';
import { bankCode, isRecord, postJson, proxyType, str, toUtcIso, type FetchFn } from './checker-http.js';

export interface SlipOkCheckerOptions {
  url: string;
  key: string;
  fetch: FetchFn;
  id?: string;
}

export function createSlipOkChecker(opts: SlipOkCheckerOptions): Checker {
  const headers = { 'x-authorization': opts.key };
  return {
    id: opts.id ?? 'slipok',
    async check(q, o) {
      // no `log`: their duplicate tracking is off, duplicates are ours to decide per shop
      const out = await postJson(opts.fetch, opts.url, { data: q.payload }, headers, o?.signal);
      if (!out.ok) return unavailable(`slipok: ${out.reason}`, true);
      const { status, json } = out.answer;
      const body = isRecord(json) ? json : {};
      const code = Number(body.code);
      const data = isRecord(body.data) ? body.data : null;

      if ((status === 200 && body.success === true) || code === 1012) {
        const slip = data ? mapSlipOkData(data, q.transRef) : null;
        return slip ? { kind: 'FOUND', slip } : unavailable(`slipok: malformed body (HTTP ${status})`, false);
      }
      if (code === 1010) {
        const minutes = Number(data?.delay);
        return { kind: 'PENDING', retryAfterSeconds: Number.isFinite(minutes) && minutes > 0 ? Math.ceil(minutes * 60) : 60 };
      }
      if (code === 1011 || code === 1008) return { kind: 'NOT_FOUND' };
      if (code === 1009 || status >= 500) return unavailable(`slipok: HTTP ${status} code ${code}`, true);
      return unavailable(`slipok: HTTP ${status} code ${Number.isFinite(code) ? code : '-'}`, false);
    },
  };
}

function party(v: unknown, bank: string | null): BankParty | null {
  if (!isRecord(v)) return null;
  const display = str(v.displayName);
  const en = str(v.name);
  const account = isRecord(v.account) ? str(v.account.value) : null;
  const proxy = isRecord(v.proxy) && str(v.proxy.value) ? { type: proxyType(v.proxy.type), value: str(v.proxy.value)! } : null;
  return { name: display || en || '', nameEn: en || null, account: account || null, proxy, bankCode: bank };
}

export function mapSlipOkData(data: Record<string, unknown>, fallbackRef: string): BankSlip | null {
  const sendingBankCode = bankCode(data.sendingBank);
  const receivingBankCode = bankCode(data.receivingBank);
  const amount = Number(data.amount);
  const transDate = toUtcIso(data.transTimestamp) ?? bangkokDate(str(data.transDate), str(data.transTime));
  const sender = party(data.sender, sendingBankCode);
  const receiver = party(data.receiver, receivingBankCode);
  if (!sendingBankCode || !Number.isFinite(amount) || !transDate || !sender || !receiver) return null;
  return { transRef: str(data.transRef) ?? fallbackRef, amount, transDate, sendingBankCode, receivingBankCode, sender, receiver };
}

/** yyyyMMdd + HH:mm:ss in Bangkok time (UTC+7, no DST) -> ISO UTC */
function bangkokDate(date: string | null, time: string | null): string | null {
  if (!date || !/^\d{8}$/.test(date)) return null;
  const t = time && /^\d{2}:\d{2}(:\d{2})?$/.test(time) ? time : '00:00:00';
  return toUtcIso(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${t.length === 5 ? `${t}:00` : t}+07:00`);
}
