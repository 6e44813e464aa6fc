import { THAI_BANKS } from '@slipcheck/sdk';

export interface BankInfo {
  short: string;
  nameTh: string;
  nameEn: string;
}

/**
 * Sending-bank codes that appear in tag 00/01 of a slip mini-QR (Bank of Thailand institution codes).
 * Built from the SDK's table, the one list shared with the dashboard and SDK users.
 */
export const BANKS: Readonly<Record<string, BankInfo>> = Object.freeze(
  Object.fromEntries(THAI_BANKS.map((b) => [b.code, Object.freeze({ short: b.short, nameTh: b.nameTh, nameEn: b.nameEn })])),
);

/** Pseudo bank code used for TrueMoney wallet slips, which carry no bank code of their own. */
export const TRUEMONEY_CODE = 'TRUEMONEY';
export const TRUEMONEY_NAME = 'TrueMoney Wallet';
