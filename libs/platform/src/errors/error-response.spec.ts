import { toErrorResponse } from './error-response';
import { ConflictError } from './errors';

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
