/**
 * The one error type of the service. Everything thrown towards a client is an AppError
 * (or becomes a 500 with a generic message): the HTTP error handler maps it to the spec's envelope.
 */
export class AppError extends Error {
  constructor(
    readonly code: string,
    readonly statusCode: number,
    message: string,
    /** Extra envelope fields, e.g. `quota` on 402 answers. Never internal details. */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (what = 'Resource') => new AppError('NOT_FOUND', 404, `${what} not found`);
