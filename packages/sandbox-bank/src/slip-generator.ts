import { intBelow } from './slip-payload.js';
import { renderSlip, type EditFace, type EditKind, type ImageFormat, type Layout, type Variant } from './slip-renderer.js';
import { LAYOUT_BANK } from './slip-layouts.js';
import { makeTransfer, type NewTransfer, type Party, type ProxyType, type Transfer } from './transfer-store.js';

const SENDERS = [
  { name: 'นาย สมชาย ใจดี', nameEn: 'MR. SOMCHAI JAIDEE' },
  { name: 'นางสาว สุภาพร แสงทอง', nameEn: 'MS. SUPAPORN SAENGTHONG' },
  { name: 'นาง มาลี ศรีสุข', nameEn: 'MRS. MALEE SRISUK' },
  { name: 'นาย ธนากร วงศ์ใหญ่', nameEn: 'MR. THANAKORN WONGYAI' },
];
const COMMON_BANKS = ['004', '014', '006', '002', '025', '011', '030'];

function randomAccount(random?: () => number): string {
  return Array.from({ length: 10 }, () => intBelow(10, random)).join('');
}

export interface GenerateSlipOptions {
  bankCode?: string;
  receivingBank?: string;
  amount?: number;
  transRef?: string;
  transDate?: Date;
  sender?: Party;
  receiver?: Party & { proxy?: { type: ProxyType; value: string } };
  variant?: Variant;
  format?: ImageFormat;
  layout?: Layout;
  /** Render an edited slip (the printed amount differs from the transfer). */
  edit?: EditKind;
  /** With `edit`: the amount typed in another face ('other', default) or the layout's own ('same'). */
  editFace?: EditFace;
  /**
   * A seeded generator in [0, 1) for what is not given (bank, amount, sender, transRef): with a fixed
   * `transDate` the same slip, pixel for pixel, in every run (the benchmarks' corpus). Crypto's otherwise.
   */
  random?: () => number;
}

export interface GeneratedSlip {
  transfer: Transfer;
  payload: string;
  image: Buffer;
  format: ImageFormat;
}

/**
 * A transfer, its slip payload and a rendered image, without any server: for tests and benchmarks.
 * The transfer is not registered anywhere; post it to a sandbox bank when the checker must know it.
 */
export async function generateSlip(opts: GenerateSlipOptions = {}): Promise<GeneratedSlip> {
  const random = opts.random;
  const sendingBank = opts.bankCode ?? (opts.layout && LAYOUT_BANK[opts.layout]) ?? COMMON_BANKS[intBelow(COMMON_BANKS.length, random)];
  const input: NewTransfer = {
    sendingBank,
    amount: opts.amount ?? (100 + intBelow(500_000 - 100, random)) / 100,
    sender: opts.sender ?? { ...SENDERS[intBelow(SENDERS.length, random)], account: randomAccount(random) },
    receiver: {
      ...(opts.receiver ?? { name: 'บจก. ร้านกาแฟดีดี', nameEn: 'DEEDEE COFFEE CO., LTD.', account: '1234566609' }),
      bankCode: opts.receivingBank ?? '004',
    },
    transDate: opts.transDate,
    transRef: opts.transRef,
  };
  const transfer = makeTransfer(input, undefined, random);
  const format =
    opts.format ?? (opts.variant === 'jpeg70' || opts.variant === 'camera12mp' || opts.variant === 'screenphoto' ? 'jpg' : 'png');
  const image = await renderSlip(transfer, {
    format,
    variant: opts.variant,
    layout: opts.layout,
    edit: opts.edit,
    editFace: opts.editFace,
  });
  return { transfer, payload: transfer.payload, image, format };
}
