import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { asOrgId, PlanTier, sealWebhookUrl, WebhookEntity } from '@svc/domain';
import { createEvent, EVENT_SOURCES, EventDataMap, EventType, GatewayEvent } from '@svc/events';
import { createRedis } from '@svc/platform';
import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

/**
 * The test Redis with a database of its own per spec file: services of one file share queues
 * (and a restarted dispatcher finds the jobs of the one before), files running in parallel do not.
 */
export function redisUrl(db: number): string {
  const url = new URL(process.env.TEST_REDIS_URL as string);
  url.pathname = `/${db}`;
  return url.toString();
}

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

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() when the request had fully arrived. */
  at: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  /** Never answer (the connection stays open until the client gives up or dies). */
  hang?: boolean;
  /** Send the status and headers at once, then one byte of body every `dripMs`, never ending. */
  dripMs?: number;
}

type Behaviour = (request: Received, nth: number) => Reply;

/** A real webhook receiver on 127.0.0.1: records every request and answers as each path is told to. */
export class Receiver {
  readonly requests: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();

  private readonly server: Server;
  base = '';

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request: Received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() };
        this.requests.push(request);
        const nth = this.on(request.path).length;
        const reply: Reply = (this.behaviours.get(request.path) ?? (() => ({ status: 200 })))(request, nth);
        if (reply.hang) return;
        if (reply.dripMs) {
          res.writeHead(reply.status, reply.headers).flushHeaders();
          const drip = setInterval(() => res.write('.'), reply.dripMs);
          return void res.on('close', () => clearInterval(drip));
        }
        const send = () => res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
        if (!reply.delayMs) return void send();
        const timer = setTimeout(send, reply.delayMs);
        res.on('close', () => clearTimeout(timer));
      });
    });
  }

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.base = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    return receiver;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  behave(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  on(path: string): Received[] {
    return this.requests.filter((request) => request.path === path);
  }

  async waitFor(path: string, count: number, timeoutMs = 10_000): Promise<Received[]> {
    await waitUntil(() => this.on(path).length >= count, timeoutMs, `${count} request(s) on ${path}`);
    return this.on(path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const standardVerifier = new OpenAI({ apiKey: 'unused' }).webhooks;

/**
 * What a receiver does with a delivery: recompute `sha256=<hex HMAC of the raw body>` and compare
 * in constant time, and verify the Standard Webhooks headers with an official SDK's verifier.
 */
export async function verifyDelivery(request: Received, secret: string): Promise<{ hmac: boolean; standard: boolean }> {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`);
  const given = Buffer.from(String(request.headers['x-webhook-signature'] ?? ''));
  const hmac = given.length === expected.length && timingSafeEqual(given, expected);
  const standard = await standardVerifier.verifySignature(request.body, request.headers as Record<string, string>, secret).then(
    () => true,
    () => false,
  );
  return { hmac, standard };
}
