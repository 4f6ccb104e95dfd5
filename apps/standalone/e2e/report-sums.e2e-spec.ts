import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { UsageRecorder } from '@svc/proxy';
import { bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';
import { Json, micros, newOrganization, PROVIDER_KEY, reportClient } from './report-figures.helpers';

/** Calls of $0.0000005 each (USD per 1M tokens from the vendors' price pages × the usage the provider answers). */
const CALLS = [
  { provider: 'openai', path: '/v1/chat/completions', model: 'gpt-4.1-nano', agent: 'alpha', prompt: 5 }, // $0.10 / 1M input
  { provider: 'mistral', path: '/v1/mistral/chat/completions', model: 'ministral-8b', agent: 'beta', prompt: 5 }, // $0.10 / 1M input
  { provider: 'groq', path: '/v1/groq/chat/completions', model: 'llama-3.1-8b-instant', agent: 'gamma', prompt: 10 }, // $0.05 / 1M input
];
const COST = 0.0000005;

/**
 * Every report's groupings add up to the total it shows, where rounding each group on its own would
 * not: three calls of half a micro-dollar to three providers, by three agents.
 */
describe('report sums: groupings add up to the totals they are shown with', () => {
  let mock: MockProvider;
  let service: TestService;
  let key: string;

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0, record: false });
    service = await bootService(SERVICE, {
      REDIS_URL: process.env.TEST_REDIS_URL as string,
      OPENAI_BASE_URL: `${mock.url}/v1`,
      MISTRAL_BASE_URL: `${mock.url}/v1`,
      GROQ_BASE_URL: `${mock.url}/v1`,
    });
    key = (await (await newOrganization(service.runtime.repositories, 'sums')).newKey('sums')).key;
    for (const call of CALLS) {
      const usage = { prompt_tokens: call.prompt, completion_tokens: 0, total_tokens: call.prompt };
      const answer = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: call.model, choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'stop' }], usage };
      mock.setBehavior({ fail: { status: 200, body: answer } });
      const res = await fetch(`${service.urls.gateway}${call.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-api-key': key, 'x-provider-key': PROVIDER_KEY, 'x-svc-agent': call.agent },
        body: JSON.stringify({ model: call.model, max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(200);
      await res.text();
    }
    await service.apps[0].get(UsageRecorder).flush();
  });
  afterAll(async () => {
    await service?.stop();
    await mock?.close();
  });

  const sumMicros = (costs: number[]) => costs.reduce((sum, cost) => sum + micros(cost), 0);

  it('records each call at its price', async () => {
    const page = await reportClient(service, key).admin('/usage?days=1');
    expect(page.items.map((item: Json) => [item.provider, item.cost])).toEqual(expect.arrayContaining(CALLS.map((call) => [call.provider, COST])));
  });

  it('cost metrics: by_provider, by_agent and time_series add up to total_cost, each within a micro-dollar of its records', async () => {
    const report = await reportClient(service, key).org('/admin/metrics/cost-optimization?period=24h&granularity=hourly');
    const total = micros(report.total_cost);
    expect(total).toBe(Math.round(3 * COST * 1e6));
    for (const grouping of ['by_provider', 'by_agent'] as const) {
      const costs = Object.values(report[grouping] as Record<string, Json>).map((row) => row.cost as number);
      expect([grouping, costs.length, sumMicros(costs)]).toEqual([grouping, 3, total]);
      for (const cost of costs) expect(Math.abs(cost - COST)).toBeLessThan(1e-6);
    }
    expect(sumMicros((report.time_series as Json[]).map((point) => point.cost))).toBe(total);
  });

  it('billing and the daily usage report show the same total, billing groupings adding up to it', async () => {
    const reports = reportClient(service, key);
    const [summary, daily] = await Promise.all([reports.admin('/billing/summary'), reports.admin('/usage/daily?days=1')]);
    expect(micros(summary.total_cost)).toBe(micros(daily.total_cost));
    for (const grouping of ['by_provider', 'by_model', 'by_agent'] as const) {
      expect(sumMicros((summary[grouping] as Json[]).map((row) => row.cost))).toBe(micros(summary.total_cost));
    }
  });
});
