import { AdminHarness, gatewayError, startAdmin } from './admin-harness';

/**
 * docs/decisions-services.md "Trailing slash and GET /": only the organization API ignores a trailing slash.
 * The gateway surfaces (this one shares its router with the proxy under `npm start`) keep exact paths.
 */
describe('gateway admin: paths keep their exact form', () => {
  let h: AdminHarness;
  beforeAll(async () => {
    h = await startAdmin();
  });
  afterAll(() => h.stop());

  it('answers a trailing-slash form of a route with its own 404', async () => {
    expect((await h.call('GET', '/gateway/admin/policies')).status).toBe(200);
    const error = gatewayError(await h.call('GET', '/gateway/admin/policies/'), 404, 'not_found');
    expect(error.type).toBe('not_found_error');
  });
});
