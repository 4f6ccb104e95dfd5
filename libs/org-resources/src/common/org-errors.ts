import { OrgApiError } from '@svc/platform';

/** The organization API's refusals (SPEC.md "Organization API error format"), one place for codes. */
export const orgErrors = {
  unauthorized: (message = 'Missing or invalid credentials', details: Record<string, unknown> = {}) =>
    new OrgApiError(401, 'UNAUTHORIZED', message, details),
  forbidden: (message: string, details: Record<string, unknown> = {}) => new OrgApiError(403, 'FORBIDDEN', message, details),
  /** Unknown ids and other organizations' ids look the same. */
  notFound: (what: string, id?: string) =>
    new OrgApiError(404, 'NOT_FOUND', `${what} not found`, id === undefined ? {} : { id }),
  validation: (message: string, param: string | null = null, details: Record<string, unknown> = {}) =>
    new OrgApiError(400, 'VALIDATION_ERROR', message, { ...(param ? { param } : {}), ...details }),
  conflict: (code: string, message: string, details: Record<string, unknown> = {}) => new OrgApiError(409, code, message, details),
  gone: (message: string) => new OrgApiError(410, 'GONE', message),
  rateLimited: (message: string, retryAfter: number, headers: Record<string, string> = {}) =>
    new OrgApiError(429, 'RATE_LIMIT_EXCEEDED', message, { retry_after: retryAfter }, { 'Retry-After': String(retryAfter), ...headers }),
};
