import { IncomingHttpHeaders, request as httpRequest } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour, PlanTier, PolicyOverrides, Repositories, UsageRecordEntity } from '@svc/domain';
import type { LogDestination } from '@svc/platform';
import { UsageRecorder } from '@svc/proxy';
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
export async function startGateway(options: { plan?: PlanTier; env?: Record<string, string>; logs?: LogDestination } = {}): Promise<GatewayHarness> {
  const mock = await startMockProvider({ port: 0 });
  const service = await bootService(SERVICE, {
    REDIS_URL: process.env.TEST_REDIS_URL as string,
    OPENAI_BASE_URL: `${mock.url}/v1`,
    ANTHROPIC_BASE_URL: mock.url,
    GEMINI_BASE_URL: mock.url,
    MISTRAL_BASE_URL: `${mock.url}/v1`,
    GROQ_BASE_URL: `${mock.url}/v1`,
    XAI_BASE_URL: `${mock.url}/v1`,
    OLLAMA_BASE_URL: `${mock.url}/v1`,
    ...options.env,
  }, { logDestination: options.logs });
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

/** The Anthropic SDK's error of a failed call (fails the test when the call succeeds). */
export async function anthropicFailure(call: Promise<unknown>): Promise<InstanceType<typeof Anthropic.APIError>> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(Anthropic.APIError);
  return outcome.error as InstanceType<typeof Anthropic.APIError>;
}

/** The OpenAI SDK's error of a failed call (fails the test when the call succeeds; another error is rethrown). */
export async function openaiFailure(call: () => Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call();
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error;
    throw error;
  }
  throw new Error('expected a failure, the call succeeded');
}

/** The official OpenAI client pointed at the gateway under `path` (`/v1`, `/v1/gemini`, ...), with the provider key and no retries unless asked. */
export function openaiClient(gw: GatewayHarness, path = '/v1', options: { apiKey?: string; maxRetries?: number } = {}): OpenAI {
  return new OpenAI({ apiKey: options.apiKey ?? gw.key, baseURL: `${gw.url}${path}`, defaultHeaders: { 'X-Provider-Key': PROVIDER_KEY }, maxRetries: options.maxRetries ?? 0 });
}

/** A describe block's provider C suite: its gateway, that gateway's OpenAI SDK client on `/v1/gemini`, and the body the mock got last. */
export interface GeminiSuite {
  gw: GatewayHarness;
  client: OpenAI;
  upstreamBody(): Json;
}

/** Starts a gateway for the enclosing describe block (stopped after it), with the mock reset before each test. */
export function geminiSuite(): GeminiSuite {
  const suite = { upstreamBody: () => suite.gw.mock.requests.at(-1)?.body as Json } as GeminiSuite;
  beforeAll(async () => {
    suite.gw = await startGateway();
    suite.client = openaiClient(suite.gw, '/v1/gemini');
  });
  afterAll(() => suite.gw.stop());
  beforeEach(() => suite.gw.mock.reset());
  return suite;
}

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

/**
 * The headers every proxy answer carries, allowed or refused (issue 4, SPEC.md "Governance chain"):
 * rate-limit values, the request id (`gw_` prefix), the organization, today's cost and budget, and
 * the governance time. `orgId`, when given, must be the organization in `X-Gateway-Org`.
 */
export function expectGovernanceHeaders(headers: Headers, orgId?: string): void {
  const present = (name: string): string => {
    const value = headers.get(name);
    if (value === null) throw new Error(`header ${name} is missing; headers: ${JSON.stringify(Object.fromEntries(headers.entries()))}`);
    return value;
  };
  const number = (name: string): number => {
    const value = present(name);
    expect(value).toMatch(/^\d+(\.\d+)?$/);
    return Number(value);
  };
  const limit = number('x-ratelimit-limit');
  const remaining = number('x-ratelimit-remaining');
  expect(Number.isInteger(limit) && limit > 0).toBe(true);
  expect(Number.isInteger(remaining) && remaining <= limit).toBe(true);
  // The end of the current one-minute window, in Unix seconds.
  const reset = number('x-ratelimit-reset');
  const nowSeconds = Date.now() / 1000;
  expect(reset).toBeGreaterThan(nowSeconds - 5);
  expect(reset).toBeLessThanOrEqual(nowSeconds + 65);
  expect(present('x-svc-request-id')).toMatch(/^gw_[A-Za-z0-9_-]+$/);
  if (orgId) expect(present('x-gateway-org')).toBe(orgId);
  else expect(present('x-gateway-org')).toMatch(/^org_/);
  number('x-svc-daily-cost');
  number('x-svc-daily-budget');
  number('x-svc-governance-time-ms');
}

export interface ExpectedDenial {
  status: number;
  type: string;
  code: string;
  /** Omitted for refusals SPEC.md gives no GW code (413 `request_too_large`, 503 `circuit_breaker_open`). */
  gatewayCode?: string;
  orgId?: string;
}

/** A refusal in the gateway error format, with a remediation a user can act on and every governance header. */
export function expectGovernanceDenial(res: { status: number; headers: Headers; body: Json }, expected: ExpectedDenial): void {
  expect({ status: res.status, error: res.body.error }).toMatchObject({
    status: expected.status,
    error: { type: expected.type, code: expected.code, ...(expected.gatewayCode ? { gateway_error_code: expected.gatewayCode } : {}) },
  });
  expect(typeof res.body.error.message).toBe('string');
  expect(typeof res.body.error.remediation).toBe('string');
  expect(res.body.error.remediation.trim().length).toBeGreaterThan(10);
  expectGovernanceHeaders(res.headers, expected.orgId);
}

