import { UNSERVED_V1_ADMIN_CALLS } from '@svc/testing';
import { AdminHarness, CallOptions, gatewayError, GATEWAY_WITH_ADMIN, Reply, startAdmin } from './admin-harness';

/**
 * docs/admin-api.md and docs/gateway-routes.md "Paths no route serves": the gateway admin deployed alone
 * answers a method or path no route serves with 404 `not_found` in the gateway format, worded as the
 * gateway's own refusals (`No route METHOD path`): under `/v1/admin` the very answer of `npm start`'s
 * port (the proxy's refusal), elsewhere the generic one. Never Nest's `Cannot DELETE ...`.
 */
describe('gateway admin: paths no route serves', () => {
  let alone: AdminHarness;
  let withProxy: AdminHarness;
  beforeAll(async () => {
    alone = await startAdmin();
    withProxy = await startAdmin({ definition: GATEWAY_WITH_ADMIN });
  });
  afterAll(async () => {
    await alone?.stop();
    await withProxy?.stop();
  });

  /** The answer without the request id, which differs by request. */
  const comparable = (reply: Reply) => ({ status: reply.status, allow: reply.headers.get('allow'), body: reply.body, requestId: Boolean(reply.headers.get('x-svc-request-id')) });

  it.each(UNSERVED_V1_ADMIN_CALLS)('%s %s: the same 404 as on the gateway port beside the proxy, with or without credentials', async (method, path) => {
    for (const options of [{ key: 'svc_sk_not_a_real_key_at_all_000000000000' }, {}, { body: { url: 'https://8.8.8.8/x' } }, { rawBody: '{"url": ' }] as CallOptions[]) {
      if (method === 'GET' && (options.body !== undefined || options.rawBody !== undefined)) continue;
      const answer = await alone.call(method, path, options);
      const error = gatewayError(answer, 404, 'not_found');
      expect(error).toEqual({
        message: expect.stringContaining(`No route ${method} ${path}. /v1/admin is the gateway admin's, never a provider`),
        type: 'not_found_error',
        code: 'not_found',
        param: null,
        remediation: expect.any(String),
      });
      expect(comparable(answer)).toEqual(comparable(await withProxy.call(method, path, options)));
    }
  });

  it.each([
    ['DELETE', '/gateway/admin/policies'],
    ['GET', '/gateway/admin/policies/'],
    ['GET', '/gateway/admin/not-a-route'],
    ['POST', '/v1/chat/completions'],
    ['GET', '/'],
  ])('%s %s elsewhere: 404 not_found worded `No route`, the query string left out', async (method, path) => {
    const error = gatewayError(await alone.call(method, `${path}?api_key=svc_secret_in_query`), 404, 'not_found');
    expect(error).toEqual({ message: `No route ${method} ${path}; /docs lists every route`, type: 'not_found_error', code: 'not_found', param: null });
  });

  it('answers the 404 whatever the body of a request no route serves holds (malformed JSON included)', async () => {
    const error = gatewayError(await alone.call('DELETE', '/gateway/admin/policies', { rawBody: '{"rpm_limit": ' }), 404, 'not_found');
    expect(error.message).toBe('No route DELETE /gateway/admin/policies; /docs lists every route');
  });

  it('answers the 404 whatever the content type of a request no route serves (malformed ones too); a route that exists still refuses them with 415', async () => {
    const types = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', 'text', 'nonsense', ''];
    // Alone, and beside the proxy as `npm start` composes them (where a `*` parser serves the proxy's raw bodies).
    for (const [deployment, h] of [['alone', alone], ['with the proxy', withProxy]] as const) {
      for (const headers of types.map((type) => ({ 'content-type': type }))) {
        for (const [method, path] of [['POST', '/nope'], ['DELETE', '/gateway/admin/policies'], ['PUT', '/gateway/admin/secrets'], ['POST', '/gateway/admin/not-a-route']]) {
          const error = gatewayError(await h.call(method, path, { rawBody: 'rpm_limit=5', headers }), 404, 'not_found');
          // The same 404 as with a JSON body (`/docs` is named where the deployment serves it).
          const asJson = gatewayError(await h.call(method, path, { rawBody: '{}' }), 404, 'not_found');
          expect({ deployment, headers, error }).toEqual({ deployment, headers, error: { ...asJson, message: expect.stringMatching(new RegExp(`^No route ${method} ${path}(; /docs lists every route)?$`)) } });
          expect(error.message).toBe(asJson.message);
        }
        const routed = gatewayError(await h.call('POST', '/gateway/admin/policies', { rawBody: 'rpm_limit=5', headers }), 415, 'unsupported_media_type');
        expect({ deployment, headers, type: routed.type }).toEqual({ deployment, headers, type: 'invalid_request_error' });
      }
      const unroutedAdmin = gatewayError(await h.call('POST', '/v1/admin/not-a-route', { rawBody: 'x', headers: { 'content-type': 'text' } }), 404, 'not_found');
      expect(unroutedAdmin.message).toContain('No route POST /v1/admin/not-a-route');
    }
  });

  it('an id over the path segment limit on an admin route: 414 uri_too_long worded as on the gateway port', async () => {
    const path = `/v1/admin/api-keys/${'k'.repeat(600)}`;
    const answer = await alone.call('DELETE', path);
    expect(gatewayError(answer, 414, 'uri_too_long').message).toBe('A path segment is longer than the server accepts (at most 512 characters)');
    expect(comparable(answer)).toEqual(comparable(await withProxy.call('DELETE', path)));
  });
});
