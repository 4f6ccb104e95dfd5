import { parse } from 'csv-parse/sync';
import { UsageRecorder } from '@svc/proxy';
import { MockProvider, startMockProvider } from './mock-provider';
import { AdminHarness, GATEWAY_WITH_ADMIN, Json, Org, startAdmin } from './admin-harness';

const PROVIDER_KEY = 'sk-mock-provider-key';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A stream charged by the gateway's estimate (broken upstream before its usage) next to one charged
 * by the provider's usage, through the real proxy: the admin reports (`/usage`, one record, the CSV
 * export, `/usage/daily`, `/billing/summary`) show the tokens and the cost the budget counters were
 * charged, and say which record is an estimate.
 */
describe('admin usage reports of estimated and reported charges', () => {
  let h: AdminHarness;
  let mock: MockProvider;
  let org: Org;

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0 });
    h = await startAdmin({ definition: GATEWAY_WITH_ADMIN, env: { OPENAI_BASE_URL: `${mock.url}/v1`, OLLAMA_BASE_URL: `${mock.url}/v1` } });
    org = await h.newOrg('growth');
  });
  afterAll(async () => {
    await h.stop();
    await mock.close();
  });

  async function stream(content: string): Promise<string> {
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-api-key': org.admin, 'x-provider-key': PROVIDER_KEY },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }], max_tokens: 200, stream: true }),
    });
    expect(res.status).toBe(200);
    await res.text();
    return res.headers.get('x-svc-request-id') as string;
  }

  it('show the charged tokens and cost of each record, its usage_source, and totals equal to the counters', async () => {
    mock.setBehavior({ match: { format: 'openai' }, abort: { afterChunks: 4 } });
    const broken = await stream('a stream that breaks upstream');
    mock.setBehavior(null);
    const whole = await stream('a stream that completes');
    await h.service.apps[0].get(UsageRecorder).flush();

    const estimate = await h.call('GET', `/gateway/admin/usage/${broken}`, { key: org.admin });
    expect(estimate.status).toBe(200);
    // 'mock reply to: ' was relayed (15 characters, 4 tokens) before the provider cut the stream.
    expect(estimate.body).toMatchObject({ status_code: 502, usage_source: 'estimate', output_tokens: 4, input_tokens: estimate.body.replay.estimated_input_tokens });
    expect(estimate.body.cost).toBeGreaterThan(0);
    const reported = await h.call('GET', `/gateway/admin/usage/${whole}`, { key: org.admin });
    expect(reported.body).toMatchObject({ status_code: 200, usage_source: 'provider' });

    const page = await h.call('GET', '/gateway/admin/usage?days=1', { key: org.admin });
    const items = page.body.items as Json[];
    expect(items.find((item) => item.request_id === broken)).toMatchObject({ usage_source: 'estimate', output_tokens: 4, cost: estimate.body.cost });
    const csv = await fetch(`${h.url}/gateway/admin/usage/export?days=1`, { headers: { 'x-svc-api-key': org.admin } });
    const rows = parse(await csv.text(), { columns: true }) as Record<string, string>[];
    expect(rows.find((row) => row.request_id === broken)).toMatchObject({ usage_source: 'estimate', output_tokens: '4' });

    const records = [estimate.body, reported.body];
    const cost = records.reduce((sum, r) => sum + (r.cost as number), 0);
    const tokens = records.reduce((sum, r) => sum + (r.input_tokens as number) + (r.output_tokens as number), 0);
    const daily = await h.call('GET', '/gateway/admin/usage/daily?days=1', { key: org.admin });
    expect(daily.body.total_cost).toBeCloseTo(cost, 9);
    expect(daily.body.items[0].input_tokens + daily.body.items[0].output_tokens).toBe(tokens);
    const billing = await h.call('GET', '/gateway/admin/billing/summary', { key: org.admin });
    expect(billing.body.total_cost).toBeCloseTo(cost, 6);
    expect(billing.body.input_tokens + billing.body.output_tokens).toBe(tokens);

    // The budget counters were charged the same: today's spend, as the next (free) request reports it.
    let spent = 0;
    for (let i = 0; i < 20 && Math.abs(spent - cost) > 2e-6; i++) {
      const next = await fetch(`${h.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-api-key': org.admin, 'x-provider-key': PROVIDER_KEY },
        body: JSON.stringify({ model: 'ollama/llama3.2', messages: [{ role: 'user', content: `next ${i}` }] }),
      });
      expect(next.status).toBe(200);
      spent = Number(next.headers.get('x-svc-daily-cost'));
      await sleep(50);
    }
    expect(Math.abs(spent - cost)).toBeLessThanOrEqual(2e-6); // two settles in whole micro-dollars
  });
});
