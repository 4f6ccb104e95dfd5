import OpenAI from 'openai';
import { PROVIDER_KEY, Standalone } from './standalone.helpers';

const OWNER = { email: 'limits-owner@example.com', password: 'limits-owner-password-1' };

/**
 * SPEC.md "Limits", outside in: the integer query parameters of the gateway admin and runner
 * surfaces take decimal digits only (as the organization API's do), format-A requests take `null`
 * for the nullable fields the gateway reads, and every 413 states its maximum in bytes and MB.
 */
describe('SPEC.md limits at their boundaries', () => {
  let env: Standalone;
  let runnerId: string;
  let key: string;

  beforeAll(async () => {
    env = await Standalone.boot(OWNER, 'growth');
    const runner = await env.call('gateway', 'POST', '/gateway/admin/runners/', { body: { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 60 } });
    expect(runner.status).toBe(201);
    runnerId = runner.body.runner_id;
    const created = await env.call('org-api', 'POST', '/api/v1/platform/api-keys', { body: { name: 'limits', scopes: ['gateway:write', 'gateway:read'] } });
    key = created.body.key;
  });
  afterAll(() => env.stop());

  describe('integer query parameters of /gateway/admin and its runners are decimal digits', () => {
    const routes = (): [string, string][] => [
      ['/gateway/admin/usage', 'days'],
      ['/gateway/admin/usage', 'limit'],
      ['/gateway/admin/usage', 'offset'],
      ['/gateway/admin/usage/daily', 'days'],
      ['/gateway/admin/latency', 'days'],
      ['/gateway/admin/discovery/catalog', 'limit'],
      ['/gateway/admin/discovery/history', 'limit'],
      ['/gateway/admin/approvals', 'offset'],
      ['/gateway/admin/approvals', 'limit'],
      ['/gateway/admin/runners/', 'limit'],
      ['/gateway/admin/runners/', 'offset'],
      [`/gateway/admin/runners/${runnerId}/events`, 'limit'],
    ];

    it('refuses hex, binary, exponent, fraction, sign, spaces and the empty value with 400 naming the parameter', async () => {
      // Number() reads `0x10` as 16, `1e1` as 10, ` 1` as 1 and `` as 0: none is taken.
      for (const [path, param] of routes()) {
        for (const value of ['0x10', '0b11', '1e1', '10.0', '+5', '%201', '1%20', '']) {
          const res = await env.call('gateway', 'GET', `${path}?${param}=${value}`);
          expect({ path, param, value, status: res.status, error: res.body.error }).toEqual({
            path,
            param,
            value,
            status: 400,
            error: { message: `${param} must be an integer number`, type: 'invalid_request_error', param, code: 'invalid_request' },
          });
        }
      }
    });

    it('takes the bounds of SPEC.md in decimal digits (leading zeros allowed) and refuses one past them', async () => {
      const ok = async (path: string) => {
        const res = await env.call('gateway', 'GET', path);
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        return res.body;
      };
      const refused = async (path: string, param: string, message: string) => {
        const res = await env.call('gateway', 'GET', path);
        expect({ path, status: res.status, param: res.body.error?.param, message: res.body.error?.message }).toEqual({ path, status: 400, param, message });
      };
      expect((await ok('/gateway/admin/usage?days=1&limit=1')).days).toBe(1);
      expect(await ok('/gateway/admin/usage?days=90&limit=1000')).toMatchObject({ days: 90, limit: 1000 });
      expect((await ok('/gateway/admin/usage?days=007')).days).toBe(7);
      await refused('/gateway/admin/usage?days=0', 'days', 'days must not be less than 1');
      await refused('/gateway/admin/usage?days=91', 'days', 'days must not be greater than 90');
      await refused('/gateway/admin/usage?limit=1001', 'limit', 'limit must not be greater than 1000');
      expect((await ok('/gateway/admin/usage/daily?days=90')).items).toHaveLength(90);
      await refused('/gateway/admin/usage/daily?days=91', 'days', 'days must not be greater than 90');
      expect((await ok('/gateway/admin/discovery/catalog')).limit).toBe(200);
      expect((await ok('/gateway/admin/discovery/catalog?limit=1000')).limit).toBe(1000);
      await refused('/gateway/admin/discovery/catalog?limit=0', 'limit', 'limit must not be less than 1');
      expect((await ok('/gateway/admin/runners/')).limit).toBe(100);
      expect((await ok('/gateway/admin/runners/?limit=1000')).limit).toBe(1000);
      await refused('/gateway/admin/runners/?limit=1001', 'limit', 'limit must not be greater than 1000');
      expect((await ok(`/gateway/admin/runners/${runnerId}/events?limit=1`)).events).toHaveLength(1);
      await refused(`/gateway/admin/runners/${runnerId}/events?limit=1001`, 'limit', 'limit must not be greater than 1000');
    });
  });

  describe('format-A fields that take null (OpenAI SDK)', () => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the boiling point of water?' }];
    const client = () => new OpenAI({ apiKey: key, baseURL: `${env.service.urls.gateway}/v1`, defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY }, maxRetries: 0 });
    const estimate = async (extra: Partial<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming>) => {
      const { data, response } = await client()
        .chat.completions.create({ model: 'gpt-4o-mini', messages, ...extra })
        .withResponse();
      expect(data.object).toBe('chat.completion');
      return Number(response.headers.get('x-svc-cost'));
    };

    it('temperature, max_tokens and max_completion_tokens null are as if left out: served, estimated at 4096 output tokens', async () => {
      const unset = await estimate({});
      expect(unset).toBeGreaterThan(0);
      expect(await estimate({ max_tokens: 4096 })).toBe(unset);
      expect(await estimate({ temperature: null, max_tokens: null, max_completion_tokens: null })).toBe(unset);
      expect(await estimate({ temperature: null })).toBe(unset);
      // A value sent next to a null one still counts.
      expect(await estimate({ max_tokens: null, max_completion_tokens: 10 })).toBeLessThan(unset);
    });

    it('temperature 0 and 2 are served; just outside 0-2 is a 400 naming temperature', async () => {
      expect(await estimate({ temperature: 0 })).toBeGreaterThan(0);
      expect(await estimate({ temperature: 2 })).toBeGreaterThan(0);
      for (const temperature of [-0.01, 2.01]) {
        const error = await client()
          .chat.completions.create({ model: 'gpt-4o-mini', messages, temperature })
          .then(() => null, (e: unknown) => e);
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ param: 'temperature', code: 'invalid_request', type: 'invalid_request_error' });
      }
    });
  });

  it('a budget name of 1-120 characters counts code points: 120 emoji or accented letters pass, 121 do not', async () => {
    const create = (name: string) => env.call('org-api', 'POST', '/api/v1/admin/costs/budgets', { body: { name, limit: 10, alerts: [{ threshold: 100, channels: ['email'] }] } });
    for (const name of ['\u{1F600}'.repeat(120), '\u00e9'.repeat(120), 'n'.repeat(120), 'x']) {
      const res = await create(name);
      expect({ status: res.status, name: res.body.name }).toEqual({ status: 200, name });
    }
    // An accent written as a combining mark is a code point of its own: 60 × (e + U+0301) is 120.
    expect((await create('e\u0301'.repeat(60))).status).toBe(200);
    for (const name of ['\u{1F600}'.repeat(121), '\u00e9'.repeat(121), 'e\u0301'.repeat(61), '']) {
      const res = await create(name);
      expect({ status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param }).toEqual({ status: 400, code: 'VALIDATION_ERROR', param: 'name' });
    }
    const threshold = await create('thresholds');
    expect(threshold.body.alerts[0].threshold).toBe(100);
    const zero = await env.call('org-api', 'PUT', `/api/v1/admin/costs/budgets/${threshold.body.id}`, { body: { alerts: [{ threshold: 0, channels: ['email'] }] } });
    expect({ status: zero.status, threshold: zero.body.alerts?.[0]?.threshold }).toEqual({ status: 200, threshold: 0 });
    for (const value of [-0.5, 100.5]) {
      const res = await env.call('org-api', 'PUT', `/api/v1/admin/costs/budgets/${threshold.body.id}`, { body: { alerts: [{ threshold: value, channels: ['email'] }] } });
      expect({ status: res.status, param: res.body.error?.details?.param }).toEqual({ status: 400, param: 'alerts.0.threshold' });
    }
  });

  it('a body above the admin surfaces\' limit is 413 stating the maximum in bytes and MB', async () => {
    const body = { name: 'x'.repeat(1024 * 1024 + 10), limit: 1 };
    const admin = await env.call('gateway', 'POST', '/gateway/admin/policies', { body });
    expect({ status: admin.status, error: admin.body.error }).toEqual({
      status: 413,
      error: { message: 'Request body is too large (limit 1048576 bytes, 1 MB)', type: 'invalid_request_error', param: null, code: 'request_too_large' },
    });
    const org = await env.call('org-api', 'POST', '/api/v1/admin/costs/budgets', { body });
    expect({ status: org.status, error: org.body.error }).toEqual({
      status: 413,
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large (limit 1048576 bytes, 1 MB)', details: {} },
    });
  });
});
