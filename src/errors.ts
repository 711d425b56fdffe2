/** Error codes of the API's error body, with the HTTP status each maps to. */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal: 500,
  not_implemented: 501,
  // Beyond the usual list: /readyz when a check fails, or a write when the database cannot take one.
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
  /** `rate_limited`: the quota that was reached. */
  limit?: number;
  /** `rate_limited`: when the quota starts again (ISO-8601). */
  resets_at?: string;
}

/** The one error class: a code from the API's list, a human sentence, optional details. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Sent as `Retry-After` (seconds): when trying again can succeed. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what: string, id: string) => new AppError('not_found', `${what} "${id}" does not exist.`);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const badRequest = (message: string, details?: ErrorDetail[]) => new AppError('bad_request', message, details);
