export { createSlipcheckClient } from './client.js';
export type { SlipcheckClient, SlipcheckClientOptions, RequestOptions, VerifyOptions } from './client.js';
export { SlipcheckApiError, SlipcheckConnectionError, VERIFY_LOST_ANSWER_ADVICE, codeForStatus } from './errors.js';
export type { SlipcheckApiErrorInit, SlipcheckConnectionErrorCode } from './errors.js';
export { DEFAULT_MAX_IMAGE_BYTES, readImage } from './image-body.js';
export type { ImageInput } from './image-body.js';
export { SDK_VERSION, parseQuotaHeaders, parseRetryAfter } from './http-transport.js';
export type { RetryPolicy } from './http-transport.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  WebhookSignatureError,
  buildTestSignatureHeader,
  computeWebhookSignature,
  signWebhookPayload,
  verifyWebhookSignature,
} from './webhook-signature.js';
export type {
  RawBody,
  VerifyWebhookOptions,
  WebhookEvent,
  WebhookEventData,
  WebhookEventKind,
  WebhookSignatureErrorCode,
} from './webhook-signature.js';
export { THAI_BANKS, findThaiBank } from './banks.js';
export { TRANSACTION_SOURCES, TRANSACTION_STATUSES } from './statuses.js';
export type { ThaiBank } from './banks.js';
export type * from './types.js';
export {
  ENVIRONMENT_WORDS,
  ERROR_CODE_WORDS,
  MONEY_WORDS,
  OTHER_BANK_WORDS,
  SOURCE_WORDS,
  STALE_WORD,
  STATUS_WORDS,
  bankWord,
  environmentWord,
  resultWord,
  sourceWord,
  statusWord,
} from './words.js';
export type { Word, WordLang } from './words.js';
