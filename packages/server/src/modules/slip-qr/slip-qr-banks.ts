export interface BankInfo {
  short: string;
  nameTh: string;
  nameEn: string;
}

/** Sending-bank codes that appear in tag 00/01 of a slip mini-QR (Bank of Thailand institution codes). */
export const BANKS: Readonly<Record<string, BankInfo>> = Object.freeze({
  '002': { short: 'BBL', nameTh: 'ธนาคารกรุงเทพ', nameEn: 'Bangkok Bank' },
  '004': { short: 'KBANK', nameTh: 'ธนาคารกสิกรไทย', nameEn: 'Kasikornbank' },
  '006': { short: 'KTB', nameTh: 'ธนาคารกรุงไทย', nameEn: 'Krungthai Bank' },
  '011': { short: 'TTB', nameTh: 'ธนาคารทหารไทยธนชาต', nameEn: 'TMBThanachart Bank' },
  '014': { short: 'SCB', nameTh: 'ธนาคารไทยพาณิชย์', nameEn: 'Siam Commercial Bank' },
  '017': { short: 'CITI', nameTh: 'ธนาคารซิตี้แบงก์', nameEn: 'Citibank' },
  '022': { short: 'CIMBT', nameTh: 'ธนาคารซีไอเอ็มบี ไทย', nameEn: 'CIMB Thai Bank' },
  '024': { short: 'UOBT', nameTh: 'ธนาคารยูโอบี', nameEn: 'United Overseas Bank (Thai)' },
  '025': { short: 'BAY', nameTh: 'ธนาคารกรุงศรีอยุธยา', nameEn: 'Bank of Ayudhya (Krungsri)' },
  '030': { short: 'GSB', nameTh: 'ธนาคารออมสิน', nameEn: 'Government Savings Bank' },
  '033': { short: 'GHB', nameTh: 'ธนาคารอาคารสงเคราะห์', nameEn: 'Government Housing Bank' },
  '034': {
    short: 'BAAC',
    nameTh: 'ธนาคารเพื่อการเกษตรและสหกรณ์การเกษตร',
    nameEn: 'Bank for Agriculture and Agricultural Cooperatives',
  },
  '035': {
    short: 'EXIM',
    nameTh: 'ธนาคารเพื่อการส่งออกและนำเข้าแห่งประเทศไทย',
    nameEn: 'Export-Import Bank of Thailand',
  },
  '052': { short: 'BOC', nameTh: 'ธนาคารแห่งประเทศจีน (ไทย)', nameEn: 'Bank of China (Thai)' },
  '065': { short: 'TBANK', nameTh: 'ธนาคารธนชาต', nameEn: 'Thanachart Bank' },
  '066': { short: 'ISBT', nameTh: 'ธนาคารอิสลามแห่งประเทศไทย', nameEn: 'Islamic Bank of Thailand' },
  '067': { short: 'TISCO', nameTh: 'ธนาคารทิสโก้', nameEn: 'TISCO Bank' },
  '069': { short: 'KKP', nameTh: 'ธนาคารเกียรตินาคินภัทร', nameEn: 'Kiatnakin Phatra Bank' },
  '070': { short: 'ICBCT', nameTh: 'ธนาคารไอซีบีซี (ไทย)', nameEn: 'ICBC (Thai)' },
  '071': { short: 'TCD', nameTh: 'ธนาคารไทยเครดิต', nameEn: 'Thai Credit Bank' },
  '073': { short: 'LHFG', nameTh: 'ธนาคารแลนด์ แอนด์ เฮ้าส์', nameEn: 'Land and Houses Bank' },
  '098': {
    short: 'SME',
    nameTh: 'ธนาคารพัฒนาวิสาหกิจขนาดกลางและขนาดย่อมแห่งประเทศไทย',
    nameEn: 'SME Development Bank',
  },
});

/** Pseudo bank code used for TrueMoney wallet slips, which carry no bank code of their own. */
export const TRUEMONEY_CODE = 'TRUEMONEY';
export const TRUEMONEY_NAME = 'TrueMoney Wallet';
