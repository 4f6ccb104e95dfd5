import { Module } from '@nestjs/common';
import OpenAI from 'openai';
import { asOrgId, PlanTier, sealWebhookUrl, WebhookEntity } from '@svc/domain';
import { createEvent, EVENT_SOURCES, EventDataMap, EventType, GatewayEvent } from '@svc/events';
import { OrgApiModule } from '@svc/org';
import { createRedis, LivenessModule } from '@svc/platform';
import { bootService, hmacSignatureValid, Received, TestService, testRedisUrl } from '@svc/testing';
import { SERVICE } from '../src/app.module';

export { Receiver, sleep, waitUntil } from '@svc/testing';
export type { Received, Reply } from '@svc/testing';

/** The test Redis with a database of its own per spec file (`testRedisUrl` of @svc/testing). */
export const redisUrl = testRedisUrl;

/** Removes what the dispatcher left in a test database (queues, dedup and anomaly keys). */
export async function cleanRedis(url: string): Promise<void> {
  const redis = createRedis(url, 'queue', 'webhook-dispatcher-e2e-cleanup');
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', 'svc:*', 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}

/** The dispatcher on a real port, on the given Redis, with the development switches tests need. */
export function bootDispatcher(env: Record<string, string>): Promise<TestService> {
  return bootService(SERVICE, {
    WEBHOOK_RETRY_BASE_MS: '20',
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    ANOMALY_CHECK_INTERVAL_MS: '0',
    ...env,
  });
}

/** The bootstrap Owner of the specs that run the organization API beside the dispatcher. */
export const OWNER = { email: 'owner@example.com', password: 'correct-horse-battery-staple' };

/** The organization API's surface, for a service definition of a spec's own. */
@Module({ imports: [LivenessModule, OrgApiModule] })
export class OrgApiSurface {}

/** Logs the bootstrap Owner in on an organization API: the access token and the organization it names. */
export async function loginOwner(orgApiUrl: string, owner: { email: string; password: string }): Promise<{ token: string; orgId: string }> {
  const login = await fetch(`${orgApiUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(owner) });
  const token = ((await login.json()) as { access_token: string }).access_token;
  const orgId = (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { org_id: string }).org_id;
  return { token, orgId };
}

export async function newOrg(service: TestService, plan: PlanTier = 'growth'): Promise<string> {
  return (await service.runtime.repositories.organizations.create({ name: `org-${Math.random().toString(36).slice(2)}`, plan }))._id;
}

/** Registers a webhook the way the org API stores it: the secret encrypted with the org as associated data. */
export function seedWebhook(service: TestService, orgId: string, url: string, events: EventType[], secret: string): Promise<WebhookEntity> {
  const { repositories, cipher } = service.runtime;
  return repositories.webhooks.create(asOrgId(orgId), { ...sealWebhookUrl(cipher, orgId, url), events, secret: cipher.encrypt(orgId, secret) });
}

const timestamp = () => new Date().toISOString();
const SAMPLE: { [K in EventType]?: () => EventDataMap[K] } = {
  'budget.exceeded': () => ({ blocked_by: 'daily_budget', daily_spent: 10.2, daily_budget: 10, model: 'gpt-4o', estimated_cost: 0.12, timestamp: timestamp() }),
  'budget.warning': () => ({ budget_type: 'daily', threshold_pct: 75, spent: 7.6, budget: 10, utilization_pct: 76, timestamp: timestamp() }),
  'guardrail.triggered': () => ({ guardrail: 'rate_limit', current_count: 61, rpm_limit: 60, model: 'gpt-4o-mini', timestamp: timestamp() }),
  'approval.requested': () => ({ request_id: 'gw_e2e', model: 'claude-sonnet-4', estimated_cost: 3.2, hitl_threshold: 1, approval_id: 'apr_e2e', timestamp: timestamp() }),
};

/** A catalog event with sample data, as the gateway would publish it. */
export function sampleEvent(type: 'budget.exceeded' | 'budget.warning' | 'guardrail.triggered' | 'approval.requested', orgId: string): GatewayEvent {
  const data = (SAMPLE[type] as () => EventDataMap[typeof type])();
  return createEvent(type, orgId, data as never, EVENT_SOURCES.gateway) as GatewayEvent;
}

const standardVerifier = new OpenAI({ apiKey: 'unused' }).webhooks;

/**
 * What a receiver does with a delivery: recompute `sha256=<hex HMAC of the raw body>` and compare
 * in constant time, and verify the Standard Webhooks headers with an official SDK's verifier.
 */
export async function verifyDelivery(request: Received, secret: string): Promise<{ hmac: boolean; standard: boolean }> {
  const standard = await standardVerifier.verifySignature(request.body, request.headers as Record<string, string>, secret).then(
    () => true,
    () => false,
  );
  return { hmac: hmacSignatureValid(request, secret), standard };
}
