import { HttpException } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { MAX_PARAM_LENGTH } from '../http/router-limits';
import { safeEchoedText } from './echoed-text';
import { ConflictError, ErrorSurface, GatewayError, GatewayErrorBody, MalformedJsonError, OrgApiError } from './errors';

export interface ErrorResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** Set for 5xx: the id printed to the client and logged with the stack. */
  errorId?: string;
}

interface Generic {
  status: number;
  gatewayType: string;
  gatewayCode: string;
  orgCode: string;
  message: string;
  param: string | null;
}

const STATUS_NAMES: Record<number, Omit<Generic, 'status' | 'message' | 'param'>> = {
  400: { gatewayType: 'invalid_request_error', gatewayCode: 'invalid_request', orgCode: 'VALIDATION_ERROR' },
  401: { gatewayType: 'authentication_error', gatewayCode: 'invalid_api_key', orgCode: 'UNAUTHORIZED' },
  403: { gatewayType: 'permission_error', gatewayCode: 'permission_denied', orgCode: 'FORBIDDEN' },
  404: { gatewayType: 'not_found_error', gatewayCode: 'not_found', orgCode: 'NOT_FOUND' },
  405: { gatewayType: 'invalid_request_error', gatewayCode: 'method_not_allowed', orgCode: 'METHOD_NOT_ALLOWED' },
  408: { gatewayType: 'invalid_request_error', gatewayCode: 'request_timeout', orgCode: 'REQUEST_TIMEOUT' },
  409: { gatewayType: 'conflict_error', gatewayCode: 'conflict', orgCode: 'CONFLICT' },
  410: { gatewayType: 'invalid_request_error', gatewayCode: 'gone', orgCode: 'GONE' },
  413: { gatewayType: 'invalid_request_error', gatewayCode: 'request_too_large', orgCode: 'PAYLOAD_TOO_LARGE' },
  414: { gatewayType: 'invalid_request_error', gatewayCode: 'uri_too_long', orgCode: 'URI_TOO_LONG' },
  415: { gatewayType: 'invalid_request_error', gatewayCode: 'unsupported_media_type', orgCode: 'UNSUPPORTED_MEDIA_TYPE' },
  431: { gatewayType: 'invalid_request_error', gatewayCode: 'headers_too_large', orgCode: 'HEADERS_TOO_LARGE' },
  429: { gatewayType: 'rate_limit_error', gatewayCode: 'rate_limit', orgCode: 'RATE_LIMIT_EXCEEDED' },
  502: { gatewayType: 'api_error', gatewayCode: 'upstream_error', orgCode: 'UPSTREAM_UNAVAILABLE' },
  503: { gatewayType: 'service_unavailable', gatewayCode: 'service_unavailable', orgCode: 'SERVICE_UNAVAILABLE' },
};

/** Fastify's own errors (body parsing, content type, size) by their `code`. */
const FASTIFY_CODES: Record<string, { status: number; gatewayCode: string; orgCode: string; message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, gatewayCode: 'invalid_json', orgCode: 'INVALID_JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    gatewayCode: 'invalid_json',
    orgCode: 'INVALID_JSON',
    message: 'Body cannot be empty when Content-Type is application/json',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, gatewayCode: 'unsupported_media_type', orgCode: 'UNSUPPORTED_MEDIA_TYPE' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, gatewayCode: 'invalid_request', orgCode: 'VALIDATION_ERROR' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, gatewayCode: 'request_too_large', orgCode: 'PAYLOAD_TOO_LARGE' },
  // The router's own refusals (createHttpApp's frameworkErrors), before any route or hook runs.
  FST_ERR_BAD_URL: { status: 400, gatewayCode: 'invalid_request', orgCode: 'VALIDATION_ERROR', message: 'The path is not valid percent-encoding' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, gatewayCode: 'uri_too_long', orgCode: 'URI_TOO_LONG', message: `A path segment is longer than the server accepts (at most ${MAX_PARAM_LENGTH} characters)` },
};

function classify(error: unknown): Generic | null {
  if (error instanceof MalformedJsonError) {
    return { ...STATUS_NAMES[400], gatewayCode: 'invalid_json', orgCode: 'INVALID_JSON', status: 400, message: error.message, param: null };
  }
  const fastify = error as { code?: string; statusCode?: number; message?: string };
  if (fastify && typeof fastify.code === 'string' && FASTIFY_CODES[fastify.code]) {
    const known = FASTIFY_CODES[fastify.code];
    const names = STATUS_NAMES[known.status];
    return {
      ...names,
      status: known.status,
      gatewayCode: known.gatewayCode,
      orgCode: known.orgCode,
      message: known.message ?? fastify.message ?? 'Bad request',
      param: null,
    };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    let message = error.message;
    let param: string | null = null;
    if (typeof response === 'object' && response !== null) {
      const r = response as { message?: unknown; param?: unknown };
      if (Array.isArray(r.message)) message = r.message.join('; ');
      else if (typeof r.message === 'string') message = r.message;
      if (typeof r.param === 'string') param = r.param;
    }
    const names = STATUS_NAMES[status] ?? STATUS_NAMES[status >= 500 ? 503 : 400];
    return { status, message, param, ...names };
  }
  if (fastify && typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    const names = STATUS_NAMES[fastify.statusCode] ?? STATUS_NAMES[400];
    return { ...names, status: fastify.statusCode, message: fastify.message ?? 'Bad request', param: null };
  }
  return null;
}

