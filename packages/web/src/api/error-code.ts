import type { ErrorCode } from '@slipcheck/sdk';
import { ApiError } from './client';

/**
 * Whether `error` is the API's refusal with this code. The code is typed from the SDK's error
 * catalogue, so a screen cannot wait for a code the server never sends (a typo fails to compile).
 */
export const hasErrorCode = (error: unknown, code: ErrorCode): error is ApiError => error instanceof ApiError && error.code === code;
