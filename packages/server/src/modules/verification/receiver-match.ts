// Receiver matching: was the money paid into one of the shop's payee accounts?
// Pure functions, three outcomes each: MATCH, MISMATCH, UNKNOWN. UNKNOWN is never a pass.
// Rules and thresholds are explained in src/modules/checker/README.md ("Receiver matching").

export type MatchResult = 'MATCH' | 'MISMATCH' | 'UNKNOWN';

/**
 * Fewest digits visible on both sides before agreement counts as MATCH. Thai slips show 4 digits
 * of a 10-digit account (`xxx-x-x6660-x`, `XXX-X-XX660-9`); 3 still leaves 1:1000 against a random
 * account (on top of the bank-code check) while 1-2 digits would let one customer in 10-100 who
 * paid the wrong account through.
 */
export const MIN_COMPARED_DIGITS = 3;

/** Inputs come from banks and shop owners; bound the work on hostile strings. */
const MAX_INPUT_CHARS = 256;

const MASK_CHARS = new Set(['x', 'X', '*', '•', '●', '#', '×', '?']);

/** Digits stay, mask characters become '?', separators and anything else vanish. Thai and full-width digits fold to ASCII. */
export function maskTokens(s: unknown): string[] {
  if (typeof s !== 'string') return [];
  const out: string[] = [];
  for (const ch of s.slice(0, MAX_INPUT_CHARS).normalize('NFKC')) {
    const c = ch.codePointAt(0)!;
    if (c >= 0x30 && c <= 0x39) out.push(ch);
    else if (c >= 0x0e50 && c <= 0x0e59) out.push(String(c - 0x0e50));
    else if (MASK_CHARS.has(ch)) out.push('?');
  }
  return out;
}

/**
 * Compare a masked account (as the bank shows it) with a full one, digit by digit where both show a
 * digit. Equal lengths line up position by position; when lengths differ (a bank that drops a
 * prefix, a 10- vs 12-digit account) the numbers are aligned on the right, where every Thai mask
 * keeps its visible digits. Either argument may itself be masked.
 */
export function matchAccount(masked: string, full: string): MatchResult {
  return compareTokens(maskTokens(masked), maskTokens(full));
}

function compareTokens(a: string[], b: string[]): MatchResult {
  if (a.length === 0 || b.length === 0) return 'UNKNOWN';
  let compared = 0;
  for (let i = 1; i <= Math.min(a.length, b.length); i++) {
    const x = a[a.length - i];
    const y = b[b.length - i];
    if (x === '?' || y === '?') continue;
    if (x !== y) return 'MISMATCH';
    compared++;
  }
  return compared >= MIN_COMPARED_DIGITS ? 'MATCH' : 'UNKNOWN';
}

// ---------------------------------------------------------------- PromptPay proxies

export type ProxyKind = 'PHONE' | 'NATID' | 'EWALLET' | 'EMAIL' | 'OTHER';

export function proxyKind(type: unknown, value?: unknown): ProxyKind | null {
  const t = typeof type === 'string' ? type.trim().toUpperCase() : '';
  if (['PHONE', 'MSISDN', 'MOBILE', 'MOBILE_NUMBER'].includes(t)) return 'PHONE';
  if (['NATID', 'NATIONAL_ID', 'CITIZEN_ID', 'TAXID', 'TAX_ID'].includes(t)) return 'NATID';
  if (['EWALLET', 'EWALLETID', 'E_WALLET'].includes(t)) return 'EWALLET';
  if (t === 'EMAIL') return 'EMAIL';
  if (t) return 'OTHER';
  // no type given (a payee row without proxyType): infer from the value's shape
  if (typeof value !== 'string') return null;
  if (value.includes('@')) return 'EMAIL';
  const d = maskTokens(value).join('');
  if (/^0\d{9}$/.test(d) || /^66\d{9}$/.test(d) || /^0066\d{9}$/.test(d)) return 'PHONE';
  if (/^\d{13}$/.test(d)) return 'NATID';
  if (/^\d{15}$/.test(d)) return 'EWALLET';
  return null;
}

/** 0812345678, 66812345678, +66 81 234 5678, 0066812345678 and masked +66xxxxx5678 all become 0XXXXXXXXX. */
function phoneTokens(value: string): string[] {
  const t = maskTokens(value);
  if (t.length === 11 && t[0] === '6' && t[1] === '6') return ['0', ...t.slice(2)];
  if (t.length === 13 && t.slice(0, 4).join('') === '0066') return ['0', ...t.slice(4)];
  return t;
}

