import { MOCK_BINARY_BYTES } from '@svc/mock-provider';
import { expectGovernanceHeaders, GatewayHarness, postJson, PROVIDER_KEY, startGateway, usageOf } from './harness';

/** USD per 1M tokens (input, output) for models the price table does not know, set in the harness env. */
const DEFAULT_PRICE = { input: 1.5, output: 4.5 };
const roundUsd = (value: number) => Math.round(value * 1_000_000) / 1_000_000;

/** Binary bodies through the D catch-all, and the price of a call by provider/model and by DEFAULT_MODEL_PRICE. */
describe('gateway relay of binary bodies and pricing', () => {
  let gw: GatewayHarness;
  const auth = () => ({ 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY });
  const chat = (model: string, content: string) => ({ model, messages: [{ role: 'user', content }], max_tokens: 300 });

  beforeAll(async () => {
    gw = await startGateway({ env: { DEFAULT_MODEL_PRICE: `${DEFAULT_PRICE.input},${DEFAULT_PRICE.output}` } });
  });
  afterAll(() => gw.stop());
  beforeEach(() => gw.mock.reset());

  it('relays a binary GET answer of a D provider byte for byte, with its content type', async () => {
    const res = await fetch(`${gw.url}/v1/mistral/files/file-abc/content`, { headers: auth() });
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(bytes.toString('hex')).toBe(MOCK_BINARY_BYTES.toString('hex'));
    expect(res.headers.get('content-length')).toBe(String(MOCK_BINARY_BYTES.length));
    expectGovernanceHeaders(res.headers, gw.orgId);
    expect(gw.mock.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/files/file-abc/content', route: 'openai.binary' });
    expect(gw.mock.requests.at(-1)?.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
  });

  it('relays a binary answer to a POST with a JSON body (audio/speech) unchanged, and records it', async () => {
    const res = await fetch(`${gw.url}/v1/groq/audio/speech`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'playai-tts', input: 'Say this out loud', voice: 'Fritz-PlayAI', response_format: 'mp3' }),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(bytes.equals(MOCK_BINARY_BYTES)).toBe(true);
    const upstream = gw.mock.requests.at(-1);
    expect(upstream).toMatchObject({ method: 'POST', path: '/v1/audio/speech', model: 'playai-tts' });
    expect(upstream?.body).toMatchObject({ input: 'Say this out loud', voice: 'Fritz-PlayAI' });
    const record = await usageOf(gw, res.headers.get('x-svc-request-id'));
    expect(record).toMatchObject({ provider: 'groq', model: 'playai-tts', endpoint: '/v1/groq/audio/speech', status_code: 200 });
  });

  it('prices ollama (self-hosted) at 0: X-SVC-Cost and the record, with real token usage; keyless upstream', async () => {
    const explicit = await postJson(`${gw.url}/v1/chat/completions`, chat('ollama/llama3.2', 'a local model please'), auth());
    expect(explicit.status).toBe(200);
    expect(explicit.body.choices[0].message.content).toBe('mock reply to: a local model please');
    expect(explicit.headers.get('x-svc-cost')).toBe('0');
    expect(gw.mock.requests.at(-1)).toMatchObject({ path: '/v1/chat/completions', model: 'llama3.2' });
    const record = await usageOf(gw, explicit.headers.get('x-svc-request-id'));
    expect(record).toMatchObject({ provider: 'ollama', model: 'llama3.2', status_code: 200, cost: 0, estimated_cost: 0 });
    expect(record?.input_tokens).toBeGreaterThan(0);
    expect(record?.output_tokens).toBeGreaterThan(0);

    // The provider-scoped route, without any provider key (ollama needs none).
    gw.mock.configure({ requireAuth: false });
    const scoped = await postJson(`${gw.url}/v1/ollama/chat/completions`, chat('llama3.2', 'no key at all'), { 'X-SVC-API-Key': gw.key });
    expect(scoped.status).toBe(200);
    expect(scoped.headers.get('x-svc-cost')).toBe('0');
    expect(gw.mock.requests.at(-1)?.headers.authorization).toBeUndefined();
    expect((await usageOf(gw, scoped.headers.get('x-svc-request-id')))?.cost).toBe(0);
  });

  it('prices a model the table does not know at DEFAULT_MODEL_PRICE, in X-SVC-Cost and in the record', async () => {
    // The same model name without the ollama route falls back to openai, where it is unknown.
    const res = await postJson(`${gw.url}/v1/chat/completions`, chat('llama3.2', 'priced by default'), auth());
    expect(res.status).toBe(200);
    const record = await usageOf(gw, res.headers.get('x-svc-request-id'));
    expect(record).toMatchObject({ provider: 'openai', model: 'llama3.2' });
    const replay = record?.replay as { estimated_input_tokens: number; max_output_tokens: number };
    expect(replay.max_output_tokens).toBe(300);
    expect(replay.estimated_input_tokens).toBeGreaterThan(0);
    const estimate = (replay.estimated_input_tokens * DEFAULT_PRICE.input + replay.max_output_tokens * DEFAULT_PRICE.output) / 1_000_000;
    expect(Number(res.headers.get('x-svc-cost'))).toBeCloseTo(roundUsd(estimate), 6);
    expect(record?.estimated_cost).toBeCloseTo(estimate, 6);
    const cost = ((record?.input_tokens ?? 0) * DEFAULT_PRICE.input + (record?.output_tokens ?? 0) * DEFAULT_PRICE.output) / 1_000_000;
    expect(record?.output_tokens).toBeGreaterThan(0);
    expect(record?.cost).toBeCloseTo(cost, 9);
  });
});
