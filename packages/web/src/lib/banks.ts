// Thai bank codes (the service's bank list; names are shown, codes are sent).
export const BANKS: { code: string; short: string; th: string; en: string }[] = [
  { code: '002', short: 'BBL', th: 'ธนาคารกรุงเทพ', en: 'Bangkok Bank' },
  { code: '004', short: 'KBANK', th: 'ธนาคารกสิกรไทย', en: 'Kasikornbank' },
  { code: '006', short: 'KTB', th: 'ธนาคารกรุงไทย', en: 'Krungthai Bank' },
  { code: '011', short: 'TTB', th: 'ธนาคารทหารไทยธนชาต', en: 'TMBThanachart Bank' },
  { code: '014', short: 'SCB', th: 'ธนาคารไทยพาณิชย์', en: 'Siam Commercial Bank' },
  { code: '017', short: 'CITI', th: 'ธนาคารซิตี้แบงก์', en: 'Citibank' },
  { code: '022', short: 'CIMBT', th: 'ธนาคารซีไอเอ็มบี ไทย', en: 'CIMB Thai Bank' },
  { code: '024', short: 'UOBT', th: 'ธนาคารยูโอบี', en: 'United Overseas Bank (Thai)' },
  { code: '025', short: 'BAY', th: 'ธนาคารกรุงศรีอยุธยา', en: 'Bank of Ayudhya (Krungsri)' },
  { code: '030', short: 'GSB', th: 'ธนาคารออมสิน', en: 'Government Savings Bank' },
  { code: '033', short: 'GHB', th: 'ธนาคารอาคารสงเคราะห์', en: 'Government Housing Bank' },
  { code: '052', short: 'BOC', th: 'ธนาคารแห่งประเทศจีน (ไทย)', en: 'Bank of China (Thai)' },
  { code: '065', short: 'TBANK', th: 'ธนาคารธนชาต', en: 'Thanachart Bank' },
  { code: '066', short: 'ISBT', th: 'ธนาคารอิสลามแห่งประเทศไทย', en: 'Islamic Bank of Thailand' },
  { code: '067', short: 'TISCO', th: 'ธนาคารทิสโก้', en: 'TISCO Bank' },
  { code: '069', short: 'KKP', th: 'ธนาคารเกียรตินาคินภัทร', en: 'Kiatnakin Phatra Bank' },
  { code: '070', short: 'ICBCT', th: 'ธนาคารไอซีบีซี (ไทย)', en: 'ICBC (Thai)' },
  { code: '071', short: 'TCD', th: 'ธนาคารไทยเครดิต', en: 'Thai Credit Bank' },
  { code: '073', short: 'LHFG', th: 'ธนาคารแลนด์ แอนด์ เฮ้าส์', en: 'Land and Houses Bank' },
];

export function bankName(code: string, lang: 'th' | 'en', fallback?: string | null): string {
  const b = BANKS.find((x) => x.code === code);
  return b ? (lang === 'th' ? b.th : b.en) : code === 'PROMPTPAY' ? 'PromptPay' : fallback || code;
}