export function matchProxy(
  proxy: { type: string; value: string } | null | undefined,
  payee: { accountNumber: string; proxyType?: string | null },
): MatchResult {
  if (!proxy || typeof proxy.value !== 'string' || typeof payee.accountNumber !== 'string') return 'UNKNOWN';
  const slipKind = proxyKind(proxy.type, proxy.value);
  const payeeKind = proxyKind(payee.proxyType, payee.accountNumber);
  // a phone PromptPay and a national-id PromptPay of one person are different proxies: nothing to compare
  if (slipKind && payeeKind && slipKind !== 'OTHER' && payeeKind !== 'OTHER' && slipKind !== payeeKind) return 'UNKNOWN';
  const kind = slipKind !== 'OTHER' && slipKind ? slipKind : payeeKind;
  if (kind === 'EMAIL') {
    const a = proxy.value.trim().toLowerCase().slice(0, MAX_INPUT_CHARS);
    const b = payee.accountNumber.trim().toLowerCase().slice(0, MAX_INPUT_CHARS);
    if (!a || !b) return 'UNKNOWN';
    if (a === b) return 'MATCH';
    return a.includes('*') || b.includes('*') ? 'UNKNOWN' : 'MISMATCH';
  }
  if (kind === 'PHONE') return compareTokens(phoneTokens(proxy.value), phoneTokens(payee.accountNumber));
  return compareTokens(maskTokens(proxy.value), maskTokens(payee.accountNumber));
}

// ---------------------------------------------------------------- names

const TITLE_TOKENS = new Set([
  'นาย',
  'นาง',
  'นางสาว',
  'นส',
  'ดช',
  'ดญ',
  'เด็กชาย',
  'เด็กหญิง',
  'คุณ',
  'ว่าที่',
  'mr',
  'mrs',
  'ms',
  'miss',
  'mstr',
  'master',
  'dr',
  'khun',
]);
/** glued Thai titles ("นายสมชาย"), longest first so นางสาว wins over นาง */
const GLUED_TITLES = ['เด็กหญิง', 'เด็กชาย', 'นางสาว', 'นาง', 'นาย'];
const COMPANY_LEADING = new Set(['บริษัท', 'บจก', 'บมจ', 'หจก', 'หสน', 'ห้างหุ้นส่วนจำกัด', 'ห้างหุ้นส่วนสามัญ', 'ร้าน']);
const COMPANY_TRAILING = [
  'จำกัด',
  'มหาชน',
  'co',
  'ltd',
  'coltd',
  'company',
  'limited',
  'pcl',
  'plc',
  'public',
  'inc',
  'corp',
  'corporation',
  'llc',
  'part',
  'partnership',
];
const COMPANY_TRAILING_SET = new Set(COMPANY_TRAILING);

/**
 * Lower-cased tokens joined by single spaces, without titles (นาย, น.ส., MR., ...), company forms
 * (บริษัท, บจก., จำกัด (มหาชน), CO.,LTD., PUBLIC COMPANY LIMITED, ...), punctuation or emoji.
 * "ร้าน" (shop) counts as a leading company form: owners type it, banks often don't.
 */
export function normalizeName(name: unknown): string {
  return nameTokens(name).join(' ');
}

