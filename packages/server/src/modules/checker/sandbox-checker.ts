// Adapter for the sandbox bank (packages/sandbox-bank): a real HTTP peer, spoken to exactly
// like a provider. POST {url}/api/checker/verify {payload} -> FOUND | NOT_FOUND | BAD_PAYLOAD | PENDING.
import type { BankParty, BankSlip, Checker } from './checker-port.js';
import type { ReachProbe } from './checker-accounts.js';
import { unavailable } from './checker-port.js';
import { bankCode, getJson, isRecord, joinUrl, postJson, proxyType, str, toUtcIso, type FetchFn } from './checker-http.js';

export interface SandboxCheckerOptions {
  url: string;
  key?: string;
  fetch: FetchFn;
  id?: string;
}

export function createSandboxChecker(opts: SandboxCheckerOptions): Checker & ReachProbe {
  const endpoint = joinUrl(opts.url, '/api/checker/verify');
  const headers: Record<string, string> = opts.key ? { authorization: `Bearer ${opts.key}` } : {};
  return {
    id: opts.id ?? 'sandbox',
    // No account route, but `checker check` must still tell "nobody listens there" from fine.
    async reach(signal) {
      const out = await getJson(opts.fetch, joinUrl(opts.url, '/health'), headers, signal);
      if (!out.ok) return { reachable: false, detail: out.reason };
      return out.answer.status === 200 ? { reachable: true } : { reachable: false, detail: `HTTP ${out.answer.status} from /health` };
    },
    async check(q, o) {
      const out = await postJson(opts.fetch, endpoint, { payload: q.payload }, headers, o?.signal);
      if (!out.ok) return unavailable(out.reason, true);
      const { status, json } = out.answer;
      const body = isRecord(json) ? json : {};
      if (status === 200 && body.status === 'FOUND') {
        const slip = mapSandboxSlip(body.data, q.transRef);
        return slip ? { kind: 'FOUND', slip } : unavailable('sandbox: malformed FOUND body', false);
      }
      if (status === 404 && body.status === 'NOT_FOUND') return { kind: 'NOT_FOUND' };
      // a payload the bank cannot parse is a forged QR, which is what NOT_FOUND means to the pipeline
      if (status === 400 && body.status === 'BAD_PAYLOAD') return { kind: 'NOT_FOUND' };
      if (status === 409 && body.status === 'PENDING') {
        const n = Number(body.retryAfterSeconds);
        return { kind: 'PENDING', retryAfterSeconds: Number.isFinite(n) && n >= 0 ? Math.ceil(n) : 60 };
      }
      // 401, 5xx, a 404 from a wrong URL (no status field)...: never FRAUD on a misconfiguration
      return unavailable(`sandbox: HTTP ${status}`, status >= 500 || status === 408);
    },
  };
}

function party(v: unknown, bank: string | null): BankParty | null {
  if (!isRecord(v)) return null;
  const name = str(v.name);
  if (name === null) return null;
  const proxy = isRecord(v.proxy) && str(v.proxy.value) ? { type: proxyType(v.proxy.type), value: str(v.proxy.value)! } : null;
  return { name, nameEn: str(v.nameEn), account: str(v.account), proxy, bankCode: bank };
}

export function mapSandboxSlip(data: unknown, fallbackRef: string): BankSlip | null {
  if (!isRecord(data)) return null;
  const sendingBankCode = bankCode(data.sendingBank);
  const receivingBankCode = bankCode(data.receivingBank);
  const amount = Number(data.amount);
  const transDate = toUtcIso(data.transDate);
  const sender = party(data.sender, sendingBankCode);
  const receiver = party(data.receiver, receivingBankCode);
  if (!sendingBankCode || !Number.isFinite(amount) || !transDate || !sender || !receiver) return null;
  return {
    transRef: str(data.transRef) ?? fallbackRef,
    amount,
    transDate,
    sendingBankCode,
    receivingBankCode,
    sender,
    receiver,
  };
}
