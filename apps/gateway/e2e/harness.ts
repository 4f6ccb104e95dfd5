import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour, PlanTier, Repositories } from '@svc/domain';
import { bootService, TestService } from '@svc/testing';
import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { SERVICE } from '../src/app.module';

export const PROVIDER_KEY = 'sk-mock-provider-key';

export interface GatewayHarness {
  service: TestService;
  mock: MockProvider;
  repos: Repositories;
  /** `http://127.0.0.1:PORT` of the gateway. */
  url: string;
  orgId: string;
  /** A gateway key with gateway:write and gateway:read. */
  key: string;
  newKey(scopes: string[], name?: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The real gateway app on free ports, with every provider's base URL pointed at one mock upstream
 * speaking the real wire formats, Redis from the test setup, and an organization with a key.
 */
export async function startGateway(options: { plan?: PlanTier; env?: Record<string, string> } = {}): Promise<GatewayHarness> {
  const mock = await startMockProvider({ port: 0 });
  const service = await bootService(SERVICE, {
    REDIS_URL: process.env.TEST_REDIS_URL as string,
    OPENAI_BASE_URL: `${mock.url}/v1`,
    ANTHROPIC_BASE_URL: mock.url,
    GEMINI_BASE_URL: mock.url,
    MISTRAL_BASE_URL: `${mock.url}/v1`,
    GROQ_BASE_URL: `${mock.url}/v1`,
    OLLAMA_BASE_URL: `${mock.url}/v1`,
    ...options.env,
  });
  const repos = service.runtime.repositories;
  const org = await repos.organizations.create({ name: `org-${Date.now()}`, plan: options.plan ?? 'enterprise' });
  const newKey = async (scopes: string[], name = `key-${Math.random().toString(36).slice(2)}`) => {
    const plaintext = generateApiKey();
    await repos.apiKeys.create(asOrgId(org._id), {
      name,
      key_hash: hashApiKey(plaintext),
      key_prefix: keyDisplayPrefix(plaintext),
      last_four: keyLastFour(plaintext),
      scopes,
    });
    return plaintext;
  };
  const key = await newKey(['gateway:write', 'gateway:read'], 'e2e');
  return {
    service,
    mock,
    repos,
    url: service.urls.gateway,
    orgId: org._id,
    key,
    newKey,
    stop: async () => {
      await service.stop();
      await mock.close();
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
export type Json = Record<string, any>;

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Json }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    parsed = { text };
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
