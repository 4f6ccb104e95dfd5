import { asOrgId } from '@svc/domain';
import { AdminHarness, gatewayError, Json, startAdmin } from './admin-harness';

/** A public address literal: no DNS needed, passes the outbound checks (nothing is sent there). */
const PUBLIC = 'https://93.184.216.34';
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

/**
 * Input hygiene of the gateway admin surface: a field named like an `Object.prototype` member is an
 * unknown field at every depth (class-transformer dropped it below the top level), a 404 echoes path
 * text made safe, and a 404 of `/v1/admin/api-keys/{id}` names its parameter as `/gateway/admin` does.
 */
describe('gateway admin: input hygiene', () => {
  let h: AdminHarness;
  beforeAll(async () => {
    h = await startAdmin();
  });
  afterAll(() => h.stop());

  /** The body as written: `__proto__` survives only in JSON text, not in an object literal. */
  const raw = (method: string, path: string, rawBody: string) => h.call(method, path, { rawBody });

  it('refuses a prototype-named field inside a policy simulation draft_policy with 400 naming its path', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const res = await raw('POST', '/gateway/admin/policies/simulate', `{"draft_policy":{"rpm_limit":5,"${name}":1}}`);
      const error = gatewayError(res, 400, 'invalid_request');
      expect({ name, param: error.param, message: error.message }).toEqual({ name, param: `draft_policy.${name}`, message: `property draft_policy.${name} should not exist` });
    }
    // The draft without it is simulated as before.
    expect((await raw('POST', '/gateway/admin/policies/simulate', '{"draft_policy":{"rpm_limit":5}}')).status).toBe(200);
  });

  it("refuses a prototype-named header in a provider target's headers on create and update, nothing stored", async () => {
    for (const name of PROTOTYPE_NAMES) {
      const created = await raw('POST', '/gateway/admin/provider-targets', `{"name":"proto-${name}","base_url":"${PUBLIC}/v1","headers":{"x-team":"ml","${name}":"x"}}`);
      expect({ name, param: gatewayError(created, 400, 'invalid_request').param }).toEqual({ name, param: `headers.${name}` });
    }
    const list = await h.call('GET', '/gateway/admin/provider-targets');
    expect(list.body.items.filter((t: Json) => String(t.name).startsWith('proto-'))).toEqual([]);

    const target = await h.call('POST', '/gateway/admin/provider-targets', { body: { name: 'Header lab', base_url: `${PUBLIC}/v1`, headers: { 'x-team': 'ml' } } });
    expect(target.status).toBe(201);
    const patched = await raw('PATCH', `/gateway/admin/provider-targets/${target.body.id}`, '{"headers":{"x-team":"ai","constructor":"x"}}');
    expect(gatewayError(patched, 400, 'invalid_request').param).toBe('headers.constructor');
    expect((await h.call('GET', `/gateway/admin/provider-targets/${target.body.id}`)).body.headers).toEqual({ 'x-team': 'ml' });
  });

  it('echoes path text in a 404 with control, bidirectional and separator characters escaped, and long text shortened', async () => {
    const cases: [string, string][] = [
      ['%E2%80%AE', 'Stored key for provider \\u202e not found'],
      ['a%0Ab%0D%E2%80%A8c%E2%81%A6', 'Stored key for provider a\\u000ab\\u000d\\u2028c\\u2066 not found'],
      ['%C2%85%7F%1B', 'Stored key for provider \\u0085\\u007f\\u001b not found'],
    ];
    for (const [segment, message] of cases) {
      const error = gatewayError(await h.call('DELETE', `/gateway/admin/secrets/${segment}`), 404, 'not_found');
      expect({ segment, message: error.message, param: error.param }).toEqual({ segment, message, param: 'provider' });
    }
    // Right-to-left marks and other text stay as they are.
    expect(gatewayError(await h.call('DELETE', '/gateway/admin/secrets/%D7%A9%E2%80%8F'), 404).message).toBe('Stored key for provider ש\u200f not found');
    const long = gatewayError(await h.call('DELETE', `/gateway/admin/secrets/${'p'.repeat(500)}`), 404).message as string;
    expect(long.length).toBeLessThanOrEqual('Stored key for provider  not found'.length + 120);
    expect(long).toMatch(/^Stored key for provider p+…p+ not found$/);
  });

  it("DELETE /v1/admin/api-keys/{id} of another organization's key: 404 naming id in param, as /gateway/admin names its own", async () => {
    const theirs = await h.newKey(h.other.id, ['gateway:read'], { name: 'not-yours' });
    const deleted = gatewayError(await h.call('DELETE', `/v1/admin/api-keys/${theirs.key._id}`), 404, 'not_found');
    expect({ type: deleted.type, param: deleted.param }).toEqual({ type: 'not_found_error', param: 'id' });
    const rotated = gatewayError(await h.call('POST', `/gateway/admin/keys/${theirs.key._id}/rotate`, { body: {} }), 404, 'not_found');
    expect({ type: rotated.type, param: rotated.param }).toEqual({ type: 'not_found_error', param: 'key_id' });
    const webhook = gatewayError(await h.call('PATCH', '/v1/admin/webhooks/wh_none', { body: { events: ['budget.exceeded'] } }), 404, 'not_found');
    expect(webhook.param).toBe('id');
    expect((await h.repos.apiKeys.findById(asOrgId(h.other.id), theirs.key._id))?.status).toBe('active');
  });
});
