import { THAI_BANKS } from '@slipcheck/sdk';

// The service's bank list (names are shown, codes are sent): the SDK's table, shared with the server.
export const BANKS: { code: string; short: string; th: string; en: string }[] = THAI_BANKS.map((b) => ({
  code: b.code,
  short: b.short,
  th: b.nameTh,
  en: b.nameEn,
}));

export function bankName(code: string, lang: 'th' | 'en', fallback?: string | null): string {
  const b = BANKS.find((x) => x.code === code);
  return b ? (lang === 'th' ? b.th : b.en) : code === 'PROMPTPAY' ? 'PromptPay' : fallback || code;
}
