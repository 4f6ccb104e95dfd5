import { clearOfMinuteEdge } from '@svc/testing';
import { Deployment, PROVIDER_KEY, within } from './replicas.helpers';

/** A Redis database of this file's own (the dispatcher's e2e specs use 9 to 14, the standalone webhook specs 7 and 8). */
const REDIS_DB = 15;

/**
 * Two gateway replicas with the gateway admin and the organization API on one Redis and one
 * document store (docs/deploy-operating.md "Running several replicas"): what one service changes, every
 * gateway replica applies; what replicas count, they count together.
 */
describe('several gateway replicas', () => {
  let d: Deployment;

  beforeAll(async () => {
    d = await Deployment.boot(REDIS_DB);
  });
  afterAll(async () => {
    await d.stop();
  });
  beforeEach(() => d.mock.reset());

  it('a key revoked through the admin API is refused by every replica within 5 s', async () => {
    const { orgId, key: admin } = await d.tenant('revoke');
    const victim = await d.newKey(orgId, ['gateway:write']);
    // Both replicas have the key cached.
    for (const replica of [0, 1] as const) expect((await d.chat(replica, victim.plaintext)).status).toBe(200);
    expect((await d.admin$('DELETE', `/v1/admin/api-keys/${victim.id}`, admin)).status).toBe(204);
    for (const replica of [0, 1] as const) {
      // Pub/sub, not the 5 s TTL of the cache the first request filled: at once.
      expect(await within(5_000, `replica ${replica} refuses the revoked key`, async () => (await d.chat(replica, victim.plaintext)).status === 401)).toBeLessThan(1_000);
    }
  });

  it('a key revoked through the organization API is refused by every replica within 5 s', async () => {
    const { orgId, key: admin } = await d.tenant('revoke-org');
    const victim = await d.newKey(orgId, ['gateway:write']);
    for (const replica of [0, 1] as const) expect((await d.chat(replica, victim.plaintext)).status).toBe(200);
    expect((await d.org$('DELETE', `/api/v1/platform/api-keys/${victim.id}`, admin)).status).toBe(204);
    for (const replica of [0, 1] as const) {
      // Pub/sub, not the 5 s TTL of the cache the first request filled: at once.
      expect(await within(5_000, `replica ${replica} refuses the revoked key`, async () => (await d.chat(replica, victim.plaintext)).status === 401)).toBeLessThan(1_000);
    }
  });

  it('a key rotated with no grace is refused by every replica within 5 s, and the replacement works on both', async () => {
    const { orgId, key: admin } = await d.tenant('rotate');
    const victim = await d.newKey(orgId, ['gateway:write']);
    for (const replica of [0, 1] as const) expect((await d.chat(replica, victim.plaintext)).status).toBe(200);
    const rotated = await d.admin$('POST', `/gateway/admin/keys/${victim.id}/rotate`, admin, { grace_period_hours: 0 });
    expect(rotated.status).toBe(200);
    for (const replica of [0, 1] as const) {
      await within(5_000, `replica ${replica} refuses the rotated key`, async () => {
        const answer = await d.chat(replica, victim.plaintext);
        return answer.status === 401 && answer.body.error?.code === 'key_rotated';
      });
      expect((await d.chat(replica, rotated.body.key as string)).status).toBe(200);
    }
  });

  it('a policy change through the admin API or the organization API reaches every replica on its next request', async () => {
    const { orgId, key } = await d.tenant('policy');
    for (const replica of [0, 1] as const) expect((await d.chat(replica, key)).status).toBe(200);

    expect((await d.admin$('POST', '/gateway/admin/policies', key, { allowed_models: ['gpt-4o'], rpm_limit: 250 })).status).toBe(201);
    for (const replica of [0, 1] as const) {
      expect(await within(5_000, `replica ${replica} applies allowed_models`, async () => (await d.chat(replica, key)).body.error?.code === 'model_not_allowed')).toBeLessThan(1_000);
      expect((await d.chat(replica, key, { model: 'gpt-4o' })).headers.get('x-ratelimit-limit')).toBe('250');
    }

    expect((await d.org$('PATCH', `/api/v1/admin/gateway/policy/${orgId}`, key, { rpm_limit: 240, pii_action: 'block' })).status).toBe(200);
    for (const replica of [0, 1] as const) {
      await within(5_000, `replica ${replica} applies the organization API's change`, async () => {
        const answer = await d.chat(replica, key, { model: 'gpt-4o', content: 'my card is 4111 1111 1111 1111' });
        return answer.status === 403 && answer.headers.get('x-ratelimit-limit') === '240';
      });
    }
  });

  it('budget nodes (admin API) and auto-stop budgets (organization API) reach every replica', async () => {
    const { key } = await d.tenant('nodes');
    for (const replica of [0, 1] as const) expect((await d.chat(replica, key)).status).toBe(200);
    const node = await d.admin$('POST', '/gateway/admin/budgets/nodes', key, { name: 'tiny', level: 'org', budget_limit: 0.000001, reset_period: 'daily' });
    expect(node.status).toBe(201);
    for (const replica of [0, 1] as const) {
      await within(5_000, `replica ${replica} applies the node`, async () => (await d.chat(replica, key)).body.error?.code === 'budget_hierarchy_exceeded');
    }

    const other = await d.tenant('auto-stop');
    for (const replica of [0, 1] as const) expect((await d.chat(replica, other.key)).status).toBe(200);
    const budget = await d.org$('POST', '/api/v1/admin/costs/budgets', other.key, { name: 'stop', type: 'daily', limit: 0.000001, auto_stop: true });
    expect(budget.status).toBe(200);
    for (const replica of [0, 1] as const) {
      await within(5_000, `replica ${replica} applies the auto-stop budget`, async () => (await d.chat(replica, other.key)).body.error?.code === 'daily_budget');
    }
  });

  it('a stored provider key rotated and a model alias changed through the admin API are used by every replica', async () => {
    const { key } = await d.tenant('secrets');
    expect((await d.admin$('POST', '/gateway/admin/secrets', key, { provider: 'openai', plaintext_key: 'sk-stored-first-key' })).status).toBe(201);
    const alias = await d.admin$('POST', '/gateway/admin/model-aliases', key, { alias: 'house-model', model: 'gpt-4o-mini' });
    expect(alias.status).toBe(201);
    for (const replica of [0, 1] as const) expect((await d.chat(replica, key, { model: 'house-model', providerKey: null })).status).toBe(200);
    expect(d.mock.requests.map((r) => [r.model, r.headers.authorization])).toEqual(Array(2).fill(['gpt-4o-mini', 'Bearer sk-stored-first-key']));

    expect((await d.admin$('POST', '/gateway/admin/secrets/rotate', key, { provider: 'openai', secret: 'sk-stored-second-key' })).status).toBe(200);
    expect((await d.admin$('PATCH', `/gateway/admin/model-aliases/${alias.body.id}`, key, { model: 'gpt-4.1-mini' })).status).toBe(200);
    for (const replica of [0, 1] as const) {
      await within(5_000, `replica ${replica} uses the new key and model`, async () => {
        d.mock.reset();
        expect((await d.chat(replica, key, { model: 'house-model', providerKey: null })).status).toBe(200);
        const [sent] = d.mock.requests;
        return sent.model === 'gpt-4.1-mini' && sent.headers.authorization === 'Bearer sk-stored-second-key';
      });
    }
  });

  it('the plan daily request quota is counted once across replicas', async () => {
    const statuses = await d.countedTogether(async () => {
      const { key } = await d.tenant('quota', 'free');
      // The free tier's 100 requests a day, at an RPM that lets them all through in one minute.
      expect((await d.admin$('POST', '/gateway/admin/policies', key, { rpm_limit: 1000 })).status).toBe(201);
      const answered: number[] = [];
      for (let batch = 0; batch < 101; batch += 10) {
        const size = Math.min(10, 101 - batch);
        answered.push(...(await Promise.all(Array.from({ length: size }, (_, i) => d.chat(((batch + i) % 2) as 0 | 1, key).then((r) => r.status)))));
      }
      return answered;
    });
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
  }, 60_000);

  it('the RPM limit is counted once across replicas: N requests spread over both at rpm_limit N-1 get exactly one 429', async () => {
    const N = 8;
    const statuses = await d.countedTogether(async () => {
      const { key } = await d.tenant('rpm');
      expect((await d.admin$('POST', '/gateway/admin/policies', key, { rpm_limit: N - 1 })).status).toBe(201);
      const minute = Math.floor(Date.now() / 60_000);
      const answered = await Promise.all(Array.from({ length: N }, (_, i) => d.chat((i % 2) as 0 | 1, key).then((r) => r.status)));
      // Requests on both sides of a minute's turn are in two windows: another attempt.
      return Math.floor(Date.now() / 60_000) === minute ? answered : null;
    });
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(N - 1);
  });

  it('daily budget reservations are shared: concurrent requests over both replicas are admitted only as far as the budget goes', async () => {
    // The estimate of this request (X-SVC-Cost), measured on another organization.
    const probe = await d.tenant('budget-probe');
    const estimate = Number((await d.chat(0, probe.key)).headers.get('x-svc-cost'));
    expect(estimate).toBeGreaterThan(0);
    const { answers, upstream } = await d.countedTogether(async () => {
      const { key } = await d.tenant('budget');
      expect((await d.admin$('POST', '/gateway/admin/policies', key, { daily_budget: estimate * 3.5 })).status).toBe(201);
      // Every request is in flight while the others are admitted: only 3 estimates fit.
      d.mock.setBehavior({ latencyMs: 400 });
      const sent = d.mock.requests.length;
      const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => d.chat((i % 2) as 0 | 1, key)));
      return { answers: replies, upstream: d.mock.requests.length - sent };
    });
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 403).map((a) => a.body.error?.code)).toEqual(Array(5).fill('daily_budget'));
    expect(upstream).toBe(3);
  });

  it('an Idempotency-Key sent to both replicas is served once: the other answers 409 in progress, then the replay', async () => {
    const { key } = await d.tenant('idempotency');
    d.mock.setBehavior({ latencyMs: 500 });
    const headers = { 'idempotency-key': 'replicated-retry-1' };
    const first = d.chat(0, key, { headers });
    // The first holds the key once it is upstream (the key is claimed before the dispatch).
    await within(5_000, 'the first request upstream', async () => d.mock.requests.length === 1);
    const second = await d.chat(1, key, { headers });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: 'idempotency_key_in_progress' });
    const served = await first;
    expect(served.status).toBe(200);
    const replayed = await d.chat(1, key, { headers });
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.id).toBe(served.body.id);
    expect(d.mock.requests).toHaveLength(1);
  });

  it('an approved HITL request re-submitted to both replicas at once is served once', async () => {
    const { orgId, key: reviewer } = await d.tenant('hitl');
    const requester = (await d.newKey(orgId, ['gateway:write'])).plaintext;
    expect((await d.admin$('POST', '/gateway/admin/policies', reviewer, { hitl_cost_threshold: 0.0000001 })).status).toBe(201);
    const held = await d.chat(0, requester, { content: 'review me' });
    expect(held.status).toBe(202);
    const id = held.body.approval_id as string;
    expect((await d.admin$('POST', `/gateway/admin/approvals/${id}/approve`, reviewer, {})).status).toBe(200);
    d.mock.setBehavior({ latencyMs: 400 });
    const answers = await Promise.all([d.chat(0, requester, { content: 'review me' }), d.chat(1, requester, { content: 'review me' })]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.status === 409)?.body.error).toMatchObject({ code: 'approval_in_progress' });
    expect(d.mock.requests).toHaveLength(1);
    // Used: the same request again needs a new approval, on either replica.
    const again = await d.chat(1, requester, { content: 'review me' });
    expect(again.status).toBe(202);
    expect(again.body.approval_id).not.toBe(id);
  });

  it('events are emitted once per request and each delivered once with two dispatcher replicas', async () => {
    // Six organizations (each its own 60 s dedup window), one refused request each, over both replicas.
    const paths: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { key } = await d.tenant(`events-${i}`);
      paths.push(`/events-${i}`);
      const hook = await d.org$('POST', '/api/v1/admin/webhooks', key, { url: d.receiver.url(paths[i]), events: ['guardrail.triggered'], secret: 'receiver-signing-secret-0123' });
      expect(hook.status).toBe(201);
      expect((await d.admin$('POST', '/gateway/admin/policies', key, { allowed_models: ['gpt-4o'] })).status).toBe(201);
      expect((await d.chat((i % 2) as 0 | 1, key)).body.error?.code).toBe('model_not_allowed');
    }
    for (const path of paths) {
      const [delivery] = await d.receiver.waitFor(path, 1);
      expect(JSON.parse(delivery.body)).toMatchObject({ type: 'guardrail.triggered', data: { guardrail: 'model_blocked' } });
    }
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const path of paths) expect(d.receiver.on(path)).toHaveLength(1);
  });

  it('breakers and request metrics are per replica; cost and the busiest organizations on /v1/health/detailed are shared', async () => {
    const detailed = async (replica: 0 | 1, key: string) => (await d.call(d.gatewayUrl(replica), 'GET', '/v1/health/detailed', key)).body;
    const { orgId, key, before, after } = await d.countedTogether(async () => {
      // The requests and the look at them in one minute: rate_limits counts this minute's.
      await clearOfMinuteEdge();
      const tenant = await d.tenant('health');
      const seen = await Promise.all([detailed(0, tenant.key), detailed(1, tenant.key)]);
      // More than any earlier test's organization this minute, so among the five busiest.
      for (let i = 0; i < 10; i++) expect((await d.chat(1, tenant.key)).status).toBe(200);
      return { ...tenant, before: seen, after: await Promise.all([detailed(0, tenant.key), detailed(1, tenant.key)]) };
    });
    expect(after[1].metrics.total_requests - before[1].metrics.total_requests).toBe(10);
    expect(after[0].metrics.total_requests - before[0].metrics.total_requests).toBe(0);
    for (const replica of after) expect(replica.rate_limits).toContainEqual({ org_id: orgId, current_rpm: 10, rpm_limit: 5000 });

    // Five failures through replica 0 open its anthropic breaker; replica 1's stays closed.
    d.mock.setBehavior({ match: { format: 'anthropic' }, fail: { status: 500, times: 5 } });
    const messages = (replica: 0 | 1) =>
      d.call(d.gatewayUrl(replica), 'POST', '/v1/messages', key, { model: 'claude-3-5-haiku-20241022', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }, { 'x-provider-key': PROVIDER_KEY });
    for (let i = 0; i < 5; i++) expect((await messages(0)).status).toBe(500);
    expect((await messages(0)).body.error).toMatchObject({ code: 'circuit_breaker_open' });
    expect((await messages(1)).status).toBe(200);
    const breakers = async (replica: 0 | 1) => (await detailed(replica, key)).providers.anthropic.circuit_breaker.state;
    expect([await breakers(0), await breakers(1)]).toEqual(['open', 'closed']);
  }, 60_000);
});