function nameTokens(name: unknown): string[] {
  if (typeof name !== 'string') return [];
  let s = name.slice(0, MAX_INPUT_CHARS).normalize('NFC').toLowerCase();
  // dotted Thai abbreviations would otherwise split into single letters
  s = s
    .replace(/น\s*\.\s*ส\s*\./g, ' นส ')
    .replace(/ด\s*\.\s*ช\s*\./g, ' ดช ')
    .replace(/ด\s*\.\s*ญ\s*\./g, ' ดญ ');
  s = s.replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ');
  const t = s.split(' ').filter(Boolean);

  let company = false;
  for (;;) {
    if (t.length === 0) break;
    const first = t[0];
    if (TITLE_TOKENS.has(first)) {
      t.shift();
      continue;
    }
    if (COMPANY_LEADING.has(first)) {
      t.shift();
      company = true;
      continue;
    }
    if (first.startsWith('บริษัท') && first.length > 6) {
      t[0] = first.slice(6);
      company = true;
      continue;
    }
    const glued = GLUED_TITLES.find((g) => first.startsWith(g) && first.length > g.length);
    // "นายิกา" is a name, not นาย + ิกา: a remainder starting with a combining vowel is no title
    if (glued && !/^\p{M}/u.test(first.slice(glued.length))) {
      t[0] = first.slice(glued.length);
      continue;
    }
    break;
  }
  for (;;) {
    if (t.length === 0) break;
    const last = t[t.length - 1];
    if (COMPANY_TRAILING_SET.has(last)) {
      t.pop();
      company = true;
      continue;
    }
    if (last.endsWith('จำกัด') && last.length > 5) {
      t[t.length - 1] = last.slice(0, -5);
      company = true;
      continue;
    }
    // slips cut names short: "EXAMPLE CO., LT" -> the "lt" is what is left of LTD
    if (
      (company || COMPANY_TRAILING_SET.has(t[t.length - 2])) &&
      t.length > 1 &&
      COMPANY_TRAILING.some((w) => w.startsWith(last) && w !== last)
    ) {
      t.pop();
      continue;
    }
    break;
  }
  return t;
}

type Script = 'thai' | 'latin' | 'other';
function scriptOf(tokens: string[]): Script {
  const s = tokens.join('');
  if (/[\u0E00-\u0E7F]/.test(s)) return 'thai';
  if (/[a-z]/.test(s)) return 'latin';
  return 'other';
}

interface NameVerdict {
  result: MatchResult;
  /** at least two tokens agreed (first name + surname prefix), or one-token names were equal */
  strong: boolean;
}

function compareNames(slipName: unknown, holder: unknown): NameVerdict {
  const a = nameTokens(slipName);
  const b = nameTokens(holder);
  if (a.length === 0 || b.length === 0) return { result: 'UNKNOWN', strong: false };
  // a Thai name against its romanisation cannot be compared letter by letter
  if (scriptOf(a) !== scriptOf(b)) return { result: 'UNKNOWN', strong: false };
  if (a.join('') === b.join('')) return { result: 'MATCH', strong: true };
  if (a[0] !== b[0]) {
    // "สมช" may be a first name cut short; anything else is another person
    return { result: a.length === 1 && b[0].startsWith(a[0]) ? 'UNKNOWN' : 'MISMATCH', strong: false };
  }
  const n = Math.min(a.length, b.length);
  for (let i = 1; i < n; i++) {
    const ok = i === a.length - 1 ? b[i].startsWith(a[i]) : a[i] === b[i];
    if (!ok) return { result: 'MISMATCH', strong: false };
  }
  // the slip shows more words than the holder as entered: cannot tell a middle name from another person
  if (a.length > b.length) return { result: 'UNKNOWN', strong: false };
  return { result: 'MATCH', strong: n >= 2 || (a.length === 1 && b.length === 1) };
}

/**
 * Slip names are often cut short ("นาย สมชาย ใ", "MR. SOMCHAI J"): after normalising, the first
 * name must be equal and the slip's last (possibly truncated) word must be a prefix of the holder's.
 */
export function matchName(slipName: string, holder: string): MatchResult {
  return compareNames(slipName, holder).result;
}

// ---------------------------------------------------------------- receiver vs payees

export interface ReceiverOnSlip {
  name: string;
  nameEn?: string | null;
  account?: string | null;
  proxy?: { type: string; value: string } | null;
  bankCode?: string | null;
}

export interface PayeeForMatch {
  bankCode: string;
  kind: 'BANK' | 'PROMPTPAY';
  /** full account number, or the proxy value for PROMPTPAY */
  accountNumber: string;
  proxyType?: string | null;
  holder: string;
  status: string;
}

export type MatchBasis = 'ACCOUNT' | 'PROXY' | 'BANK' | 'NAME' | 'NONE';

export interface ReceiverMatch {
  result: MatchResult;
  /** index into the payees array given (not into the active subset) */
  payeeIndex?: number;
  basis: MatchBasis;
}

function normBank(code: unknown): string | null {
  if (typeof code !== 'string') return null;
  const s = code.trim();
  if (!s) return null;
  return /^\d{1,3}$/.test(s) ? s.padStart(3, '0') : s.toUpperCase();
}
const isBankCode = (c: string | null): c is string => c !== null && /^\d{3}$/.test(c);

