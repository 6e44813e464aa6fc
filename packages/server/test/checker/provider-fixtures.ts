// Provider answers as their documents show them, for tests through a fake provider on loopback.
// Every fixture names the document it comes from; where a document is silent (an HTTP status, a
// field) the comment says so, and nothing is made up beyond the shape the document gives.
import type { Reply } from './fake-upstream.js';

/** A UUID-shaped key: "EasySlip API keys are UUID v4 format strings" (EasySlip guide/authentication). */
export const EASYSLIP_KEY = 'a1b2c3d4-e5f6-4890-abcd-ef1234567890';
export const SLIPOK_KEY = 'SLIPOKTESTKEY';
export const SLIPOK_BRANCH_PATH = '/api/line/apikey/12345';

// ---------------------------------------------------------------- EasySlip v2
// POST /v2/verify/bank success: {success, message, data:{isDuplicate, matchedAccount, amountInSlip,
// rawSlip}} (document.easyslip.com/en/v2/verify/bank; rawSlip fields as in the bank slip response type).
export const easySlipBankSuccess = (transRef = '014242082547BPM04988', overrides: Record<string, unknown> = {}) => ({
  success: true,
  message: 'Operation completed successfully',
  data: {
    isDuplicate: false,
    matchedAccount: null,
    amountInSlip: 1000,
    rawSlip: {
      payload: '0041000600000101030040220014242082547BPM049885102TH9104E3A5',
      transRef,
      date: '2026-01-01T23:30:00+07:00',
      countryCode: 'TH',
      amount: { amount: 1000, local: { amount: 0, currency: '' } },
      fee: 0,
      sender: {
        bank: { id: '004', name: 'กสิกรไทย', short: 'KBANK' },
        account: { name: { th: 'นาย อีซี่ ส', en: 'MR. EASY S' }, bank: { type: 'BANKAC', account: 'xxx-x-x1234-x' } },
      },
      receiver: {
        bank: { id: '004', name: 'กสิกรไทย', short: 'KBANK' },
        account: { name: { th: 'บจก. ร้านกาแฟ ทดสอบ', en: 'CAFE TEST CO' }, bank: { type: 'BANKAC', account: 'xxx-x-x6660-9' } },
      },
      ...overrides,
    },
  },
});

// POST /v2/verify/truewallet (multipart field `image`) success: {success:true, data, message}
// (document.easyslip.com/en/v2/verify/truewallet/image). That page points to a type definition we
// could not read; the data fields are those of the documented wallet slip (transactionId, date,
// amount, sender.name, receiver.name, receiver.phone masked: EasySlip v1 verify/truemoney/image).
export const easySlipTrueWalletSuccess = (transactionId = '50012345678901') => ({
  success: true,
  message: 'Operation completed successfully',
  data: {
    transactionId,
    date: '2026-01-01T10:00:00+07:00',
    amount: 250,
    sender: { name: 'อีซี่ สลิป' },
    receiver: { name: 'บจก. ร้านกาแฟ ทดสอบ', phone: '081-xxx-6609' },
  },
});

// GET /v2/info (easyslip-document.cl1.easythunder.com/en/v2/info): application.quota.remaining,
// application.autoRenew.expired, branch.isActive. No overage is documented for this provider.
export const easySlipInfo = (remaining: number | null = 4200) => ({
  success: true,
  message: 'ok',
  data: {
    application: {
      name: 'slipcheck',
      autoRenew: { expired: false, quota: true, createdAt: '2026-01-01T00:00:00+07:00', expiresAt: '2027-01-01T00:00:00+07:00' },
      quota: { used: 800, max: 5000, remaining, totalUsed: 9000 },
    },
    branch: { name: 'main', isActive: true, quota: { used: 800, totalUsed: 9000 } },
    account: { email: 'ops@example.com', credit: 0 },
    product: { name: 'API' },
  },
});

export const easySlipError = (status: number, code: string, headers?: Record<string, string>): Reply => ({
  status,
  headers,
  body: { success: false, error: { code, message: code } },
});

/**
 * The v2 error table (easyslip-document.cl1.easythunder.com/en/reference/error-codes), every row,
 * with what the chain must make of it. `next`: whether the next provider is asked.
 */
