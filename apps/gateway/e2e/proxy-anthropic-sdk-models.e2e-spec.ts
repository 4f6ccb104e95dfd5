import Anthropic from '@anthropic-ai/sdk';
import { anthropicFailure, GatewayHarness, Json, PROVIDER_KEY, startGateway } from './harness';

/** The B provider's catalog models, in the registry's order. */
const CLAUDE = ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-3-5-haiku-latest'];

/**
 * The official Anthropic SDK's `models.list()` and `models.retrieve()` with the SDK-style base
 * `{base_url}/v1/anthropic` (docs/gateway-routes.md "The Anthropic SDK on the B routes"): the B provider's
 * models in the Models API's own format and paging, served from the registry with scope
 * gateway:read, nothing sent upstream.
 */
describe('gateway with the Anthropic SDK: models.list() and models.retrieve()', () => {
  let gw: GatewayHarness;
  /** Every URL the SDK requested, in order. */
  let requested: string[];
  const client = (options: ConstructorParameters<typeof Anthropic>[0] = {}) =>
    new Anthropic({
      apiKey: gw.key,
      baseURL: `${gw.url}/v1/anthropic`,
      maxRetries: 0,
      fetch: (url: string | URL | Request, init?: RequestInit) => {
        requested.push(String(url).slice(gw.url.length));
        return fetch(url, init);
      },
      ...options,
    });

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => {
    gw.mock.reset();
    requested = [];
  });

  it("lists the B provider's models in the Models API's format, paged with limit, after_id and before_id", async () => {
    const sdk = client();
    const all: Anthropic.ModelInfo[] = [];
    for await (const model of sdk.models.list()) all.push(model);
    expect(all.map((model) => model.id)).toEqual(CLAUDE);
    for (const model of all) {
      expect(Object.keys(model).sort()).toEqual(['created_at', 'display_name', 'id', 'type']);
      expect(model.type).toBe('model');
      expect(model.display_name.length).toBeGreaterThan(0);
      expect(Number.isNaN(Date.parse(model.created_at))).toBe(false);
    }
    expect(requested).toEqual(['/v1/anthropic/v1/models']);

    // One model per page: the SDK follows has_more and last_id, one request per page.
    requested = [];
    const first = await sdk.models.list({ limit: 1 });
    expect(first).toMatchObject({ has_more: true, first_id: CLAUDE[0], last_id: CLAUDE[0] });
    expect(first.data.map((model) => model.id)).toEqual([CLAUDE[0]]);
    const paged: string[] = [];
    for await (const model of sdk.models.list({ limit: 1 })) paged.push(model.id);
    expect(paged).toEqual(CLAUDE);
    expect(requested.slice(1)).toEqual([
      '/v1/anthropic/v1/models?limit=1',
      `/v1/anthropic/v1/models?limit=1&after_id=${CLAUDE[0]}`,
      `/v1/anthropic/v1/models?limit=1&after_id=${CLAUDE[1]}`,
    ]);
    const last = await sdk.models.list({ limit: 2, after_id: CLAUDE[0] });
    expect(last).toMatchObject({ has_more: false, first_id: CLAUDE[1], last_id: CLAUDE[2] });
    expect(last.hasNextPage()).toBe(false);

    // Backwards from before_id: the page immediately before it, then the SDK follows first_id.
    const backwards: string[] = [];
    for await (const model of sdk.models.list({ limit: 1, before_id: CLAUDE[2] })) backwards.push(model.id);
    expect(backwards).toEqual([CLAUDE[1], CLAUDE[0]]);
    expect(gw.mock.requests).toEqual([]);
  });

  it('refuses a limit out of 1-1000 and a cursor that is not a listed model: 400 BadRequestError in the gateway format', async () => {
    const sdk = client();
    const cases: [string, Promise<unknown>][] = [
      ['limit', sdk.models.list({ limit: 0 })],
      ['limit', sdk.models.list({ limit: 1001 })],
      ['after_id', sdk.models.list({ after_id: 'gpt-4o' })],
      ['before_id', sdk.models.list({ after_id: CLAUDE[0], before_id: CLAUDE[2] })],
    ];
    for (const [param, call] of cases) {
      const err = await anthropicFailure(call);
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
      expect(err.error).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_request', param } });
      expect(err.headers?.get('x-svc-request-id')).toMatch(/^gw_/);
    }
    const res = await fetch(`${gw.url}/v1/anthropic/v1/models?limit=ten`, { headers: { 'x-api-key': gw.key } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.message).toContain('limit must be an integer from 1 to 1000');
  });

  it("retrieves a listed model as its list entry; an unknown id or another provider's model is 404 model_not_found", async () => {
    const sdk = client();
    const listed = (await sdk.models.list()).data;
    for (const entry of listed) {
      const { data, response } = await sdk.models.retrieve(entry.id).withResponse();
      expect(data).toEqual(entry);
      expect(response.headers.get('x-gateway-org')).toBe(gw.orgId);
    }
    expect(requested.at(-1)).toBe(`/v1/anthropic/v1/models/${CLAUDE[2]}`);
    for (const id of ['claude-unknown-9', 'gpt-4o', 'groq/llama-3.3-70b-versatile']) {
      const err = await anthropicFailure(sdk.models.retrieve(id));
      expect(err).toBeInstanceOf(Anthropic.NotFoundError);
      expect(err.type).toBe('not_found_error');
      expect(err.apiMessage).toBe(`The model '${id}' is not listed. GET /v1/anthropic/v1/models lists the models of anthropic.`);
      expect(err.error).toMatchObject({ error: { code: 'model_not_found', param: 'model' } });
    }
    expect(gw.mock.requests).toEqual([]);
  });

  it('needs a gateway key (Authorization or x-api-key) with gateway:read; a read-only key lists and retrieves', async () => {
    // The SDK's apiKey is then an Anthropic key: no gateway key, 401 naming x-api-key among the locations.
    const anonymous = client({ apiKey: 'sk-ant-provider-only', defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY } });
    for (const call of [anonymous.models.list(), anonymous.models.retrieve(CLAUDE[0])]) {
      const err = await anthropicFailure(call);
      expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
      expect(err.apiMessage).toMatch(/^Missing gateway API key\. .*the x-api-key header/);
      expect(err.error).toMatchObject({ error: { code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_001' } });
    }

    const readOnly = client({ apiKey: await gw.newKey(['gateway:read']) });
    expect((await readOnly.models.list()).data.map((model) => model.id)).toEqual(CLAUDE);
    expect((await readOnly.models.retrieve(CLAUDE[1])).id).toBe(CLAUDE[1]);
    // Read-only: the same key may not send a message.
    const write = await anthropicFailure(readOnly.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
    expect(write).toBeInstanceOf(Anthropic.PermissionDeniedError);

    const noRead = client({ apiKey: await gw.newKey(['billing:read']) });
    for (const call of [noRead.models.list(), noRead.models.retrieve(CLAUDE[0])]) {
      expect(await anthropicFailure(call)).toBeInstanceOf(Anthropic.PermissionDeniedError);
    }

    // Older SDKs and curl send the key as x-api-key, read as on every B route.
    for (const path of ['/v1/anthropic/v1/models', `/v1/anthropic/v1/models/${CLAUDE[0]}`]) {
      const res = await fetch(`${gw.url}${path}`, { headers: { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' } });
      expect([path, res.status]).toEqual([path, 200]);
    }
    expect(gw.mock.requests).toEqual([]);
  });

  it('keeps the other bases: A and C providers answer format A at the SDK-style path, a D provider forwards it, the root lists in format A', async () => {
    const gemini = await fetch(`${gw.url}/v1/gemini/v1/models/gemini-2.5-flash`, { headers: { authorization: `Bearer ${gw.key}` } });
    expect([gemini.status, await gemini.json()]).toEqual([200, expect.objectContaining({ id: 'gemini-2.5-flash', object: 'model', owned_by: 'gemini' })]);
    const openaiMissing = await fetch(`${gw.url}/v1/openai/v1/models/claude-sonnet-4-5`, { headers: { authorization: `Bearer ${gw.key}` } });
    expect([openaiMissing.status, ((await openaiMissing.json()) as Json).error.code]).toEqual([404, 'model_not_found']);

    const mistral = await fetch(`${gw.url}/v1/mistral/v1/models/mistral-unlisted`, { headers: { authorization: `Bearer ${gw.key}`, 'x-provider-key': PROVIDER_KEY } });
    await mistral.arrayBuffer();
    expect(gw.mock.requests.map((request) => request.path)).toEqual(['/v1/v1/models/mistral-unlisted']);

    // baseURL {base_url}: the SDK reads GET /v1/models, the gateway's own list in format A (SPEC.md).
    const root = client({ baseURL: gw.url });
    const page = await root.models.list({ limit: 1 });
    expect(page.data.length).toBeGreaterThan(CLAUDE.length);
    expect(page.data[0]).toMatchObject({ object: 'model', created: 0 });
    expect(page.hasNextPage()).toBe(false);
    expect(await root.models.retrieve(CLAUDE[0])).toMatchObject({ id: CLAUDE[0], object: 'model', owned_by: 'anthropic' });

    // Older SDKs and curl send the key as x-api-key at the root base too; without a key the 401 names it.
    for (const path of ['/v1/models', `/v1/models/${CLAUDE[0]}`, '/v1/models/groq/llama-3.3-70b-versatile']) {
      const res = await fetch(`${gw.url}${path}`, { headers: { 'x-api-key': gw.key, 'anthropic-version': '2023-06-01' } });
      expect([path, res.status, res.headers.get('x-gateway-org')]).toEqual([path, 200, gw.orgId]);
    }
    const keyless = await fetch(`${gw.url}/v1/models`, { headers: { 'x-api-key': 'sk-ant-provider-only' } });
    expect([keyless.status, ((await keyless.json()) as Json).error.message]).toEqual([401, expect.stringMatching(/^Missing gateway API key\. .*the x-api-key header/)]);
  });
});
