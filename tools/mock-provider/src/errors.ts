/**
 * Error bodies in each provider's own format, used for authentication errors, validation errors and
 * injected failures.
 */
import type { WireFormat } from './types';

const OPENAI_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'permission_denied',
  404: 'invalid_request_error',
  409: 'conflict',
  422: 'invalid_request_error',
  429: 'requests',
};

const OPENAI_CODES: Record<number, string> = {
  401: 'invalid_api_key',
  404: 'not_found',
  429: 'rate_limit_exceeded',
};

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const GOOGLE_STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

function defaultMessage(status: number): string {
  if (status === 429) return 'Rate limit reached (mock provider).';
  if (status === 529) return 'Overloaded (mock provider).';
  if (status >= 500) return 'The server had an error while processing your request (mock provider).';
  return `Request failed with status ${status} (mock provider).`;
}

export interface OpenAIErrorExtras {
  type?: string;
  param?: string | null;
  code?: string | null;
}

export function openaiError(status: number, message?: string, extras: OpenAIErrorExtras = {}): unknown {
  const type = extras.type ?? OPENAI_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
  const code = extras.code !== undefined ? extras.code : (OPENAI_CODES[status] ?? null);
  return { error: { message: message ?? defaultMessage(status), type, param: extras.param ?? null, code } };
}

export function anthropicError(status: number, message?: string, type?: string): unknown {
  const errorType = type ?? ANTHROPIC_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type: errorType, message: message ?? defaultMessage(status) } };
}

export function googleError(status: number, message?: string, details?: unknown[]): unknown {
  const statusName = GOOGLE_STATUSES[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
  const error: Record<string, unknown> = { code: status, message: message ?? defaultMessage(status), status: statusName };
  if (details) error['details'] = details;
  return { error };
}

/** The error body a provider of `format` would send for `status`. */
export function errorBody(format: WireFormat, status: number, message?: string): unknown {
  switch (format) {
    case 'anthropic':
      return anthropicError(status, message);
    case 'gemini':
      return googleError(status, message);
    case 'ollama':
      return { error: message ?? defaultMessage(status) };
    default:
      return openaiError(status, message);
  }
}
