/** Display data for slip rendering: Thai name, short name, brand colour. */
export interface BankInfo {
  code: string;
  short: string;
  nameTh: string;
  color: string;
  /** Text in the round logo badge when `short` is too long for it. */
  badge?: string;
}

const BANKS: BankInfo[] = [
  { code: '002', short: 'BBL', nameTh: 'ธนาคารกรุงเทพ', color: '#1e4598' },
  { code: '004', short: 'KBANK', nameTh: 'ธนาคารกสิกรไทย', color: '#138f2d' },
  { code: '006', short: 'KTB', nameTh: 'ธนาคารกรุงไทย', color: '#1ba5e1' },
  { code: '011', short: 'ttb', nameTh: 'ธนาคารทหารไทยธนชาต', color: '#0050f0' },
  { code: '014', short: 'SCB', nameTh: 'ธนาคารไทยพาณิชย์', color: '#4e2e7f' },
  { code: '017', short: 'CITI', nameTh: 'ธนาคารซิตี้แบงก์', color: '#1a63a8' },
  { code: '022', short: 'CIMBT', nameTh: 'ธนาคารซีไอเอ็มบี ไทย', color: '#7e2f36' },
  { code: '024', short: 'UOB', nameTh: 'ธนาคารยูโอบี', color: '#0b3979' },
  { code: '025', short: 'krungsri', nameTh: 'ธนาคารกรุงศรีอยุธยา', color: '#6d5a4f', badge: 'BAY' },
  { code: '030', short: 'GSB', nameTh: 'ธนาคารออมสิน', color: '#eb198d' },
  { code: '033', short: 'GHB', nameTh: 'ธนาคารอาคารสงเคราะห์', color: '#f57d23' },
  { code: '034', short: 'BAAC', nameTh: 'ธ.ก.ส.', color: '#4b9b2e' },
  { code: '035', short: 'EXIM', nameTh: 'ธนาคารเพื่อการส่งออกและนำเข้า', color: '#0c4b9b' },
  { code: '052', short: 'BOC', nameTh: 'ธนาคารแห่งประเทศจีน', color: '#b5121b' },
  { code: '065', short: 'TBANK', nameTh: 'ธนาคารธนชาต', color: '#fc4f1f' },
  { code: '066', short: 'ISBT', nameTh: 'ธนาคารอิสลามแห่งประเทศไทย', color: '#184615' },
  { code: '067', short: 'TISCO', nameTh: 'ธนาคารทิสโก้', color: '#12549f' },
  { code: '069', short: 'KKP', nameTh: 'ธนาคารเกียรตินาคินภัทร', color: '#635f98' },
  { code: '070', short: 'ICBC', nameTh: 'ธนาคารไอซีบีซี (ไทย)', color: '#c50f1f' },
  { code: '071', short: 'TCD', nameTh: 'ธนาคารไทยเครดิต', color: '#0a4f8c' },
  { code: '073', short: 'LHB', nameTh: 'ธนาคารแลนด์ แอนด์ เฮ้าส์', color: '#6d6e71' },
  { code: '098', short: 'SME', nameTh: 'ธนาคารพัฒนาวิสาหกิจฯ', color: '#0a5ca8' },
  { code: 'TRUEMONEY', short: 'TrueMoney', nameTh: 'ทรูมันนี่ วอลเล็ท', color: '#f7941d', badge: 'TMN' },
];

const BY_CODE = new Map(BANKS.map((b) => [b.code, b]));

export function bankInfo(code: string): BankInfo {
  return BY_CODE.get(code) ?? { code, short: code, nameTh: `ธนาคาร ${code}`, color: '#37474f' };
}
