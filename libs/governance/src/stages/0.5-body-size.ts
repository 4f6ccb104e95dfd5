import { GatewayError, megabytes } from '@svc/platform';
import { ALLOW, ChainContext, StageResult } from '../chain/context';

/**
 * The 413 of SPEC.md: the limit in bytes and in MB. The proxy raises it while reading the body
 * (Content-Length first, then counted bytes), so a huge body is never buffered to be refused;
 * `bodySizeStage` applies the same rule to a body already read (simulation, completeness).
 */
export function requestTooLarge(limitBytes: number, actualBytes?: number): GatewayError {
  const size = actualBytes === undefined ? 'The request body' : `The request body of ${actualBytes} bytes`;
  return new GatewayError(413, {
    message: `${size} exceeds the maximum size of ${limitBytes} bytes (${megabytes(limitBytes)} MB).`,
    type: 'invalid_request_error',
    code: 'request_too_large',
    remediation: 'Send a smaller body (fewer or shorter messages, smaller attachments), or ask an admin to raise max_body_bytes (at most 200 MB).',
  });
}

/** Stage 0.5: the body against the organization's effective limit (policy `max_body_bytes`). */
export function bodySizeStage(ctx: ChainContext): StageResult {
  const limit = ctx.policy.max_body_bytes;
  if (ctx.input.bodyBytes <= limit && !ctx.input.bodyIncomplete) return ALLOW;
  // A body refused while it was read has no known size (the rest was never received).
  return { outcome: 'BLOCK', error: requestTooLarge(limit, ctx.input.bodyIncomplete ? undefined : ctx.input.bodyBytes) };
}
