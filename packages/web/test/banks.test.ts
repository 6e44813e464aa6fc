import { describe, expect, it } from 'vitest';
import { THAI_BANKS } from '@slipcheck/sdk';
import { BANKS as SERVER_BANKS } from '../../server/src/modules/slip-qr/slip-qr-banks';
import { BANKS, bankName } from '../src/lib/banks';

// docs: /work/shared/DESIGN.md "Slip QR payload" lists the codes a slip can carry.
const DESIGN_CODES = [
  '002',
  '004',
  '006',
  '011',
  '014',
  '017',
  '022',
  '024',
  '025',
  '030',
  '033',
  '034',
  '035',
  '052',
  '065',
  '066',
  '067',
  '069',
  '070',
  '071',
  '073',
  '098',
];

describe('one bank table for the server, the web app and the SDK', () => {
  it('the payee form offers every bank a slip can name, including BAAC, EXIM and SME', () => {
    expect(BANKS.map((b) => b.code)).toEqual(DESIGN_CODES);
    expect(bankName('034', 'th')).toBe('ธนาคารเพื่อการเกษตรและสหกรณ์การเกษตร');
    expect(bankName('035', 'en')).toBe('Export-Import Bank of Thailand');
    expect(bankName('098', 'en')).toBe('SME Development Bank');
  });
  it('the server and the web app read the same rows as the SDK', () => {
    expect(Object.keys(SERVER_BANKS).sort()).toEqual(THAI_BANKS.map((b) => b.code));
    for (const b of THAI_BANKS) {
      expect(SERVER_BANKS[b.code]).toEqual({ short: b.short, nameTh: b.nameTh, nameEn: b.nameEn });
      expect(BANKS.find((x) => x.code === b.code)).toEqual({ code: b.code, short: b.short, th: b.nameTh, en: b.nameEn });
    }
  });
});