export interface TestOrg {
  orgId: string;
  /** A gateway key (gateway:write, gateway:read) of the organization. */
  key: string;
  keyId: string;
  /** Another key of the organization, optionally in a team. */
  newKey(options?: { teamId?: string }): Promise<{ key: string; keyId: string }>;
}

/** A further organization on the gateway's store, on `plan`, with one key. */
export async function createOrg(gw: GatewayHarness, plan: PlanTier): Promise<TestOrg> {
  const org = await gw.repos.organizations.create({ name: `org-${plan}-${Math.random().toString(36).slice(2)}`, plan });
  const newKey = async (options: { teamId?: string } = {}) => {
    const plaintext = generateApiKey();
    const record = await gw.repos.apiKeys.create(asOrgId(org._id), {
      name: `key-${Math.random().toString(36).slice(2)}`,
      key_hash: hashApiKey(plaintext),
      key_prefix: keyDisplayPrefix(plaintext),
      last_four: keyLastFour(plaintext),
      scopes: ['gateway:write', 'gateway:read'],
      team_id: options.teamId ?? null,
    });
    return { key: plaintext, keyId: record._id };
  };
  const first = await newKey();
  return { orgId: org._id, key: first.key, keyId: first.keyId, newKey };
}

export interface CreatedKey {
  key: string;
  keyId: string;
  name: string;
  /** SHA-256 of the key: what the key cache is invalidated by. */
  hash: string;
}

/** A key of `orgId` (default: the harness organization) with chosen scopes and IP allowlist. */
export async function createKey(gw: GatewayHarness, options: { orgId?: string; scopes?: string[]; ipAllowlist?: string[] } = {}): Promise<CreatedKey> {
  const plaintext = generateApiKey();
  const hash = hashApiKey(plaintext);
  const record = await gw.repos.apiKeys.create(asOrgId(options.orgId ?? gw.orgId), {
    name: `key-${Math.random().toString(36).slice(2)}`,
    key_hash: hash,
    key_prefix: keyDisplayPrefix(plaintext),
    last_four: keyLastFour(plaintext),
    scopes: options.scopes ?? ['gateway:write', 'gateway:read'],
    ip_allowlist: options.ipAllowlist ?? [],
  });
  return { key: plaintext, keyId: record._id, name: record.name, hash };
}

/** Rotates a key as the admin API does (replacement with the old key's settings, grace, cache invalidation). */
export async function rotateKey(gw: GatewayHarness, old: CreatedKey, graceHours: number, orgId = gw.orgId): Promise<CreatedKey> {
  const plaintext = generateApiKey();
  const hash = hashApiKey(plaintext);
  const rotated = await gw.repos.apiKeys.rotate(asOrgId(orgId), old.keyId, { key_hash: hash, key_prefix: keyDisplayPrefix(plaintext), last_four: keyLastFour(plaintext) }, new Date(Date.now() + graceHours * 3_600_000));
  if (!rotated) throw new Error(`key ${old.keyId} could not be rotated`);
  await gw.service.runtime.invalidation.publish('api-key', old.hash);
  return { key: plaintext, keyId: rotated.current._id, name: rotated.current.name, hash };
}

/** Replaces the policy of an organization and drops the cached one, as the admin API does. */
export async function setPolicy(gw: GatewayHarness, orgId: string, overrides: PolicyOverrides): Promise<void> {
  await gw.repos.policies.replace(asOrgId(orgId), overrides);
  await gw.service.runtime.invalidation.publish('policy', orgId);
}

/** The usage record of a request, after writing everything the recorder buffered. */
export async function usageOf(gw: GatewayHarness, requestId: string | null, orgId = gw.orgId): Promise<UsageRecordEntity | null> {
  await gw.service.apps[0].get(UsageRecorder).flush();
  return requestId ? gw.repos.usage.findById(asOrgId(orgId), requestId) : null;
}

/** The usage record of a request, waited for (a stream's record is written once its relay ends); fails the test after ~1 s. */
export async function recordOf(gw: GatewayHarness, requestId: string | null, orgId = gw.orgId): Promise<UsageRecordEntity> {
  for (let i = 0; i < 40; i++) {
    const record = await usageOf(gw, requestId, orgId);
    if (record) return record;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no usage record for ${requestId}`);
}

/**
 * The sum of the samples of a Prometheus family on /metrics whose labels include `labels`
 * (0 when none): `metricSum(gw, 'svc_gateway_requests_total', { status: '401' })`.
 */
export async function metricSum(gw: GatewayHarness, family: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== family) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([name, value]) => found[name] === value)) sum += Number(match[3]);
  }
  return sum;
}

/** A provider's entry in `/v1/providers/health` (its breaker's `state`, `failure_count`, ...). */
export async function breakerState(gw: GatewayHarness, provider: string): Promise<Json> {
  const health = (await (await fetch(`${gw.url}/v1/providers/health`)).json()) as Json;
  return health.providers.find((p: Json) => p.provider === provider);
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One request over a plain socket: every response header exactly as the gateway wrote it (hop-by-hop
 * ones too, which fetch hides). A string body is sent as is, anything else as JSON.
 */
export function rawRequest(gw: GatewayHarness, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = httpRequest(`${gw.url}${path}`, { method, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
