/** Which documented error body a surface speaks (SPEC.md "Errors"). */
export type ErrorSurface = 'gateway' | 'org';

/** `{error: {...}}` body of the gateway surfaces (proxy, gateway admin, runners). */
export interface GatewayErrorBody {
  message: string;
  type: string;
  param: string | null;
  code: string;
  gateway_error_code?: string;
  remediation?: string;
}

/** A refusal of the gateway surfaces, rendered as SPEC.md's gateway error format. */
export class GatewayError extends Error {
  readonly status: number;
  readonly body: GatewayErrorBody;
  readonly headers: Record<string, string>;
  constructor(status: number, body: Omit<GatewayErrorBody, 'param'> & { param?: string | null }, headers: Record<string, string> = {}) {
    // A refusal (4xx) is an answer, not a fault: nobody reads its stack, and capturing one costs
    // 2-6 µs here, several per cent of a request refused at authentication. A 5xx keeps its stack.
    const stackTraceLimit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    super(body.message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'GatewayError';
    this.status = status;
    this.body = { ...body, param: body.param ?? null };
    this.headers = headers;
  }
}

/** A refusal of the organization API: `{error: {code, message, details}}`. */
export class OrgApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'OrgApiError';
  }
}

/**
 * A 409 of SPEC.md "Admin conflicts": `{error: {code, message, request_id, ...extra}}` on either surface.
 */
export class ConflictError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ConflictError';
  }
}

/** The gateway's 404 for an id the caller's organization does not own (or that does not exist). */
export function notFound(what: string, param: string | null = null): GatewayError {
  return new GatewayError(404, {
    message: `${what} not found`,
    type: 'not_found_error',
    code: 'not_found',
    param,
  });
}

/** The gateway's 400 for a request field that fails validation. */
export function invalidRequest(message: string, param: string | null = null, code = 'invalid_request'): GatewayError {
  return new GatewayError(400, { message, type: 'invalid_request_error', code, param });
}

/** The request body is not valid JSON (raised by our JSON parser so the code survives Nest's mapping). */
export class MalformedJsonError extends Error {
  readonly status = 400;
  constructor(message: string) {
    super(message);
    this.name = 'MalformedJsonError';
  }
}
