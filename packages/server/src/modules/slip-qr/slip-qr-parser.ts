import { BANKS, TRUEMONEY_CODE, TRUEMONEY_NAME } from './slip-qr-banks.js';

export type SlipPayloadErrorCode = 'NOT_SLIP_QR' | 'BAD_CHECKSUM' | 'UNKNOWN_BANK';

export interface SlipPayloadOk {
  ok: true;
  kind: 'BANK' | 'TRUEMONEY';
  bankCode: string;
  bankName: string;
  transRef: string;
  /** The payload as read, trimmed, with a short CRC left-padded to 4 digits. */
  payload: string;
  /** TrueMoney only: event type (e.g. P2P) and date DDMMYYYY from the QR. */
  trueMoney?: { eventType: string; date: string };
}

export interface SlipPayloadError {
  ok: false;
  errorCode: SlipPayloadErrorCode;
  message: string;
  /** Set for UNKNOWN_BANK: the code that was not in the table. */
  bankCode?: string;
}

export type SlipPayloadResult = SlipPayloadOk | SlipPayloadError;

// Real slip payloads are under 100 characters; anything much longer is not one, and the cap keeps
// the parser O(small) on hostile input.
const MAX_PAYLOAD_LENGTH = 512;
const API_ID_BANK = '000001';
const TRANS_REF_RE = /^[A-Za-z0-9]{8,64}$/;
const PRINTABLE_RE = /^[\x20-\x7e]+$/;
const HEX_RE = /^[0-9A-Fa-f]{1,4}$/;

let crcTable: Uint16Array | undefined;

function table(): Uint16Array {
  if (crcTable) return crcTable;
  const t = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n << 8;
    for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
    t[n] = c;
  }
  crcTable = t;
  return t;
}

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no xor-out) as 4 uppercase hex digits. */
export function crc16ccittFalse(text: string): string {
  const t = table();
  const bytes = Buffer.from(text, 'utf8');
  let crc = 0xffff;
  for (let i = 0; i < bytes.length; i++) crc = (t[((crc >> 8) ^ bytes[i]) & 0xff] ^ (crc << 8)) & 0xffff;
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

interface Tlv {
  id: string;
  value: string;
  /** Offset of the value in the parsed string. */
  at: number;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * Strict TLV reader: two-digit id, two-digit length, exactly that many characters, nothing left
 * over. The single allowed exception is a trailing CRC tag "9104" followed by 1-3 characters,
 * which some bank apps print (the CRC without its leading zeros).
 */
function readTlvs(s: string, allowShortCrcTail: boolean): Tlv[] | null {
  const out: Tlv[] = [];
  let i = 0;
  while (i < s.length) {
    if (i + 4 > s.length) return null;
    for (let k = i; k < i + 4; k++) if (!isDigit(s.charCodeAt(k))) return null;
    const id = s.slice(i, i + 2);
    const len = Number(s.slice(i + 2, i + 4));
    const start = i + 4;
    const end = start + len;
    if (len === 0) return null;
    if (end > s.length) {
      const rest = s.length - start;
      if (allowShortCrcTail && id === '91' && len === 4 && rest >= 1 && rest <= 3) {
        out.push({ id, value: s.slice(start), at: start });
        return out;
      }
      return null;
    }
    out.push({ id, value: s.slice(start, end), at: start });
    i = end;
  }
  return out;
}

function toMap(tlvs: Tlv[]): Map<string, Tlv> | null {
  const m = new Map<string, Tlv>();
  for (const t of tlvs) {
    if (m.has(t.id)) return null;
    m.set(t.id, t);
  }
  return m;
}

function notSlip(message: string): SlipPayloadError {
  return { ok: false, errorCode: 'NOT_SLIP_QR', message };
}

/**
 * Parses the text of a QR code as a Thai slip-verify mini-QR (bank or TrueMoney layout).
 * Never throws: every input gets a typed result.
 */
export function parseSlipPayload(text: string): SlipPayloadResult {
  if (typeof text !== 'string') return notSlip('QR content is not text');
  const s = text.trim();
  if (s.length === 0) return notSlip('QR code is empty');
  if (s.length > MAX_PAYLOAD_LENGTH) return notSlip('QR content is too long for a slip QR');
  if (!PRINTABLE_RE.test(s)) return notSlip('QR content has characters a slip QR never has');
  if (s.startsWith('000201')) return notSlip('QR code is a payment (PromptPay/EMVCo) QR, not a transfer slip');

  const top = readTlvs(s, true);
  if (!top || top.length < 2) return notSlip('QR content is not a slip QR (TLV structure)');
  const topMap = toMap(top);
  const first = top[0];
  const crcTag = top[top.length - 1];
  if (!topMap || first.id !== '00' || crcTag.id !== '91') return notSlip('QR content is not a slip QR (tags)');
  if (!HEX_RE.test(crcTag.value)) return notSlip('QR content is not a slip QR (CRC tag)');

  const sub = readTlvs(first.value, false);
  const subMap = sub && toMap(sub);
  if (!subMap) return notSlip('QR content is not a slip QR (tag 00 structure)');
  const apiId = subMap.get('00')?.value;

  let kind: 'BANK' | 'TRUEMONEY';
  let bankCode: string;
  let transRef: string;
  let trueMoney: SlipPayloadOk['trueMoney'];
  if (apiId === API_ID_BANK) {
    kind = 'BANK';
    bankCode = subMap.get('01')?.value ?? '';
    transRef = subMap.get('02')?.value ?? '';
    if (!/^\d{3}$/.test(bankCode)) return notSlip('slip QR has no valid sending bank code');
    if (!TRANS_REF_RE.test(transRef)) return notSlip('slip QR has no valid transaction reference');
    if (topMap.get('51')?.value !== 'TH') return notSlip('slip QR has no Thai country tag');
  } else if (apiId === '01' && subMap.get('01')?.value === '01') {
    kind = 'TRUEMONEY';
    const eventType = subMap.get('02')?.value ?? '';
    const date = subMap.get('04')?.value ?? '';
    bankCode = TRUEMONEY_CODE;
    transRef = subMap.get('03')?.value ?? '';
    if (!/^[A-Za-z0-9]{1,16}$/.test(eventType)) return notSlip('wallet slip QR has no valid event type');
    if (!TRANS_REF_RE.test(transRef)) return notSlip('wallet slip QR has no valid transaction id');
    if (!/^\d{8}$/.test(date)) return notSlip('wallet slip QR has no valid date');
    trueMoney = { eventType, date };
  } else {
    return notSlip('QR content is not a slip QR (API id)');
  }

  // The CRC covers everything up to and including "9104".
  const body = s.slice(0, crcTag.at);
  const printed = crcTag.value.padStart(4, '0');
  if (crc16ccittFalse(body) !== printed.toUpperCase()) {
    return { ok: false, errorCode: 'BAD_CHECKSUM', message: 'slip QR checksum does not match its content' };
  }

  let bankName = TRUEMONEY_NAME;
  if (kind === 'BANK') {
    const bank = Object.prototype.hasOwnProperty.call(BANKS, bankCode) ? BANKS[bankCode] : undefined;
    if (!bank) return { ok: false, errorCode: 'UNKNOWN_BANK', message: 'slip QR names an unknown sending bank', bankCode };
    bankName = bank.nameEn;
  }
  const result: SlipPayloadOk = { ok: true, kind, bankCode, bankName, transRef, payload: body + printed };
  if (trueMoney) result.trueMoney = trueMoney;
  return result;
}
