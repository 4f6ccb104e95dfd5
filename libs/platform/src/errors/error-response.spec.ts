import { toErrorResponse } from './error-response';
import { ConflictError, GatewayError } from './errors';

describe('toErrorResponse: 409 conflicts', () => {
  const conflict = () => new ConflictError('resource_already_exists', 'An API key named ci exists', { resource_type: 'api_key', conflicting_id: 'key_1' });

  it('keeps the admin conflict shape on the gateway surface', () => {
    expect(toErrorResponse(conflict(), 'gateway', 'gw_1')).toEqual({
      status: 409,
      headers: {},
      body: { error: { code: 'resource_already_exists', message: 'An API key named ci exists', request_id: 'gw_1', resource_type: 'api_key', conflicting_id: 'key_1' } },
    });
  });

  it('adds details (extra fields and request id) on the organization surface, keeping them at the top level', () => {
    expect(toErrorResponse(conflict(), 'org', 'gw_2').body).toEqual({
      error: {
        code: 'resource_already_exists',
        message: 'An API key named ci exists',
        request_id: 'gw_2',
        resource_type: 'api_key',
        conflicting_id: 'key_1',
        details: { request_id: 'gw_2', resource_type: 'api_key', conflicting_id: 'key_1' },
      },
    });
    const bare = toErrorResponse(new ConflictError('secret_already_stored', 'Stored'), 'org', 'gw_3').body;
    expect(bare).toEqual({ error: { code: 'secret_already_stored', message: 'Stored', request_id: 'gw_3', details: { request_id: 'gw_3' } } });
  });
});

describe('GatewayError stacks', () => {
  it('captures no stack for a refusal (4xx) and keeps one for a fault (5xx), leaving the process limit as it was', () => {
    const limit = Error.stackTraceLimit;
    const refusal = new GatewayError(401, { message: 'Invalid API key', type: 'authentication_error', code: 'GW_AUTH_002' });
    const fault = new GatewayError(502, { message: 'Upstream failed', type: 'api_error', code: 'upstream_error' });
    expect(refusal.stack?.split('\n')).toEqual(['GatewayError: Invalid API key']);
    expect(fault.stack?.split('\n').length).toBeGreaterThan(1);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(toErrorResponse(refusal, 'gateway', 'gw_4')).toMatchObject({ status: 401, body: { error: { code: 'GW_AUTH_002', message: 'Invalid API key' } } });
  });
});