export const EASYSLIP_ERROR_TABLE: Array<{ status: number; code: string; want: Record<string, unknown>; next: boolean }> = [
  { status: 401, code: 'MISSING_API_KEY', want: { kind: 'UNAVAILABLE', account: 'key_invalid' }, next: true },
  { status: 401, code: 'INVALID_API_KEY', want: { kind: 'UNAVAILABLE', account: 'key_invalid' }, next: true },
  { status: 403, code: 'BRANCH_INACTIVE', want: { kind: 'UNAVAILABLE', account: 'branch_inactive' }, next: true },
  { status: 403, code: 'SERVICE_BANNED', want: { kind: 'UNAVAILABLE', account: 'service_suspended' }, next: true },
  { status: 403, code: 'SERVICE_DELETED', want: { kind: 'UNAVAILABLE', account: 'service_suspended' }, next: true },
  { status: 403, code: 'IP_NOT_ALLOWED', want: { kind: 'UNAVAILABLE', account: 'ip_not_allowed' }, next: true },
  { status: 403, code: 'QUOTA_EXCEEDED', want: { kind: 'UNAVAILABLE', account: 'quota_exhausted' }, next: true },
  { status: 400, code: 'VALIDATION_ERROR', want: { kind: 'UNAVAILABLE', retryable: false }, next: true },
  // the URL rows concern the by-URL method, which we never use; listed so the table is whole
  { status: 400, code: 'URL_PROTOCOL_NOT_ALLOWED', want: { kind: 'UNAVAILABLE', retryable: false }, next: true },
  { status: 400, code: 'URL_INVALID_IP_RANGE', want: { kind: 'UNAVAILABLE', retryable: false }, next: true },
  { status: 400, code: 'IMAGE_URL_UNREACHABLE', want: { kind: 'UNAVAILABLE', retryable: false }, next: true },
  { status: 400, code: 'IMAGE_SIZE_TOO_LARGE', want: { kind: 'UNSUPPORTED' }, next: true },
  { status: 400, code: 'INVALID_IMAGE_TYPE', want: { kind: 'UNSUPPORTED' }, next: true },
  { status: 400, code: 'INVALID_IMAGE_FORMAT', want: { kind: 'UNSUPPORTED' }, next: true },
  { status: 404, code: 'SLIP_NOT_FOUND', want: { kind: 'NOT_FOUND' }, next: false },
  { status: 404, code: 'NOT_FOUND', want: { kind: 'UNAVAILABLE', retryable: false }, next: true },
  { status: 500, code: 'API_SERVER_ERROR', want: { kind: 'UNAVAILABLE', retryable: true }, next: true },
  { status: 500, code: 'INTERNAL_SERVER_ERROR', want: { kind: 'UNAVAILABLE', retryable: true }, next: true },
];

// ---------------------------------------------------------------- SlipOK
// Check slip success (slipok.com/api-documentation/check-slip/, the response table's example values).
export const slipOkData = (transRef = '010092101507665143', overrides: Record<string, unknown> = {}) => ({
  success: true,
  message: '✅',
  language: 'TH',
  receivingBank: '004',
  sendingBank: '006',
  transRef,
  transDate: '20200401',
  transTime: '10:15:07',
  transTimestamp: '2020-04-01T03:15:07.000Z',
  amount: 1000,
  sender: {
    displayName: 'นาย กรุงไทย ม',
    name: 'Mr. Krungthai M',
    proxy: { type: null, value: null },
    account: { type: 'BANKAC', value: 'xxx-x-x1234-x' },
  },
  receiver: {
    displayName: 'บจก. ร้านกาแฟ ทดสอบ',
    name: 'CAFE TEST CO',
    proxy: { type: null, value: null },
    account: { type: 'BANKAC', value: 'xxx-x-x6660-9' },
  },
  ...overrides,
});
export const slipOkSuccess = (transRef?: string, overrides?: Record<string, unknown>): Reply => ({
  status: 200,
  body: { success: true, data: slipOkData(transRef, overrides) },
});