/**
 * Decide whether the slip's receiver is one of the shop's ACTIVE payees.
 * 1. Digits first: a BANK payee matches on account digits when the slip's receiving bank (if
 *    stated) is the payee's bank; a PROMPTPAY payee matches on proxy digits (bank not required:
 *    a proxy can be re-bound to another bank by its owner and still pays the shop).
 * 2. MISMATCH when every active payee is contradicted (other digits, or another receiving bank).
 * 3. The name decides for the payees the digits could not judge (all of them when the slip shows
 *    no digits; a PromptPay payee against a slip that shows a bank account): name MATCH counts only
 *    with corroboration - the slip states the receiving bank and it equals the payee's bank - and
 *    a strong name (first name + surname prefix); when each of them has a clearly different name
 *    and the rest were contradicted on digits, it is MISMATCH. A name alone is public knowledge, so
 *    without the bank it stays UNKNOWN.
 */
export function matchReceiver(receiver: ReceiverOnSlip, payees: readonly PayeeForMatch[]): ReceiverMatch {
  const active = payees.map((p, i) => ({ p, i })).filter(({ p }) => p && p.status === 'ACTIVE');
  if (active.length === 0) return { result: 'UNKNOWN', basis: 'NONE' };
  const slipBank = normBank(receiver.bankCode);
  const hasAccount = maskTokens(receiver.account).length > 0;
  const hasProxy = !!receiver.proxy && typeof receiver.proxy.value === 'string' && receiver.proxy.value.trim() !== '';

  const verdicts = active.map(({ p, i }) => ({ i, p, ...digitVerdict(p) }));
  const match = verdicts.find((v) => v.result === 'MATCH');
  if (match) return { result: 'MATCH', payeeIndex: match.i, basis: match.basis };
  if (verdicts.every((v) => v.result === 'MISMATCH')) return { result: 'MISMATCH', basis: verdicts[0].basis };

  // The payees the digits could not judge (a PromptPay payee against a slip that shows a bank account):
  // the name decides for them, as for all of them when no digits could be compared.
  const open = verdicts.filter((v) => v.result === 'UNKNOWN');
  const names = open.map((v) => ({ ...v, name: bestName(v.p.holder) }));
  const byName = names.find((v) => {
    const payeeBank = normBank(v.p.bankCode);
    return v.name.result === 'MATCH' && v.name.strong && slipBank !== null && isBankCode(payeeBank) && payeeBank === slipBank;
  });
  if (byName) return { result: 'MATCH', payeeIndex: byName.i, basis: 'NAME' };
  // Every payee contradicted: on digits or bank, or (those the digits could not judge) by another name.
  if (names.every((v) => v.name.result === 'MISMATCH')) return { result: 'MISMATCH', basis: 'NAME' };
  return { result: 'UNKNOWN', basis: 'NONE' };

  function digitVerdict(p: PayeeForMatch): { result: MatchResult; basis: MatchBasis } {
    if (p.kind === 'PROMPTPAY') {
      if (!hasProxy) return { result: 'UNKNOWN', basis: 'NONE' };
      const r = matchProxy(receiver.proxy, p);
      return { result: r, basis: r === 'UNKNOWN' ? 'NONE' : 'PROXY' };
    }
    const payeeBank = normBank(p.bankCode);
    const bankDiffers = slipBank !== null && isBankCode(payeeBank) && isBankCode(slipBank) && payeeBank !== slipBank;
    // money that landed at another bank did not land in this account, whatever the digits say
    if (bankDiffers) return { result: 'MISMATCH', basis: 'BANK' };
    if (!hasAccount) return { result: 'UNKNOWN', basis: 'NONE' };
    const r = matchAccount(receiver.account!, p.accountNumber);
    return { result: r, basis: r === 'UNKNOWN' ? 'NONE' : 'ACCOUNT' };
  }

  function bestName(holder: string): NameVerdict {
    const all = [compareNames(receiver.name, holder), compareNames(receiver.nameEn, holder)];
    return (
      all.find((v) => v.result === 'MATCH' && v.strong) ??
      all.find((v) => v.result === 'MATCH') ??
      all.find((v) => v.result === 'MISMATCH') ?? { result: 'UNKNOWN', strong: false }
    );
  }
}
