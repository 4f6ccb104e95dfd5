import { randomBytes } from 'node:crypto';
import { SecretCipher } from '../crypto/secret-cipher';
import { DuplicateKeyError } from '../store/types';
import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { NewWebhook, WebhookRepository } from './webhook.repository';
import { sealWebhookUrl } from './webhook-url';

const cipher = new SecretCipher({ current: { version: 1, key: randomBytes(32) } });
const hook = (orgId: string, url = 'https://hooks.example.com/a', events = ['budget.exceeded']): NewWebhook => ({
  ...sealWebhookUrl(cipher, orgId, url),
  events,
  secret: cipher.encrypt(orgId, 'whsec_123'),
});

describe.each(storeTargets(process.env.MONGODB_URI))('WebhookRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new WebhookRepository(store));

  it('creates an active webhook with an encrypted secret and de-duplicated events', async () => {
    const created = await t.repo.create(ORG_A, hook(ORG_A, undefined, ['budget.exceeded', 'budget.exceeded', 'budget.warning']));
    expect(created).toMatchObject({ status: 'active', events: ['budget.exceeded', 'budget.warning'], consecutive_failures: 0 });
    expect(created._id).toMatch(/^whk_/);
    expect(cipher.decrypt(ORG_A, created.secret)).toBe('whsec_123');
  });

  it('allows one webhook per URL per organization', async () => {
    await t.repo.create(ORG_A, hook(ORG_A));
    await t.repo.create(ORG_B, hook(ORG_B));
    const error = await t.repo.create(ORG_A, hook(ORG_A)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateKeyError);
    expect(error).toMatchObject({ index: 'org_url_hash_unique' });
  });

  it('lists the active webhooks subscribed to an event type', async () => {
    const a = await t.repo.create(ORG_A, hook(ORG_A, 'https://a.example.com', ['budget.exceeded']));
    await t.repo.create(ORG_A, hook(ORG_A, 'https://b.example.com', ['approval.requested']));
    const c = await t.repo.create(ORG_A, hook(ORG_A, 'https://c.example.com', ['budget.exceeded']));
    await t.repo.disable(ORG_A, c._id, 'receiver answered 410');
    expect((await t.repo.listActiveForEvent(ORG_A, 'budget.exceeded')).map((w) => w._id)).toEqual([a._id]);
  });

  it('disables after consecutive failures, resets on success, and re-enables', async () => {
    const created = await t.repo.create(ORG_A, hook(ORG_A));
    await t.repo.recordDeliveryFailure(ORG_A, created._id, new Date(), 3);
    await t.repo.recordDeliverySuccess(ORG_A, created._id);
    expect((await t.repo.findById(ORG_A, created._id))?.consecutive_failures).toBe(0);
    await t.repo.recordDeliveryFailure(ORG_A, created._id, new Date(), 3);
    await t.repo.recordDeliveryFailure(ORG_A, created._id, new Date(), 3);
    const third = await t.repo.recordDeliveryFailure(ORG_A, created._id, new Date(), 3);
    expect(third).toMatchObject({ status: 'disabled', consecutive_failures: 3, disabled_reason: '3 consecutive failed deliveries' });
    expect(await t.repo.enable(ORG_A, created._id)).toMatchObject({ status: 'active', consecutive_failures: 0, disabled_reason: null });
  });

  it('enable acts only on a disabled webhook: on an active one it is null and the failure count stays', async () => {
    const created = await t.repo.create(ORG_A, hook(ORG_A));
    await t.repo.recordDeliveryFailure(ORG_A, created._id);
    await t.repo.recordDeliveryFailure(ORG_A, created._id);
    expect(await t.repo.enable(ORG_A, created._id)).toBeNull();
    expect(await t.repo.findById(ORG_A, created._id)).toMatchObject({ status: 'active', consecutive_failures: 2 });
    await t.repo.disable(ORG_A, created._id, 'by hand');
    expect(await t.repo.enable(ORG_B, created._id)).toBeNull();
    expect(await t.repo.enable(ORG_A, created._id)).toMatchObject({ status: 'active', consecutive_failures: 0, disabled_reason: null, disabled_at: null });
  });

  it('isolates tenants', async () => {
    const created = await t.repo.create(ORG_A, hook(ORG_A));
    await expectTenantIsolation(t.repo, created, { url: 'https://evil.example.com' });
    expect(await t.repo.listActiveForEvent(ORG_B, 'budget.exceeded')).toEqual([]);
    expect(await t.repo.disable(ORG_B, created._id, 'evil')).toBeNull();
    expect(await t.repo.enable(ORG_B, created._id)).toBeNull();
    expect(await t.repo.recordDeliveryFailure(ORG_B, created._id)).toBeNull();
    await t.repo.recordDeliverySuccess(ORG_B, created._id);
    expect(await t.repo.findById(ORG_A, created._id)).toEqual(created);
  });
});
