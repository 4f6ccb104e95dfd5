import { asOrgId, hashPassword } from '@svc/domain';
import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { createRedis } from '@svc/platform';
import { bootService, Receiver, TestService, testRedisUrl } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
export type Json = Record<string, any>;

export const WEBHOOK_SECRET = 'receiver-signing-secret-0123';
const PROVIDER_KEY = 'sk-mock-provider-key';
const PASSWORD = 'owner-password-123';

/** An organization with its Owner signed in, an admin + proxy gateway key, and one webhook on the receiver. */
export interface Tenant {
  orgId: string;
  /** Owner's bearer token plus X-Org-ID (organization API, gateway admin). */
  bearer: Record<string, string>;
  /** A gateway key with admin:write and gateway:write. */
  key: string;
  webhookId: string;
}

export interface Reply {
  status: number;
  body: Json;
  headers: Headers;
}

/**
 * The one-process service (`npm start`) on Redis with a mock provider (format A) and the
 * development switches a receiver on 127.0.0.1 needs (DECISIONS.md "Outbound safety"): the way a
 * user tries webhooks on a laptop (docs/webhooks-delivery.md "Trying it on a laptop").
 */
export class WebhookWorld {
  private tenants = 0;
  private constructor(
    readonly service: TestService,
    readonly mock: MockProvider,
    readonly receiver: Receiver,
    private readonly redisUrl: string,
  ) {}

  /**
   * `db`: a Redis database of the spec file's own. Services on one database share the `events` and
   * delivery queues, so a service of another spec file running at the same time, with a store of
   * its own, would take this one's events and drop them (their organization is not in its store).
   */
  static async boot(db: number, env: Record<string, string> = {}): Promise<WebhookWorld> {
    const redisUrl = testRedisUrl(db);
    await flush(redisUrl);
    const receiver = await Receiver.start();
    const mock = await startMockProvider({ port: 0, record: false });
    const service = await bootService(SERVICE, {
      REDIS_URL: redisUrl,
      OPENAI_BASE_URL: `${mock.url}/v1`,
      WEBHOOK_ALLOW_HTTP: 'true',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      ANOMALY_CHECK_INTERVAL_MS: '0',
      ...env,
    });
    return new WebhookWorld(service, mock, receiver, redisUrl);
  }

  async call(surface: 'gateway' | 'org-api', method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
    const res = await fetch(`${this.service.urls[surface]}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), 'X-Provider-Key': PROVIDER_KEY, ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json, headers: res.headers };
  }

  /** A new organization (enterprise) whose webhook on `path` takes `events`, with `policy` set through the gateway admin. */
  async tenant(path: string, events: string[], policy: Json = {}): Promise<Tenant> {
    this.tenants += 1;
    const { repositories } = this.service.runtime;
    const org = await repositories.organizations.create({ name: `Webhook org ${this.tenants}`, plan: 'enterprise' });
    const email = `webhook-owner-${this.tenants}-${org._id.slice(-6).toLowerCase()}@example.com`;
    await repositories.users.create(asOrgId(org._id), { email, role: 'Owner', password_hash: await hashPassword(PASSWORD) });
    const login = await this.call('org-api', 'POST', '/api/v1/auth/login', {}, { email, password: PASSWORD });
    const bearer = { authorization: `Bearer ${login.body.access_token as string}`, 'X-Org-ID': org._id };
    const key = await this.call('org-api', 'POST', '/api/v1/platform/api-keys', bearer, { name: 'ops', scopes: ['admin:write', 'gateway:write'] });
    const hook = await this.call('org-api', 'POST', '/api/v1/admin/webhooks', bearer, { url: this.receiver.url(path), events, secret: WEBHOOK_SECRET });
    const set = Object.keys(policy).length ? await this.call('gateway', 'POST', '/gateway/admin/policies', bearer, policy) : { status: 201 };
    expect([key.status, hook.status, set.status]).toEqual([201, 201, 201]);
    return { orgId: org._id, bearer, key: key.body.key as string, webhookId: hook.body.id as string };
  }

  chat(tenant: Tenant, content: string, model = 'gpt-4o-mini', maxTokens = 10): Promise<Reply> {
    return this.call('gateway', 'POST', '/v1/chat/completions', { 'X-SVC-API-Key': tenant.key }, { model, max_tokens: maxTokens, messages: [{ role: 'user', content }] });
  }

  async stop(): Promise<void> {
    await this.service.stop();
    await this.mock.close();
    await this.receiver.close();
    await flush(this.redisUrl);
  }
}

/** Empties the spec file's own Redis database (queues, counters, dedup windows). */
async function flush(url: string): Promise<void> {
  const redis = createRedis(url, 'queue', 'webhook-e2e-cleanup');
  try {
    await redis.flushdb();
  } finally {
    await redis.quit();
  }
}
