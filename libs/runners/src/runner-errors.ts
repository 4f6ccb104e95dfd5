import { ConflictError, GatewayError } from '@svc/platform';

/** SPEC.md "Runner errors", in the gateway error format. */

export function runnerNotFound(runnerId: string): GatewayError {
  return new GatewayError(404, {
    message: `Runner ${runnerId} not found`,
    type: 'not_found_error',
    code: 'runner_not_found',
    param: 'runner_id',
  });
}

export function sessionNotFound(sessionId: string): GatewayError {
  return new GatewayError(404, {
    message: `Session ${sessionId} not found for this runner`,
    type: 'not_found_error',
    code: 'session_not_found',
    param: 'session_id',
  });
}

/**
 * 409 `invalid_state`: the runner (or its session) is not in the state the operation needs, or a
 * concurrent operation won. SPEC.md "Admin conflicts (409)" shape, `{code, message, request_id, ...}`,
 * like every other 409 under `/gateway/admin`; `type`, `param` and `remediation` stay beside them
 * (what this answer carried before it had `request_id`).
 */
export function invalidState(message: string): ConflictError {
  return new ConflictError('invalid_state', message, {
    type: 'conflict_error',
    param: null,
    remediation: 'Read the runner (GET /gateway/admin/runners/{runner_id}) for its current state and version, then retry what still applies.',
  });
}

export function featureDisabled(): GatewayError {
  return new GatewayError(403, {
    message: 'Managed runners are disabled on this deployment (RUNNERS_ENABLED=false)',
    type: 'permission_error',
    code: 'feature_disabled',
    remediation: 'Ask the operator to set RUNNERS_ENABLED=true; GET /gateway/admin/runners/prerequisites lists what is missing.',
  });
}

export function permissionDenied(permission: string, message = `This operation needs the runner permission ${permission}`): GatewayError {
  return new GatewayError(403, {
    message,
    type: 'permission_error',
    code: 'permission_denied',
    remediation:
      'runner:read is allowed for Viewer, Operator and Admin; create, start/stop session and exec for Operator and Admin; terminate for Admin only. ' +
      'A gateway key needs admin:read (read) or admin:write (everything).',
  });
}

export function providerError(providerType: string, runnerId: string, message: string): GatewayError {
  return new GatewayError(502, {
    message: `Runner ${runnerId} failed: provider ${providerType}: ${message}`,
    type: 'api_error',
    code: 'provider_error',
    remediation: 'The runner was marked failed; terminate it and create a new one.',
  });
}

/** A provider the request names that this deployment has not configured (vendor ids, or `local` turned off). */
export function providerNotConfigured(providerType: string, configured: readonly string[]): GatewayError {
  return new GatewayError(400, {
    message: `Runner provider '${providerType}' is not configured on this deployment; configured: ${configured.join(', ')}`,
    type: 'invalid_request_error',
    code: 'provider_not_configured',
    param: 'provider_type',
  });
}

/** 403 when the runner's tool profile refuses a command (an audit `policy_denied` event is written too). */
export function policyDenied(profile: string, reason: string): GatewayError {
  return new GatewayError(403, {
    message: `The ${profile} tool profile refuses this command: ${reason}`,
    type: 'permission_error',
    code: 'policy_denied',
    param: 'argv',
    remediation: 'Use a command the profile allows (docs/runners.md lists them) or a runner with a broader tool_profile.',
  });
}
