// Every error code the service answers, with its HTTP status and what it means in Thai and English:
// one catalogue for the server (its one error type takes codes from here, so a typo fails to compile),
// the OpenAPI document (the error envelope's `code` lists these), the dashboard's messages and SDK
// users who switch on `err.code`. A code the server sends that is missing here fails a test.
import type { TransactionStatus } from './types.js';

export interface ErrorCodeEntry {
  /**
   * The HTTP status of the answer that carries the code: 4xx/5xx for an error envelope; 200 for a
   * code on a result record (`errorCode`), where `on` names the record statuses it accompanies.
   */
  readonly status: number;
  /** Other statuses the same code is answered with (a refusal reused in two places). */
  readonly alsoStatus?: readonly number[];
  readonly on?: readonly TransactionStatus[];
  /** What it means, for a person: a short sentence (errors) or the word shown for a result. */
  readonly th: string;
  readonly en: string;
}

const http = (status: number, th: string, en: string, alsoStatus?: readonly number[]): ErrorCodeEntry =>
  alsoStatus ? { status, alsoStatus, th, en } : { status, th, en };
const result = (on: readonly TransactionStatus[], th: string, en: string): ErrorCodeEntry => ({ status: 200, on, th, en });

export const ERROR_CODES = Object.freeze({
  // 400
  VALIDATION_ERROR: http(400, 'ข้อมูลไม่ถูกต้อง', 'Invalid input'),
  BAD_REQUEST: http(400, 'คำขอไม่ถูกต้อง', 'Malformed request', [431]),
  INVALID_IMAGE: http(400, 'ไฟล์นี้ไม่ใช่รูป JPG หรือ PNG', 'This file is not a JPG or PNG picture'),
  INVALID_CURSOR: http(400, 'หน้ารายการหมดอายุ กรุณาค้นหาใหม่', 'The page expired; please search again'),
  INVALID_RANGE: http(400, 'ช่วงวันที่ไม่ถูกต้อง', 'The date range is not valid'),
  INVALID_DESCRIPTION: http(400, 'คำอธิบายไม่ถูกต้อง', 'The description is not valid'),
  INVALID_OVERLAP: http(400, 'ช่วงเวลาทับกับรายการที่มีอยู่', 'The period overlaps an existing one'),
  INVALID_STATUS: http(400, 'สถานะไม่ถูกต้อง', 'The status is not valid'),
  INVALID_WEBHOOK_EVENTS: http(400, 'เลือกเหตุการณ์เว็บฮุกไม่ถูกต้อง', 'The webhook events are not valid'),
  INVALID_WEBHOOK_URL: http(
    400,
    'URL นี้ใช้ไม่ได้ ต้องเป็น https:// ที่เข้าถึงได้จากอินเทอร์เน็ต',
    'This URL cannot be used; it must be https:// and reachable from the internet',
  ),
  INVITE_INVALID: http(
    400,
    'ลิงก์คำเชิญนี้ไม่ถูกต้อง ถูกใช้แล้ว ถูกยกเลิก หรือหมดอายุ ขอคำเชิญใหม่จากเจ้าของร้าน',
    'This invite link is wrong, used, revoked or expired. Ask the shop owner for a new one.',
  ),
  LINK_CODE_INVALID: http(400, 'รหัสเชื่อมต่อไม่ถูกต้องหรือหมดอายุ', 'The link code is wrong or expired'),
  RESET_TOKEN_INVALID: http(
    400,
    'ลิงก์ตั้งรหัสผ่านไม่ถูกต้อง ถูกใช้แล้ว หรือหมดอายุ กรุณาขอลิงก์ใหม่',
    'This reset link is wrong, used or expired. Please ask for a new one.',
  ),
  UNKNOWN_PLAN: http(400, 'ไม่พบแพ็กเกจที่เลือก', 'The chosen plan does not exist'),
  WEAK_PASSWORD: http(
    400,
    'รหัสผ่านง่ายเกินไป ใช้อย่างน้อย 8 ตัวอักษรและเดายาก',
    'The password is too weak. Use at least 8 characters that are hard to guess.',
  ),
  WRONG_PASSWORD: http(400, 'รหัสผ่านปัจจุบันไม่ถูกต้อง', 'The current password is wrong'),
  DEMO_DISABLED: http(400, 'ปิดโหมดสาธิตอยู่', 'Demo mode is off'),
  SANDBOX_UNREACHABLE: http(400, 'ติดต่อธนาคารจำลองไม่ได้', 'The sandbox bank cannot be reached'),
  // 401
  UNAUTHORIZED: http(401, 'หมดเวลาการเข้าสู่ระบบ กรุณาเข้าสู่ระบบอีกครั้ง', 'Your session has ended. Please sign in again.'),
  INVALID_CREDENTIALS: http(401, 'อีเมลหรือรหัสผ่านไม่ถูกต้อง', 'Wrong e-mail or password'),
  REFRESH_INVALID: http(401, 'หมดเวลาการเข้าสู่ระบบ กรุณาเข้าสู่ระบบอีกครั้ง', 'Your session has ended. Please sign in again.'),
  MEMBER_REMOVED: http(
    401,
    'เจ้าของร้านได้ยกเลิกสิทธิ์เข้าใช้ร้านนี้ของคุณแล้ว หากต้องการใช้ต่อ กรุณาติดต่อเจ้าของร้าน',
    "The shop's owner removed your access to this shop. Ask the owner if you still need it.",
  ),
  REFRESH_REUSED: http(
    401,
    'เพื่อความปลอดภัย ระบบได้ออกจากระบบของเซสชันนี้แล้ว กรุณาเข้าสู่ระบบใหม่และตรวจหน้าความปลอดภัย',
    'For your safety this session was signed out. Sign in again and review the Security page.',
  ),
  // 401 for a LINE sign-in; 400 when LINE refuses a channel access token the owner entered.
  LINE_TOKEN_INVALID: http(401, 'LINE ไม่รับรองการเข้าสู่ระบบหรือโทเคนนี้', 'LINE did not accept this sign-in or token', [400]),
  // 402
  QUOTA_EXCEEDED: http(402, 'โควตาการตรวจสลิปเดือนนี้หมดแล้ว (หรือหมดช่วงทดลองใช้)', 'This month’s slip quota is used up (or the trial has ended)'),
  TEST_QUOTA_EXCEEDED: http(
    402,
    'คีย์ทดสอบใช้ครบ 200 ครั้งของเดือนนี้แล้ว ใช้คีย์จริง (live) หรือรอเดือนถัดไป',
    'Test keys are limited to 200 calls a month and this month’s are used up. Use a live key or wait for next month.',
  ),
  // 403
  ACCOUNT_DISABLED: http(403, 'บัญชีนี้ถูกปิดใช้งาน', 'This account is disabled'),
  MISSING_SCOPE: http(403, 'คีย์นี้ไม่มีสิทธิ์ทำรายการนี้', 'This key lacks the scope for this call'),
  ORIGIN_REJECTED: http(
    403,
    'คำขอนี้ถูกปฏิเสธเพื่อความปลอดภัย กรุณาโหลดหน้าเว็บใหม่แล้วลองอีกครั้ง',
    'This request was blocked for security. Reload the page and try again.',
  ),
  OWNER_ONLY: http(403, 'เฉพาะเจ้าของร้านเท่านั้นที่ทำรายการนี้ได้', 'Only the shop owner can do this.'),
  OWNER_NOT_REMOVABLE: http(403, 'ลบเจ้าของร้านออกจากทีมไม่ได้', 'The shop owner cannot be removed.'),
  PLAN_API_ACCESS_REQUIRED: http(
    403,
    'แพ็กเกจปัจจุบันยังใช้ API และเว็บฮุกไม่ได้ ใช้ได้หลังชำระค่าแพ็กเกจที่มี API',
    'Your current plan has no API or webhooks. They work once a plan with API access is paid.',
  ),
  PLAN_LIMIT_SEATS: http(
    403,
    'ที่นั่งของแพ็กเกจเต็มแล้ว (รวมคำเชิญที่รอตอบรับ) ยกเลิกคำเชิญ ลบสมาชิก หรืออัปเกรดแพ็กเกจ',
    'All seats of your plan are taken (pending invites count too). Revoke an invite, remove a member or upgrade the plan.',
  ),
  PLAN_LIMIT_MESSAGING_ACCOUNTS: http(403, 'แพ็กเกจปัจจุบันเชื่อมบัญชี LINE ได้ครบจำนวนแล้ว', 'Your plan has all the messaging accounts it allows'),
  SHOP_SUSPENDED: http(403, 'ร้านนี้ถูกระงับการใช้งาน ติดต่อฝ่ายช่วยเหลือ', 'This shop is suspended; contact support'),
  LINE_NOT_LINKED: http(403, 'บัญชี LINE นี้ยังไม่ได้เชื่อมกับร้าน', 'This LINE account is not linked to a shop'),
  // 404
  NOT_FOUND: http(404, 'ไม่พบข้อมูลนี้', 'Not found'),
  LINE_LOGIN_DISABLED: http(404, 'ไม่ได้เปิดการเข้าสู่ระบบด้วย LINE', 'Sign-in with LINE is not enabled'),
  // 405, 408
  METHOD_NOT_ALLOWED: http(405, 'ที่อยู่นี้ไม่รองรับคำสั่งนี้', 'This path does not serve that method'),
  REQUEST_TIMEOUT: http(408, 'ได้รับคำขอไม่ครบในเวลาที่กำหนด', 'The request was not received in time'),
  // 409
  EMAIL_TAKEN: http(409, 'อีเมลนี้มีบัญชีอยู่แล้ว ลองเข้าสู่ระบบหรือกดลืมรหัสผ่าน', 'This e-mail already has an account. Sign in or reset the password.'),
  KEY_REVOKED: http(409, 'คีย์นี้ถูกยกเลิกไปแล้ว', 'This key is already revoked'),
  PAYEE_EXISTS: http(
    409,
    'บัญชีนี้อยู่ในรายการบัญชีรับเงินของร้านแล้ว ถ้าปิดใช้งานไว้ ให้กดแก้ไขแล้วเปิดใช้งานแทนการเพิ่มใหม่',
    'This account is already one of the shop’s payee accounts. If it is disabled, edit it and enable it instead of adding it again.',
  ),
  DELIVERY_IN_PROGRESS: http(409, 'กำลังส่งรายการนี้อยู่ รอสักครู่แล้วกดรีเฟรช', 'This delivery is being sent right now. Wait a moment and refresh.'),
  LINE_CHANNEL_IN_USE: http(409, 'บัญชี LINE นี้เชื่อมกับร้านอื่นอยู่แล้ว', 'This LINE account is already connected to another shop'),
  WEBHOOK_ENDPOINT_DISABLED: http(
    409,
    'ปลายทางนี้ปิดใช้งานอยู่ เปิดใช้งานก่อนแล้วค่อยส่งซ้ำ',
    'This endpoint is disabled. Enable it first, then redeliver.',
  ),
  WEBHOOK_ENDPOINT_LIMIT: http(
    409,
    'เพิ่มปลายทางเว็บฮุกครบจำนวนสูงสุดแล้ว ลบปลายทางที่ไม่ใช้ก่อน',
    'You have the maximum number of webhook endpoints. Remove one you no longer use first.',
  ),
  // 413, 414, 415, 422, 429
  PAYLOAD_TOO_LARGE: http(413, 'รูปใหญ่เกินไป ลองใช้ภาพหน้าจอหรือรูปที่เล็กลง', 'The picture is too large. Use a screenshot or a smaller picture.'),
  URI_TOO_LONG: http(414, 'ที่อยู่ (URL) ยาวเกินไป กรุณาย่อให้สั้นลงแล้วลองใหม่', 'The URL is too long. Shorten it and try again.'),
  UNSUPPORTED_MEDIA_TYPE: http(415, 'ไม่รองรับไฟล์ประเภทนี้', 'This file type is not supported'),
  NO_PAYEE_CONFIGURED: http(
    422,
    'ร้านยังไม่มีบัญชีรับเงิน สลิปจึงถูกปฏิเสธ เพิ่มบัญชีก่อนแล้วลองใหม่',
    'Your shop has no payee account, so the slip was rejected. Add an account and try again.',
  ),
  RATE_LIMITED: http(429, 'ส่งคำขอถี่เกินไป กรุณารอสักครู่แล้วลองใหม่', 'Too many requests. Please wait a moment and try again.'),
  // 5xx
  INTERNAL_ERROR: http(500, 'เซิร์ฟเวอร์ขัดข้อง', 'Internal server error'),
  SERVICE_UNAVAILABLE: http(503, 'ระบบไม่ว่างชั่วคราว กรุณาลองใหม่ในอีกสักครู่', 'The service is busy; retry in a moment'),
  LINE_UNAVAILABLE: http(503, 'ติดต่อ LINE ไม่ได้ชั่วคราว กรุณาลองใหม่', 'LINE cannot be reached for now; retry in a moment'),
  DECODER_BUSY: http(503, 'ระบบอ่านสลิปไม่ว่าง กรุณาลองใหม่', 'The slip reader is busy; retry in a moment'),
  DECODER_CLOSED: http(503, 'ระบบอ่านสลิปกำลังปิด กรุณาลองใหม่', 'The slip reader is shutting down; retry in a moment'),
  DECODER_UNAVAILABLE: http(503, 'ระบบอ่านสลิปไม่พร้อม กรุณาลองใหม่', 'The slip reader is not available; retry in a moment'),

  // Codes on result records (`errorCode`): the verify call answers 200 with the record.
  NO_QR_FOUND: result(['INVALID'], 'ไม่พบ QR ของสลิป', 'No slip QR found'),
  NOT_SLIP_QR: result(['INVALID'], 'QR นี้ไม่ใช่สลิป', 'Not a slip QR'),
  BAD_CHECKSUM: result(['INVALID'], 'QR ของสลิปเสียหายหรือถูกแก้', 'Slip QR damaged or altered'),
  UNKNOWN_BANK: result(['INVALID'], 'ไม่รู้จักธนาคารผู้โอน', 'Unknown sending bank'),
  UNREADABLE_IMAGE: result(['INVALID'], 'อ่านรูปไม่ได้', 'Unreadable picture'),
  MULTIPLE_SLIPS: result(['INVALID'], 'มีสลิปหลายรายการในรูปเดียว', 'More than one slip in the picture'),
  STALE_SLIP: result(['INVALID'], 'สลิปเก่า', 'Old slip'),
  CHECK_NOT_SUPPORTED: result(['INVALID'], 'ตรวจสลิปประเภทนี้ไม่ได้', 'This kind of slip cannot be checked'),
  SLIP_NOT_FOUND: result(['FRAUD'], 'ธนาคารไม่พบรายการนี้', 'The bank has no such transfer'),
  EDITED_SLIP: result(['FRAUD'], 'สลิปถูกแก้ไข', 'Edited slip'),
  DATA_MISMATCH: result(['FRAUD'], 'ข้อมูลไม่ตรงกับธนาคาร', 'Does not match the bank'),
  PROVIDER_UNAVAILABLE: result(['PROVIDER_ERROR'], 'ตรวจไม่ได้ชั่วคราว', 'Could not check yet'),
  SLIP_PENDING: result(['PROVIDER_ERROR'], 'ธนาคารยังไม่แสดงรายการ', 'Bank has not published it yet'),
  CHECK_UNAVAILABLE: result(['PROVIDER_ERROR'], 'ขณะนี้ตรวจสลิปไม่ได้ชั่วคราว', 'Slip checking is unavailable for now'),
  RECEIVER_MISMATCH: result(['RECEIVER_MISMATCH'], 'บัญชีผู้รับไม่ตรง', 'Wrong account'),
  RECEIVER_UNVERIFIED: result(['RECEIVER_MISMATCH'], 'ยืนยันบัญชีผู้รับไม่ได้', 'Receiver not confirmed'),
  AMOUNT_MISMATCH: result(['AMOUNT_MISMATCH'], 'ยอดไม่ตรง', 'Amount differs'),
  DUPLICATE: result(['DUPLICATE'], 'สลิปซ้ำ', 'Duplicate'),
} as const satisfies Record<string, ErrorCodeEntry>);

/** Every code the service answers: an error envelope's `code` or a result record's `errorCode`. */
export type ErrorCode = keyof typeof ERROR_CODES;

export const ALL_ERROR_CODES = Object.freeze(Object.keys(ERROR_CODES) as ErrorCode[]);
/** The codes of error envelopes (4xx/5xx answers). */
export const API_ERROR_CODES = Object.freeze(ALL_ERROR_CODES.filter((c) => ERROR_CODES[c].status >= 400));
/** The codes a result record's `errorCode` can hold. */
export const RESULT_ERROR_CODES = Object.freeze(ALL_ERROR_CODES.filter((c) => ERROR_CODES[c].on !== undefined));

export const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);

/**
 * Why a 402 was answered (`reason` in its envelope): the trial ended, the monthly quota is used up,
 * the trial's slips are used up (its pool spans its days, not a month: dashboard and LINE only, as a
 * trial has no API keys), or a test key is over its monthly cap. QUOTA_EXCEEDED covers the first three.
 */
export const QUOTA_REASONS = ['TRIAL_ENDED', 'MONTHLY_QUOTA', 'TRIAL_QUOTA', 'TEST_CAP'] as const;
export type QuotaReason = (typeof QUOTA_REASONS)[number];
