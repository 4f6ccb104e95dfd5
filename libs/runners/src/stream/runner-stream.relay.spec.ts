import { silentLogger } from '@svc/domain';
import { createRedis, Redis, waitForRedis } from '@svc/platform';
import { RunnerStreamEvent, RunnerStreamHub } from './runner-stream.hub';
import { RunnerStreamRelay } from './runner-stream.relay';

/** Two replicas' hubs over a real Redis (the private redis-server of the test run). */
describe('RunnerStreamRelay', () => {
  const clients: Redis[] = [];
  const relays: RunnerStreamRelay[] = [];
  const channel = `svc:runner-stream:test:${Date.now()}`;

  async function replica(): Promise<RunnerStreamHub> {
    const redis = createRedis(process.env.TEST_REDIS_URL as string, 'hot-path', 'runner-stream-spec');
    clients.push(redis);
    await waitForRedis(redis);
    const hub = new RunnerStreamHub();
    const relay = new RunnerStreamRelay(hub, redis, silentLogger(), channel);
    relays.push(relay);
    await relay.ready();
    return hub;
  }
  afterAll(async () => {
    for (const relay of relays) await relay.close();
    for (const client of clients) await client.quit();
  });

  const event = (text: string): RunnerStreamEvent => ({ event: 'output', runnerId: 'run_relay', sessionId: 'ses_1', data: { data: text } });

  it('delivers an event published on one replica to the followers of another, and once to its own', async () => {
    const a = await replica();
    const b = await replica();
    const onA: string[] = [];
    const onB: string[] = [];
    a.subscribe('run_relay', (e) => onA.push(String(e.data.data)));
    b.subscribe('run_relay', (e) => onB.push(String(e.data.data)));
    a.publish(event('from a'));
    b.publish(event('from b'));
    const until = Date.now() + 3_000;
    while ((onA.length < 2 || onB.length < 2) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(onA.sort()).toEqual(['from a', 'from b']);
    expect(onB.sort()).toEqual(['from a', 'from b']);
  });
});
