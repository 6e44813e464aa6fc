// The error-code catalogue lives in the SDK (shared with the dashboard and integrators); the server
// reads it from here, as it does money and words.
export {
  ALL_ERROR_CODES,
  API_ERROR_CODES,
  ERROR_CODES,
  QUOTA_REASONS,
  RESULT_ERROR_CODES,
  isErrorCode,
  type ErrorCode,
  type ErrorCodeEntry,
  type QuotaReason,
} from '@slipcheck/sdk';
