/**
 * Thai bank codes (Bank of Thailand institution codes, as in tag 00/01 of a slip mini-QR and in
 * `bankCode` of a transaction record). The one table for the service, the dashboard and SDK users:
 * the server's slip parser and payee checks, the web app's bank names and payee form all import it.
 */
export interface ThaiBank {
  /** Three-digit code, e.g. '014'. */
  code: string;
  short: string;
  nameTh: string;
  nameEn: string;
}

export const THAI_BANKS: readonly ThaiBank[] = Object.freeze(
  [
    { code: '002', short: 'BBL', nameTh: 'ธนาคารกรุงเทพ', nameEn: 'Bangkok Bank' },
    { code: '004', short: 'KBANK', nameTh: 'ธนาคารกสิกรไทย', nameEn: 'Kasikornbank' },
    { code: '006', short: 'KTB', nameTh: 'ธนาคารกรุงไทย', nameEn: 'Krungthai Bank' },
    { code: '011', short: 'TTB', nameTh: 'ธนาคารทหารไทยธนชาต', nameEn: 'TMBThanachart Bank' },
    { code: '014', short: 'SCB', nameTh: 'ธนาคารไทยพาณิชย์', nameEn: 'Siam Commercial Bank' },
    { code: '017', short: 'CITI', nameTh: 'ธนาคารซิตี้แบงก์', nameEn: 'Citibank' },
    { code: '022', short: 'CIMBT', nameTh: 'ธนาคารซีไอเอ็มบี ไทย', nameEn: 'CIMB Thai Bank' },
    { code: '024', short: 'UOBT', nameTh: 'ธนาคารยูโอบี', nameEn: 'United Overseas Bank (Thai)' },
    { code: '025', short: 'BAY', nameTh: 'ธนาคารกรุงศรีอยุธยา', nameEn: 'Bank of Ayudhya (Krungsri)' },
    { code: '030', short: 'GSB', nameTh: 'ธนาคารออมสิน', nameEn: 'Government Savings Bank' },
    { code: '033', short: 'GHB', nameTh: 'ธนาคารอาคารสงเคราะห์', nameEn: 'Government Housing Bank' },
    {
      code: '034',
      short: 'BAAC',
      nameTh: 'ธนาคารเพื่อการเกษตรและสหกรณ์การเกษตร',
      nameEn: 'Bank for Agriculture and Agricultural Cooperatives',
    },
    { code: '035', short: 'EXIM', nameTh: 'ธนาคารเพื่อการส่งออกและนำเข้าแห่งประเทศไทย', nameEn: 'Export-Import Bank of Thailand' },
    { code: '052', short: 'BOC', nameTh: 'ธนาคารแห่งประเทศจีน (ไทย)', nameEn: 'Bank of China (Thai)' },
    { code: '065', short: 'TBANK', nameTh: 'ธนาคารธนชาต', nameEn: 'Thanachart Bank' },
    { code: '066', short: 'ISBT', nameTh: 'ธนาคารอิสลามแห่งประเทศไทย', nameEn: 'Islamic Bank of Thailand' },
    { code: '067', short: 'TISCO', nameTh: 'ธนาคารทิสโก้', nameEn: 'TISCO Bank' },
    { code: '069', short: 'KKP', nameTh: 'ธนาคารเกียรตินาคินภัทร', nameEn: 'Kiatnakin Phatra Bank' },
    { code: '070', short: 'ICBCT', nameTh: 'ธนาคารไอซีบีซี (ไทย)', nameEn: 'ICBC (Thai)' },
    { code: '071', short: 'TCD', nameTh: 'ธนาคารไทยเครดิต', nameEn: 'Thai Credit Bank' },
    { code: '073', short: 'LHFG', nameTh: 'ธนาคารแลนด์ แอนด์ เฮ้าส์', nameEn: 'Land and Houses Bank' },
    { code: '098', short: 'SME', nameTh: 'ธนาคารพัฒนาวิสาหกิจขนาดกลางและขนาดย่อมแห่งประเทศไทย', nameEn: 'SME Development Bank' },
  ].map((b) => Object.freeze(b)),
);

/** The bank for a code, or undefined (own-property lookup: '__proto__' is not a bank). */
export function findThaiBank(code: string): ThaiBank | undefined {
  return THAI_BANKS.find((b) => b.code === code);
}