export function newErrorId(): string {
  return `err_${randomBytes(8).toString('hex')}`;
}

/**
 * An organization API refusal answered on a gateway surface (`/v1/admin/...`): the gateway's type
 * and code, `param` from its details. A 403 is `insufficient_lifetime` for an `expires_at` past the
 * calling key's own, else `insufficient_scope` (a key granting scopes it does not hold), as on key
 * rotation.
 */
function gatewayBodyOf(error: OrgApiError, message: string): GatewayErrorBody {
  const param = typeof error.details['param'] === 'string' ? error.details['param'] : notFoundParam(error);
  if (error.status === 403) {
    return { message, type: 'permission_error', code: param === 'expires_at' ? 'insufficient_lifetime' : 'insufficient_scope', param };
  }
  const names = STATUS_NAMES[error.status] ?? STATUS_NAMES[400];
  // The status's own code (VALIDATION_ERROR, NOT_FOUND, ...) becomes the gateway's name for it; any other keeps its name, lower-cased.
  const code = names.orgCode === error.code ? names.gatewayCode : error.code.toLowerCase();
  return { message, type: names.gatewayType, code, param };
}

/**
 * An organization API 404 names what it did not find by `details.id`: on the gateway surfaces (the
 * `/v1/admin/api-keys/{id}` and `/v1/admin/webhooks/{id}` routes, which share those services) that
 * is the path parameter `id`, named in `param` as every `/gateway/admin` 404 names its own.
 */
function notFoundParam(error: OrgApiError): string | null {
  return error.status === 404 && typeof error.details['id'] === 'string' ? 'id' : null;
}

/**
 * An organization API error's details, with an echoed `id` made safe as its message is. Every
 * message of every surface's errors passes through `safeEchoedText` (a 404's path segment, a 400's
 * model name or field): one place, whatever the status.
 */
function shownDetails(error: OrgApiError): Record<string, unknown> {
  const id = error.details['id'];
  return typeof id === 'string' ? { ...error.details, id: safeEchoedText(id) } : error.details;
}

/** Turns anything thrown into the documented body of the surface. Unknown errors become a 500 with an error id. */
export function toErrorResponse(error: unknown, surface: ErrorSurface, requestId: string): ErrorResponse {
  if (error instanceof GatewayError) {
    const message = safeEchoedText(error.body.message);
    if (surface === 'gateway') {
      const body = message === error.body.message ? error.body : { ...error.body, message };
      return { status: error.status, body: { error: body }, headers: error.headers };
    }
    return {
      status: error.status,
      body: { error: { code: error.body.code, message, details: {} } },
      headers: error.headers,
    };
  }
  if (error instanceof OrgApiError) {
    const message = safeEchoedText(error.message);
    if (surface === 'org') {
      return {
        status: error.status,
        body: { error: { code: error.code, message, details: shownDetails(error) } },
        headers: error.headers,
      };
    }
    return { status: error.status, body: { error: gatewayBodyOf(error, message) }, headers: error.headers };
  }
  if (error instanceof ConflictError) {
    // SPEC.md "Admin conflicts": the extra fields sit beside code and message. The organization
    // API's format also promises `details`, so there they are repeated in it.
    const extra = { request_id: requestId, ...error.extra };
    const body = surface === 'org' ? { code: error.code, message: error.message, ...extra, details: extra } : { code: error.code, message: error.message, ...extra };
    return { status: 409, body: { error: body }, headers: {} };
  }
  const generic = classify(error);
  if (generic && generic.status < 500) {
    generic.message = safeEchoedText(generic.message);
    if (surface === 'gateway') {
      const body: GatewayErrorBody = {
        message: generic.message,
        type: generic.gatewayType,
        param: generic.param,
        code: generic.gatewayCode,
      };
      return { status: generic.status, body: { error: body }, headers: {} };
    }
    return {
      status: generic.status,
      body: { error: { code: generic.orgCode, message: generic.message, details: generic.param ? { param: generic.param } : {} } },
      headers: {},
    };
  }
  const status = generic?.status ?? 500;
  const errorId = newErrorId();
  const message =
    status === 500 ? `Internal error (error id ${errorId}); the service logged the details` : generic?.message ?? 'Service unavailable';
  if (surface === 'gateway') {
    const body: GatewayErrorBody = {
      message,
      type: status === 500 ? 'api_error' : generic?.gatewayType ?? 'api_error',
      param: null,
      code: status === 500 ? 'internal_error' : generic?.gatewayCode ?? 'internal_error',
    };
    return { status, body: { error: body }, headers: {}, errorId };
  }
  return {
    status,
    body: { error: { code: status === 500 ? 'INTERNAL_ERROR' : generic?.orgCode ?? 'INTERNAL_ERROR', message, details: { error_id: errorId } } },
    headers: {},
    errorId,
  };
}
