import { randomBytes } from 'node:crypto';
import { SecretCipher } from '@svc/domain';
import { loadConfig, OrgApiError, outboundResolver } from '@svc/platform';
import { FakeNameServer, startFakeNameServer } from '@svc/test-redis';
import { BudgetWorld, openBudgetWorld } from '../testing/budget-fixtures';
import { ChatIntegrationService } from './chat-integration.service';
import { WebhooksService } from '@svc/org-resources';

/**
 * Registration resolves the receiver's host like a delivery does (c-ares, within WEBHOOK_TIMEOUT_MS),
 * here against a name server of our own on a UDP port of 127.0.0.1.
 */
describe('receiver URLs at registration: the host lookup is bounded', () => {
  const TIMEOUT_MS = 300;
  let world: BudgetWorld;
  let dns: FakeNameServer;
  let webhooks: WebhooksService;
  let chat: ChatIntegrationService;
  beforeAll(async () => {
    world = await openBudgetWorld();
    dns = await startFakeNameServer('silent');
    const cipher = new SecretCipher({ current: { version: 1, key: randomBytes(32) } });
    const config = loadConfig({ NODE_ENV: 'test', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });
    const resolve = outboundResolver(config, [dns.address]);
    webhooks = new WebhooksService(world.repositories, cipher, world.bus, config, world.logger, resolve);
    chat = new ChatIntegrationService(world.repositories, cipher, config, resolve);
  });
  afterAll(async () => {
    await dns.close();
    await world.close();
  });

  /** The refusal and how long it took. */
  const refusal = async (work: () => Promise<unknown>) => {
    const started = performance.now();
    const error = await work().then(() => null, (e: unknown) => e);
    return { error, ms: performance.now() - started };
  };
  const lookupTimeout = {
    status: 400,
    code: 'URL_NOT_ALLOWED',
    message: `The host stuck.hooks.test did not resolve within ${TIMEOUT_MS} ms. Its name servers did not answer in time; try again later`,
    details: { param: 'url', reason: 'lookup_timeout' },
  };

  it('answers 400 URL_NOT_ALLOWED (lookup_timeout) at WEBHOOK_TIMEOUT_MS when the name server never answers: create, update, team chat', async () => {
    const orgId = await world.newOrg();
    dns.answer('ok.hooks.test', { addresses: ['93.184.216.34'] });
    const hook = await webhooks.create(orgId, { url: 'https://ok.hooks.test/hook', events: ['budget.exceeded'] });
    expect(hook.url).toBe('https://ok.hooks.test/hook');
    for (const work of [
      () => webhooks.create(orgId, { url: 'https://stuck.hooks.test/hook', events: ['budget.exceeded'] }),
      () => webhooks.update(orgId, hook.id, { url: 'https://stuck.hooks.test/other' }),
      () => chat.put(orgId, { url: 'https://stuck.hooks.test/services/T1' }),
    ]) {
      const { error, ms } = await refusal(work);
      expect(error).toBeInstanceOf(OrgApiError);
      expect(error).toMatchObject(lookupTimeout);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
      // Without the bound the lookup waits for the name server for ever (the fake one never answers).
      expect(ms).toBeLessThan(TIMEOUT_MS + 3_000);
    }
    expect((await webhooks.get(orgId, hook.id)).url).toBe('https://ok.hooks.test/hook');
    expect(await world.repositories.webhooks.count(orgId)).toBe(1);
  });

  it('still refuses a name any of whose addresses is private, and one the name server does not know', async () => {
    const orgId = await world.newOrg();
    dns.answer('inside.hooks.test', { addresses: ['93.184.216.34', '10.1.2.3'] });
    dns.answer('gone.hooks.test', 'nxdomain');
    const inside = await refusal(() => webhooks.create(orgId, { url: 'https://inside.hooks.test/hook', events: ['budget.exceeded'] }));
    expect(inside.error).toMatchObject({ status: 400, code: 'URL_NOT_ALLOWED', details: { param: 'url', reason: 'blocked_address', range: 'private' } });
    const gone = await refusal(() => webhooks.create(orgId, { url: 'https://gone.hooks.test/hook', events: ['budget.exceeded'] }));
    expect(gone.error).toMatchObject({ status: 400, code: 'URL_NOT_ALLOWED', details: { param: 'url', reason: 'unresolvable' } });
  });
});
