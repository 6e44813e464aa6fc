import type { ErrorCode } from './lib/error-codes.js';

/**
 * The one error type of the service. Everything thrown towards a client is an AppError
 * (or becomes a 500 with a generic message): the HTTP error handler maps it to the spec's envelope.
 * Its code comes from the catalogue (`lib/error-codes.ts`, the SDK's `ERROR_CODES`): a code that is
 * not there does not compile, and test/foundation/error-codes.test.ts checks each status against it.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly statusCode: number,
    message: string,
    /** Extra envelope fields, e.g. `quota` and `reason` on 402 answers. Never internal details. */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (what = 'Resource') => new AppError('NOT_FOUND', 404, `${what} not found`);
