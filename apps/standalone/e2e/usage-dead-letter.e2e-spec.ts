import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour } from '@svc/domain';
import { MockProvider, startMockProvider } from '@svc/mock-provider';
import { UsageRecorder } from '@svc/proxy';
import { anomalyScenarios, bootService, TestService } from '@svc/testing';
import { SERVICE } from '../src/app.module';

const PROVIDER_KEY = 'sk-mock-provider-key';

type Line = Record<string, unknown>;

/**
 * One usage record the document store refuses (here a `created_at` that is no date) must not stop
 * metering: the gateway stores the records written with it and after it, where the reports read
 * them, drops that one record (logged whole at error level, counted on /metrics) and does not try
 * it again. Before, the batch holding it was retried for ever: on the embedded store's unloaded
 * usage collection (a gateway that only writes them) every later record stayed in memory, and was
 * lost at shutdown or once the buffer was full.
 */
describe('usage recording past a record the store refuses', () => {
  const lines: Line[] = [];
  const logs = {
    write(chunk: string): void {
      for (const text of chunk.split('\n')) if (text.trim()) lines.push(JSON.parse(text) as Line);
    },
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-dead-letter-'));
  const boot = () => bootService(SERVICE, { REDIS_URL: process.env.TEST_REDIS_URL as string, OPENAI_BASE_URL: `${mock.url}/v1`, LOG_LEVEL: 'error', DATA_DIR: dataDir }, { logDestination: logs });
  let mock: MockProvider;
  let service: TestService;
  let orgId: string;
  let key: string;

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0, record: false });
    service = await boot();
    const repos = service.runtime.repositories;
    const org = await repos.organizations.create({ name: `dead-letter-${Date.now()}`, plan: 'enterprise' });
    orgId = org._id;
    key = generateApiKey();
    await repos.apiKeys.create(asOrgId(orgId), { name: 'meter', key_hash: hashApiKey(key), key_prefix: keyDisplayPrefix(key), last_four: keyLastFour(key), scopes: ['gateway:write', 'admin:read'] });
  });
  afterAll(async () => {
    await service.stop();
    await mock.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const chat = async (content: string): Promise<string> => {
    const res = await fetch(`${service.urls.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-api-key': key, 'x-provider-key': PROVIDER_KEY },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
    return res.headers.get('x-svc-request-id') as string;
  };

  const usage = async (requestId: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${service.urls.gateway}/gateway/admin/usage/${requestId}`, { headers: { 'x-svc-api-key': key } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  const dropped = async (reason: string): Promise<number> => {
    const text = await (await fetch(`${service.urls.gateway}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`svc_gateway_usage_records_dropped_total{reason="${reason}"} `));
    return Number(line?.split(' ').at(-1));
  };

  it('stores the records around it and after it (on disk, in /gateway/admin/usage after a restart), and counts the dropped one on /metrics', async () => {
    expect(await dropped('refused')).toBe(0);
    const served = [await chat('before the bad record')];
    // A record of the organization that no store can file: its created_at is no date.
    const bad = anomalyScenarios.usageRecord(orgId, Date.now(), { created_at: new Date(Number.NaN), cost: 0.5 });
    service.apps[0].get(UsageRecorder).record(bad);
    served.push(await chat('after the bad record'), await chat('and another'));
    // The recorder writes every 250 ms; nothing has read the usage records yet (the gateway's case).
    await new Promise((resolve) => setTimeout(resolve, 750));
    expect(await dropped('refused')).toBe(1);
    expect(await dropped('buffer_full')).toBe(0);
    served.push(await chat('much later'));

    // A restart on the same data: every served request's record is there, the refused one is not.
    await service.stop();
    service = await boot();
    for (const id of served) expect(await usage(id)).toMatchObject({ status: 200, body: { request_id: id, provider: 'openai', status_code: 200 } });
    expect((await usage(bad._id)).status).toBe(404);

    const deadLetters = lines.filter((line) => line.msg === 'usage record dropped: the store refused it');
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]).toMatchObject({ level: 50, usage_record: { _id: bad._id, org_id: orgId, cost: 0.5 } });
    expect(JSON.stringify(lines)).not.toContain(key);
  });
});
