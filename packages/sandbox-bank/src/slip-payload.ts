import { randomInt } from 'node:crypto';

/**
 * Bank slip mini-QR payloads (the small QR printed on Thai e-slips) and the TrueMoney wallet
 * variant. Layouts follow DESIGN.md "Slip QR payload"; the TrueMoney layout follows the public
 * `promptparse` library (tag 00 with sub-tags 00="01", 01="01", 02=event type, 03=transaction id,
 * 04=date ddMMyyyy; CRC tag 91 in lowercase hex; no tag 51).
 */

export const BANK_CODES: Readonly<Record<string, string>> = {
  '002': 'BBL',
  '004': 'KBANK',
  '006': 'KTB',
  '011': 'TTB',
  '014': 'SCB',
  '017': 'CITI',
  '022': 'CIMBT',
  '024': 'UOBT',
  '025': 'BAY',
  '030': 'GSB',
  '033': 'GHB',
  '034': 'BAAC',
  '035': 'EXIM',
  '052': 'BOC',
  '065': 'TBANK',
  '066': 'ISBT',
  '067': 'TISCO',
  '069': 'KKP',
  '070': 'ICBCT',
  '071': 'TCD',
  '073': 'LHFG',
  '098': 'SME',
};

/** CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no xor-out. */
export function crc16(text: string): number {
  let crc = 0xffff;
  for (let i = 0; i < text.length; i++) {
    crc ^= (text.charCodeAt(i) & 0xff) << 8;
    for (let b = 0; b < 8; b++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

function tlv(tag: string, value: string): string {
  if (value.length > 99) throw new RangeError(`TLV value too long for tag ${tag}`);
  return tag + String(value.length).padStart(2, '0') + value;
}

function withCrc(body: string, upper: boolean): string {
  const head = body + '9104';
  const hex = crc16(head).toString(16).padStart(4, '0');
  return head + (upper ? hex.toUpperCase() : hex);
}

export function buildSlipPayload(bankCode: string, transRef: string): string {
  if (!/^\d{3}$/.test(bankCode)) throw new RangeError('bankCode must be 3 digits');
  if (!/^[0-9A-Za-z]{1,99}$/.test(transRef)) throw new RangeError('transRef must be alphanumeric');
  const nested = tlv('00', '000001') + tlv('01', bankCode) + tlv('02', transRef);
  return withCrc(tlv('00', nested) + tlv('51', 'TH'), true);
}

export interface TrueMoneySlipFields {
  transactionId: string;
  /** ddMMyyyy in Thai time. */
  date: string;
  /** Event type printed by the wallet app; "P2P" for wallet-to-wallet transfers. */
  eventType?: string;
}

export function buildTrueMoneyPayload(fields: TrueMoneySlipFields): string {
  const nested =
    tlv('00', '01') + tlv('01', '01') + tlv('02', fields.eventType ?? 'P2P') + tlv('03', fields.transactionId) + tlv('04', fields.date);
  return withCrc(tlv('00', nested), false);
}

export type ParsedSlipPayload =
  { kind: 'bank'; sendingBank: string; transRef: string } | { kind: 'truemoney'; transRef: string; eventType: string; date: string };

export type ParseFailure = 'MALFORMED' | 'BAD_CRC';

function readTlv(text: string): Map<string, string> | null {
  const out = new Map<string, string>();
  let i = 0;
  while (i < text.length) {
    if (i + 4 > text.length) return null;
    const tag = text.slice(i, i + 2);
    const len = Number(text.slice(i + 2, i + 4));
    if (!/^\d{2}$/.test(text.slice(i + 2, i + 4)) || i + 4 + len > text.length) return null;
    out.set(tag, text.slice(i + 4, i + 4 + len));
    i += 4 + len;
  }
  return out;
}

/**
 * Parses a slip payload and checks its CRC. Short CRCs (some bank apps drop leading zeros) are
 * accepted left-padded, as DESIGN.md requires of every parser.
 */
export function parseSlipPayload(raw: string): ParsedSlipPayload | ParseFailure {
  const text = raw.trim();
  const at = text.lastIndexOf('9104');
  if (at < 0) return 'MALFORMED';
  const crcText = text.slice(at + 4);
  if (!/^[0-9A-Fa-f]{1,4}$/.test(crcText)) return 'MALFORMED';
  const tags = readTlv(text.slice(0, at));
  const inner = tags?.get('00');
  if (!tags || !inner) return 'MALFORMED';
  const sub = readTlv(inner);
  if (!sub) return 'MALFORMED';
  if (parseInt(crcText, 16) !== crc16(text.slice(0, at + 4))) return 'BAD_CRC';
  if (sub.get('00') === '000001') {
    const sendingBank = sub.get('01');
    const transRef = sub.get('02');
    if (!sendingBank || !/^\d{3}$/.test(sendingBank) || !transRef) return 'MALFORMED';
    return { kind: 'bank', sendingBank, transRef };
  }
  if (sub.get('00') === '01' && sub.get('01') === '01' && sub.get('03')) {
    return { kind: 'truemoney', transRef: sub.get('03')!, eventType: sub.get('02') ?? '', date: sub.get('04') ?? '' };
  }
  return 'MALFORMED';
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** An integer in [0, n): from `random` (a seeded generator in [0, 1)) when given, else crypto's. */
export const intBelow = (n: number, random?: () => number) => (random ? Math.floor(random() * n) : randomInt(n));

/**
 * A transRef that looks like the ones banks print, in one of three styles seen on real slips:
 * KBank-like `016` + yyddd + hhmmss + 3 letters + 5 digits (22 chars), SCB-like date + mixed-case
 * tail (25 chars), and a short mixed-case one (12-16 chars). `random`: a seeded generator, for a
 * corpus that is the same in every run (the benchmarks); crypto's otherwise.
 */
export function randomTransRef(now: Date = new Date(), random?: () => number): string {
  const pick = (chars: string, n: number) => Array.from({ length: n }, () => chars[intBelow(chars.length, random)]).join('');
  const digits = (n: number) => pick('0123456789', n);
  const th = new Date(now.getTime() + 7 * 3600_000);
  const yy = String(th.getUTCFullYear() % 100).padStart(2, '0');
  const start = Date.UTC(th.getUTCFullYear(), 0, 0);
  const ddd = String(Math.floor((th.getTime() - start) / 86_400_000)).padStart(3, '0');
  const hhmmss = th.toISOString().slice(11, 19).replace(/:/g, '');
  const style = intBelow(3, random);
  if (style === 0) return `0${digits(2)}${yy}${ddd}${hhmmss}${pick(UPPER, 3)}${digits(5)}`;
  if (style === 1) return `${th.toISOString().slice(0, 10).replace(/-/g, '')}${pick(ALNUM, 17)}`;
  return pick(ALNUM, 12 + intBelow(5, random));
}

/**
 * A PromptPay merchant-presented payment QR (EMVCo): what a shop shows to get paid. It is never a
 * slip, and the decoder must skip it when both appear in one image.
 */
export function buildPromptPayPayload(phone: string, amount?: number): string {
  const d = phone.replace(/\D/g, '');
  const target = d.length === 10 ? '0066' + d.slice(1) : d;
  const merchant = tlv('00', 'A000000677010111') + tlv(d.length === 13 ? '02' : '01', target);
  let body = tlv('00', '01') + tlv('01', amount ? '12' : '11') + tlv('29', merchant) + tlv('53', '764');
  if (amount) body += tlv('54', amount.toFixed(2));
  body += tlv('58', 'TH') + '6304';
  return body + crc16(body).toString(16).toUpperCase().padStart(4, '0');
}
