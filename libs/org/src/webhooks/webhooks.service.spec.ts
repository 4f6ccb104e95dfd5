import { randomBytes } from 'node:crypto';
import { SecretCipher } from '@svc/domain';
import { loadConfig, OrgApiError } from '@svc/platform';
import { BudgetWorld, openBudgetWorld } from '../testing/budget-fixtures';
import { WebhooksService } from '@svc/org-resources';

/**
 * WEBHOOK_MAX_PER_ORG under parallel creates: each org API process serializes its own creates,
 * while processes share only the store. (Over HTTP: apps/org-api/e2e/webhook-limit.)
 */
describe('WebhooksService: the webhook cap under parallel creates', () => {
  const MAX = 5;
  let world: BudgetWorld;
  let replicas: WebhooksService[];
  beforeAll(async () => {
    world = await openBudgetWorld();
    const cipher = new SecretCipher({ current: { version: 1, key: randomBytes(32) } });
    const config = loadConfig({ NODE_ENV: 'test', WEBHOOK_MAX_PER_ORG: String(MAX) });
    replicas = [0, 1, 2].map(() => new WebhooksService(world.repositories, cipher, world.bus, config, world.logger));
  });
  afterAll(() => world.close());

  it('on one replica, a burst of creates fills the cap exactly (its creates take turns), the rest are refused', async () => {
    const orgId = await world.newOrg();
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        replicas[0].create(orgId, { url: `https://8.8.8.8/burst/${i}`, events: ['budget.exceeded'] }).then(
          () => 'created',
          (error: unknown) => (error instanceof OrgApiError ? `${error.status} ${error.code}` : String(error)),
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(MAX);
    expect(outcomes.filter((outcome) => outcome !== 'created')).toEqual(Array(12 - MAX).fill('409 WEBHOOK_LIMIT_REACHED'));
    expect(await world.repositories.webhooks.count(orgId)).toBe(MAX);
  });

  it('never stores more than the cap when creates race on several replicas; every refusal is WEBHOOK_LIMIT_REACHED', async () => {
    const orgId = await world.newOrg();
    const outcomes = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        replicas[i % replicas.length].create(orgId, { url: `https://8.8.8.8/race/${i}`, events: ['budget.exceeded'] }).then(
          () => 'created',
          (error: unknown) => (error instanceof OrgApiError ? `${error.status} ${error.code}` : String(error)),
        ),
      ),
    );
    const created = outcomes.filter((outcome) => outcome === 'created').length;
    expect(outcomes.filter((outcome) => outcome !== 'created').every((outcome) => outcome === '409 WEBHOOK_LIMIT_REACHED')).toBe(true);
    const stored = await world.repositories.webhooks.count(orgId);
    expect(stored).toBe(created);
    expect(stored).toBeLessThanOrEqual(MAX);
    // What a race refused is not lost for good: the places left are taken by the next creates.
    for (let i = stored; i < MAX; i += 1) await replicas[0].create(orgId, { url: `https://8.8.8.8/after/${i}`, events: ['budget.exceeded'] });
    expect(await world.repositories.webhooks.count(orgId)).toBe(MAX);
    await expect(replicas[1].create(orgId, { url: 'https://8.8.8.8/one-more', events: ['budget.exceeded'] })).rejects.toMatchObject({ status: 409, code: 'WEBHOOK_LIMIT_REACHED' });
  });
});