// Quota route GET {url}/quota (SlipOK API documentation v1.3 "check quota route"; fields from the
// public client PrakritManStudio/slipok-sdk src/types: {quota, specialQuota, overQuota}).
export const slipOkQuota = (quota: number, overQuota: number): Reply => ({
  status: 200,
  body: { success: true, data: { quota, specialQuota: 0, overQuota } },
});

/**
 * SlipOK failure body {code, message[, data]}. The documents give no HTTP status per code: 400 is
 * used here for all of them, and the adapter keys on `code` only.
 */
export const slipOkError = (code: number, data?: unknown): Reply => ({
  status: 400,
  body: { success: false, code, message: String(code), ...(data ? { data } : {}) },
});

/**
 * The error code table (SlipOK API documentation v1.1-1.4; the same table with its Thai messages in
 * PrakritManStudio/slipok-sdk src/types/index.ts and xhayper/node-slipok src/types.ts), every row.
 */
export const SLIPOK_ERROR_TABLE: Array<{ code: number; note: string; reply: Reply; want: Record<string, unknown>; next: boolean }> = [
  { code: 1000, note: 'no data/files/url sent', reply: slipOkError(1000), want: { kind: 'UNAVAILABLE', retryable: false }, next: true },
  {
    code: 1001,
    note: 'branch not found',
    reply: slipOkError(1001),
    want: { kind: 'UNAVAILABLE', account: 'branch_inactive', providerCode: '1001' },
    next: true,
  },
  {
    code: 1002,
    note: 'bad authorization header',
    reply: slipOkError(1002),
    want: { kind: 'UNAVAILABLE', account: 'key_invalid', providerCode: '1002' },
    next: true,
  },
  {
    code: 1003,
    note: 'package expired',
    reply: slipOkError(1003),
    want: { kind: 'UNAVAILABLE', account: 'package_expired', providerCode: '1003' },
    next: true,
  },
  {
    code: 1004,
    note: 'over quota by 400 baht: renew',
    reply: slipOkError(1004),
    want: { kind: 'UNAVAILABLE', account: 'quota_exhausted', providerCode: '1004' },
    next: true,
  },
  {
    code: 1005,
    note: 'not an image file (files only)',
    reply: slipOkError(1005),
    want: { kind: 'UNAVAILABLE', retryable: false },
    next: true,
  },
  { code: 1006, note: 'invalid image (files only)', reply: slipOkError(1006), want: { kind: 'UNAVAILABLE', retryable: false }, next: true },
  {
    code: 1007,
    note: 'image has no QR (files only)',
    reply: slipOkError(1007),
    want: { kind: 'UNAVAILABLE', retryable: false },
    next: true,
  },
  { code: 1008, note: 'not a payment-verification QR', reply: slipOkError(1008), want: { kind: 'UNSUPPORTED' }, next: true },
  {
    code: 1009,
    note: 'bank data down ~15 min, no quota used',
    reply: slipOkError(1009),
    want: { kind: 'UNAVAILABLE', retryable: false, retryAfterSeconds: 900 },
    next: true,
  },
  {
    code: 1010,
    note: 'delayed slip, wait data.delay minutes (v1.4)',
    reply: slipOkError(1010, { qrcodeData: 'x', bankCode: '014', bankName: 'SCB', delay: 3 }),
    want: { kind: 'PENDING', retryAfterSeconds: 180 },
    next: false,
  },
  { code: 1011, note: 'QR expired or no such transaction', reply: slipOkError(1011), want: { kind: 'NOT_FOUND' }, next: false },
  {
    code: 1012,
    note: 'repeated slip, carries the slip data (v1.4)',
    reply: slipOkError(1012, slipOkData()),
    want: { kind: 'FOUND' },
    next: false,
  },
  {
    code: 1013,
    note: 'amount differs (only with `amount`), carries data',
    reply: slipOkError(1013, slipOkData()),
    want: { kind: 'FOUND' },
    next: false,
  },
  {
    code: 1014,
    note: 'receiver differs (only with `log`), carries data',
    reply: slipOkError(1014, slipOkData()),
    want: { kind: 'FOUND' },
    next: false,
  },
];
