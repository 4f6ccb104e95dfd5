import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour } from '@svc/domain';
import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
type Json = Record<string, any>;

/**
 * Issue 8 with issue 4: LLM calls made from a runner session, through the gateway, are charged to
 * the session's budget and refused once it is spent (stage 3, GW_SESSION_BUDGET_001).
 */
describe('runner session budget through the gateway', () => {
  let mock: MockProvider;
  let service: TestService;
  let adminKey: string;
  let orgId: string;

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0, record: false });
    service = await bootService(SERVICE, { REDIS_URL: process.env.TEST_REDIS_URL as string, OPENAI_BASE_URL: `${mock.url}/v1` });
    const repos = service.runtime.repositories;
    const org = await repos.organizations.create({ name: 'runner-org', plan: 'enterprise' });
    orgId = org._id;
    adminKey = generateApiKey();
    await repos.apiKeys.create(asOrgId(org._id), {
      name: 'ops',
      key_hash: hashApiKey(adminKey),
      key_prefix: keyDisplayPrefix(adminKey),
      last_four: keyLastFour(adminKey),
      scopes: ['admin:write', 'gateway:write'],
    });
  });
  afterAll(async () => {
    await service.stop();
    await mock.close();
  });

  const call = async (path: string, body: unknown, headers: Record<string, string>) => {
    const res = await fetch(`${service.urls.gateway}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Json };
  };

  it('charges calls to the session and refuses them once its budget is spent', async () => {
    const admin = { 'X-SVC-API-Key': adminKey };
    const runner = await call('/gateway/admin/runners', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600, runtime_version: '1', session_budget_usd: 0.012 }, admin);
    expect(runner.status).toBe(201);
    const session = await call(`/gateway/admin/runners/${runner.body.runner_id}/start`, {}, admin);
    expect(session.status).toBe(200);
    expect(session.body.runner_token).toMatch(/^svc_rt_/);

    const fromSession = {
      'X-SVC-API-Key': session.body.runner_token as string,
      'X-Runner-ID': runner.body.runner_id as string,
      'X-Session-ID': session.body.session_id as string,
      'X-Runner-Proof': session.body.runner_proof as string,
      'X-Provider-Key': 'sk-mock',
    };
    // About 2,000 input tokens of gpt-4o: roughly half a cent a call against a 1.2 cent session budget.
    const prompt = { model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'budget '.repeat(1150) }] };
    const statuses: number[] = [];
    let refusal: Json | undefined;
    for (let i = 0; i < 4; i++) {
      const answer = await call('/v1/chat/completions', prompt, fromSession);
      statuses.push(answer.status);
      if (answer.status !== 200) refusal = answer.body;
      await new Promise((resolve) => setTimeout(resolve, 150)); // settling runs after the response
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.at(-1)).toBe(403);
    expect(refusal?.error).toMatchObject({ type: 'permission_error', code: 'session_budget_exceeded', gateway_error_code: 'GW_SESSION_BUDGET_001' });
    // The messages route applies the same stage (the prompt costs more on this model than the refused one).
    const messages = await call('/v1/messages', { model: 'claude-sonnet-4-6', max_tokens: 10, messages: prompt.messages }, fromSession);
    expect({ status: messages.status, error: messages.body.error }).toMatchObject({ status: 403, error: { type: 'permission_error', code: 'session_budget_exceeded', gateway_error_code: 'GW_SESSION_BUDGET_001' } });

    // The charge is on the session record and on the usage records, tied to the verified session.
    const repos = service.runtime.repositories;
    const stored = await repos.runnerSessions.findById(asOrgId(orgId), session.body.session_id as string);
    expect(stored?.spent_usd ?? 0).toBeGreaterThan(0.008);

    // With the session's own runner token, the token is the proof: leaving the headers out, or
    // forging the proof, still charges the session, so it is still refused.
    const { 'X-Runner-Proof': _proof, ...withoutProof } = fromSession;
    const noProof = await call('/v1/chat/completions', prompt, withoutProof);
    expect(noProof.status).toBe(403);
    expect(noProof.body.error.code).toBe('session_budget_exceeded');
    const forged = await call('/v1/chat/completions', prompt, { ...fromSession, 'X-Runner-Proof': 'forged' });
    expect(forged.status).toBe(403);

    // An ordinary key with a forged proof is not trusted: stage 3 does not apply to it.
    const byKey = await call('/v1/chat/completions', prompt, { ...fromSession, 'X-SVC-API-Key': adminKey, 'X-Runner-Proof': 'forged' });
    expect(byKey.status).toBe(200);
  });
});
