import OpenAI, { toFile } from 'openai';
import { GatewayHarness, openaiClient, PROVIDER_KEY, startGateway, usageOf } from './harness';

type SdkError = InstanceType<typeof OpenAI.APIError>;

const failure = (promise: Promise<unknown>): Promise<SdkError> =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as SdkError,
  );

/**
 * The official OpenAI SDK's methods beyond chat completions and embeddings, with `baseURL`
 * `{base_url}/v1` and provider bases (docs/gateway-routes.md "Routes"): what the gateway does not serve
 * raises a readable NotFoundError in the gateway format, models.retrieve() is served below the
 * A, B and C bases, and a D base forwards every method through the governed catch-all.
 */
describe('gateway with the OpenAI SDK: the methods beyond chat and embeddings', () => {
  let gw: GatewayHarness;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  /** Every SDK method the gateway does not proxy for the A provider (nor for B and C). */
  const notServed = (client: OpenAI): [string, () => Promise<unknown>][] => [
    ['responses.create', () => client.responses.create({ model: 'gpt-4o', input: 'hi' })],
    ['completions.create', () => client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'hi' })],
    ['moderations.create', () => client.moderations.create({ input: 'hi' })],
    ['images.generate', () => client.images.generate({ prompt: 'a cat' })],
    ['audio.speech.create', () => client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'hi' })],
    ['audio.transcriptions.create', async () => client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(Buffer.from('abc'), 'a.mp3') })],
    ['files.list', () => client.files.list()],
    ['batches.list', () => client.batches.list()],
    ['fineTuning.jobs.list', () => client.fineTuning.jobs.list()],
    ['vectorStores.list', () => client.vectorStores.list()],
  ];

  it('with baseURL /v1: a NotFoundError in the gateway format naming the routes, never the framework default, nothing sent upstream', async () => {
    const client = openaiClient(gw);
    for (const [name, call] of notServed(client)) {
      const error = await failure(call());
      expect([name, error.constructor.name, error.status]).toEqual([name, 'NotFoundError', 404]);
      expect(error.error).toMatchObject({ type: 'not_found_error', code: 'not_found', param: null });
      expect(error.message).toMatch(/^404 No route (GET|POST) \/v1\/\S+[.:] /);
      expect(error.message).toContain('The gateway serves POST /v1/chat/completions, POST /v1/embeddings, POST /v1/messages, GET /v1/models and GET /v1/models/{model}');
      expect(error.message).not.toContain('Cannot ');
      expect(error.headers?.get('x-svc-request-id')).toMatch(/^gw_/);
      expect(typeof (error.error as { remediation?: unknown }).remediation).toBe('string');
    }
    expect(gw.mock.requests).toEqual([]);
  });

  it('a path of one segment is answered before authentication; a gateway route with another method is 405 with Allow', async () => {
    for (const path of ['/v1/responses', '/v1/files', '/v1', '/v1/openai']) {
      const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const body = (await res.json()) as { error: Record<string, unknown> };
      expect([path, res.status, body.error.code]).toEqual([path, 404, 'not_found']);
      expect(body.error.message).toContain(`No route POST ${path}. The gateway serves`);
    }
    for (const [method, path, allow] of [['GET', '/v1/embeddings', 'POST'], ['GET', '/v1/messages', 'POST'], ['POST', '/v1/models', 'GET'], ['POST', '/v1/health', 'GET']]) {
      const res = await fetch(`${gw.url}${path}`, { method, headers: method === 'POST' ? { 'content-type': 'application/json' } : {}, body: method === 'POST' ? '{}' : undefined });
      const body = (await res.json()) as { error: Record<string, unknown> };
      expect([path, res.status, res.headers.get('allow'), body.error.code]).toEqual([path, 405, allow, 'method_not_allowed']);
    }
  });

  it.each([
    ['/v1/openai', 'POST /v1/openai/chat/completions, POST /v1/openai/embeddings, GET /v1/openai/models, GET /v1/openai/models/{model}'],
    ['/v1/gemini', 'POST /v1/gemini/chat/completions, GET /v1/gemini/models, GET /v1/gemini/models/{model}'],
    ['/v1/anthropic', 'POST /v1/anthropic/chat/completions, POST /v1/anthropic/messages, POST /v1/anthropic/v1/messages'],
  ])('with baseURL %s: a NotFoundError naming the routes below that base', async (base, routes) => {
    const client = openaiClient(gw, base);
    for (const [name, call] of notServed(client)) {
      const error = await failure(call());
      expect([name, error.constructor.name, error.status]).toEqual([name, 'NotFoundError', 404]);
      expect(error.error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
      expect(error.message).toContain(`: below ${base} the gateway serves ${routes}`);
      expect(error.message).toContain('Other paths are forwarded only for format-A compatible (D) providers');
    }
    expect(gw.mock.requests).toEqual([]);
  });

  it('models.retrieve() below the A, B and C bases serves the list entry (scope gateway:read), else 404 model_not_found', async () => {
    const readOnly = await gw.newKey(['gateway:read']);
    for (const [base, id] of [['/v1/openai', 'gpt-4o'], ['/v1/gemini', 'gemini-2.5-flash'], ['/v1/anthropic', 'claude-sonnet-4-5'], ['/v1/google', 'gemini-2.5-pro']]) {
      const client = openaiClient(gw, base, { apiKey: readOnly });
      const listed = (await client.models.list()).data.find((model) => model.id === id);
      const { data, response } = await client.models.retrieve(id).withResponse();
      expect(data).toEqual(listed);
      expect(response.headers.get('x-gateway-org')).toBe(gw.orgId);
      // Another provider's model is not listed below this base.
      const other = await failure(client.models.retrieve(id === 'gpt-4o' ? 'gemini-2.5-flash' : 'gpt-4o'));
      expect(other).toBeInstanceOf(OpenAI.NotFoundError);
      expect(other.error).toMatchObject({ type: 'not_found_error', code: 'model_not_found', param: 'model' });
    }
    const anonymous = await fetch(`${gw.url}/v1/openai/models/gpt-4o`);
    expect(anonymous.status).toBe(401);
    expect(gw.mock.requests).toEqual([]);
  });

  it('with a D base (/v1/mistral) every method goes through the catch-all: authenticated, governed, metered, its path as the SDK wrote it', async () => {
    const client = openaiClient(gw, '/v1/mistral');
    const calls: [string, string, () => Promise<{ response: Response }>][] = [
      ['moderations.create', '/v1/moderations', () => client.moderations.create({ input: 'hi', model: 'mistral-moderation-latest' }).withResponse()],
      ['images.generate', '/v1/images/generations', () => client.images.generate({ prompt: 'a cat', model: 'mistral-large-latest' }).withResponse()],
      ['audio.speech.create', '/v1/audio/speech', () => client.audio.speech.create({ model: 'mistral-tts', voice: 'alloy', input: 'hi' }).withResponse()],
      ['files.retrieve', '/v1/files/file-a%3Fb%23c', () => client.files.retrieve('file-a?b#c').withResponse()],
      ['fineTuning.jobs.list', '/v1/fine_tuning/jobs', () => client.fineTuning.jobs.list().withResponse()],
      ['models.retrieve', '/v1/models/mistral-unlisted', () => client.models.retrieve('mistral-unlisted').withResponse().catch((error: SdkError) => ({ response: { headers: error.headers, status: error.status } as unknown as Response }))],
    ];
    for (const [name, upstreamPath, call] of calls) {
      const before = gw.mock.requests.length;
      const { response } = await call();
      const upstream = gw.mock.requests.slice(before);
      expect([name, upstream.map((request) => request.path)]).toEqual([name, [upstreamPath]]);
      expect(upstream[0].headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
      expect(JSON.stringify(upstream[0].headers)).not.toContain(gw.key);
      const requestId = response.headers.get('x-svc-request-id');
      expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
      let record = await usageOf(gw, requestId);
      for (let i = 0; i < 40 && !record; i++) record = await new Promise((resolve) => setTimeout(resolve, 25)).then(() => usageOf(gw, requestId));
      expect(record).toMatchObject({ provider: 'mistral', endpoint: `/v1/mistral${upstreamPath.slice('/v1'.length)}` });
    }
    // Without a gateway key (the SDK's apiKey is then a provider key), nothing is forwarded.
    const before = gw.mock.requests.length;
    const anonymous = await failure(openaiClient(gw, '/v1/mistral', { apiKey: 'sk-not-a-gateway-key' }).files.list());
    expect(anonymous).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(gw.mock.requests.length).toBe(before);
  });

  it('an upstream redirect is 502 upstream_invalid_response without Location: the client never takes its gateway key to the named host', async () => {
    // The client sends the gateway key in X-SVC-API-Key, which fetch keeps on a cross-origin redirect.
    const client = new OpenAI({ apiKey: PROVIDER_KEY, baseURL: `${gw.url}/v1`, defaultHeaders: { 'X-SVC-API-Key': gw.key }, maxRetries: 0 });
    const mistral = new OpenAI({ apiKey: PROVIDER_KEY, baseURL: `${gw.url}/v1/mistral`, defaultHeaders: { 'X-SVC-API-Key': gw.key }, maxRetries: 0 });
    const elsewhere = `${gw.mock.url}/collect`;
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'hi' }];
    const cases: [string, number, () => Promise<unknown>][] = [
      ['chat', 302, () => client.chat.completions.create({ model: 'gpt-4o', messages })],
      ['chat stream', 307, () => client.chat.completions.create({ model: 'gpt-4o', messages, stream: true })],
      ['gemini (translated)', 301, () => client.chat.completions.create({ model: 'gemini-2.5-flash', messages })],
      ['D catch-all', 308, () => mistral.files.list()],
    ];
    for (const [name, status, call] of cases) {
      gw.mock.setBehavior({ fail: { status, headers: { location: elsewhere } } });
      const error = await failure(call());
      expect([name, error.status, error.headers?.get('location')]).toEqual([name, 502, null]);
      expect(error.error).toMatchObject({ type: 'api_error', code: 'upstream_invalid_response' });
      expect(error.message).toContain(`the provider answered HTTP ${status} (a redirect); the gateway neither follows nor relays redirects`);
      expect(error.headers?.get('x-svc-request-id')).toMatch(/^gw_/);
    }
    expect(gw.mock.requests.filter((request) => request.path === '/collect')).toEqual([]);
    expect(gw.mock.requests.some((request) => JSON.stringify(request.headers).includes(gw.key))).toBe(false);
    // A redirect is a misconfiguration, not an outage: the breaker stays closed.
    gw.mock.setBehavior(null);
    expect((await client.chat.completions.create({ model: 'gpt-4o', messages })).object).toBe('chat.completion');
  });

  describe("provider C's 429: Gemini's RetryInfo.retryDelay becomes retry-after", () => {
    const quotaError = (retryDelay: string) => ({
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan and billing details.',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }],
          },
          { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
        ],
      },
    });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'quota' }];

    it('whole and streamed, the RateLimitError carries retry-after (seconds, rounded up)', async () => {
      const client = openaiClient(gw, '/v1/gemini');
      for (const stream of [false, true]) {
        gw.mock.setBehavior({ match: { format: 'gemini' }, fail: { status: 429, body: quotaError('16.2s') } });
        const error = await failure(client.chat.completions.create({ model: 'gemini-2.5-flash', messages, stream }));
        expect(error).toBeInstanceOf(OpenAI.RateLimitError);
        expect(error.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
        expect(error.headers?.get('retry-after')).toBe('17');
      }
    });

    it('the SDK waits that long before its retry, which then succeeds', async () => {
      const client = openaiClient(gw, '/v1/gemini', { maxRetries: 1 });
      gw.mock.setBehavior({ match: { format: 'gemini' }, fail: { status: 429, body: quotaError('2s'), times: 1 } });
      const started = Date.now();
      const completion = await client.chat.completions.create({ model: 'gemini-2.5-flash', messages });
      expect(completion.choices[0].message.content).toBe('mock reply to: quota');
      // Without retry-after the SDK's own backoff is about half a second.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      expect(gw.mock.requests.filter((request) => request.format === 'gemini')).toHaveLength(2);
    });
  });
});
