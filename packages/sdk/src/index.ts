export { TRANSACTION_FILTERS, createSlipcheckClient } from './client.js';
export type { SlipcheckClient, SlipcheckClientOptions, RequestOptions, VerifyOptions } from './client.js';
export { SlipcheckApiError, SlipcheckConnectionError, VERIFY_LOST_ANSWER_ADVICE, codeForStatus } from './errors.js';
export type { FirstUse, SlipcheckApiErrorInit, SlipcheckConnectionErrorCode } from './errors.js';
export { DEFAULT_MAX_IMAGE_BYTES, readImage } from './image-body.js';
export type { ImageInput } from './image-body.js';
export { SDK_VERSION, parseQuotaHeaders, parseRetryAfter } from './http-transport.js';
export type { RetryPolicy } from './http-transport.js';
export {
  ATTEMPT_HEADER,
  DEFAULT_TOLERANCE_SECONDS,
  DELIVERY_ID_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  WebhookSignatureError,
  buildTestSignatureHeader,
  computeWebhookSignature,
  readWebhookDelivery,
  signWebhookPayload,
  verifyWebhookSignature,
} from './webhook-signature.js';
export type {
  RawBody,
  VerifyWebhookOptions,
  WebhookDelivery,
  WebhookDeliveryHeaders,
  WebhookEvent,
  WebhookEventData,
  WebhookEventKind,
  WebhookEventOf,
  WebhookSignatureErrorCode,
} from './webhook-signature.js';
export { THAI_BANKS, findThaiBank } from './banks.js';
export { TRANSACTION_SOURCES, TRANSACTION_STATUSES } from './statuses.js';
export { AMOUNT_PATTERN, amountQueryValue, formatSatang, parseAmountToSatang, satangFromAmount, satangToAmount } from './money.js';
export type { ThaiBank } from './banks.js';
export type * from './types.js';
export { ALL_ERROR_CODES, API_ERROR_CODES, ERROR_CODES, QUOTA_REASONS, RESULT_ERROR_CODES, isErrorCode } from './error-codes.js';
export type { ErrorCode, ErrorCodeEntry, QuotaReason } from './error-codes.js';
export {
  ENVIRONMENT_WORDS,
  ERROR_CODE_WORDS,
  MONEY_WORDS,
  OTHER_BANK_WORDS,
  SOURCE_WORDS,
  STALE_WORD,
  STATUS_WORDS,
  WORDED_RESULT_CODES,
  bankWord,
  environmentWord,
  resultWord,
  sourceWord,
  statusWord,
} from './words.js';
export type { Word, WordLang, WordedResultCode } from './words.js';
