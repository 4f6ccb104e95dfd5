import { randomBytes } from 'node:crypto';
import { SecretCipher } from '../crypto/secret-cipher';
import { storeTargets } from '../testing/stores';
import { ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { ChatIntegrationRepository } from './chat-integration.repository';

const cipher = new SecretCipher({ current: { version: 1, key: randomBytes(32) } });
const input = (orgId: string, url: string) => ({ url: cipher.encrypt(orgId, url), url_hint: 'https://hooks.slack.com/…abcd' });

describe.each(storeTargets(process.env.MONGODB_URI))('ChatIntegrationRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new ChatIntegrationRepository(store));

  it('creates, then replaces, the one integration of an organization', async () => {
    expect(await t.repo.get(ORG_A)).toBeNull();
    const first = await t.repo.put(ORG_A, input(ORG_A, 'https://hooks.slack.com/services/1'));
    expect(first).toMatchObject({ kind: 'slack', enabled: true, events: [], last_error: null });
    expect(first._id).toMatch(/^chat_/);
    const second = await t.repo.put(ORG_A, { ...input(ORG_A, 'https://hooks.slack.com/services/2'), events: ['budget.exceeded'] });
    expect(second._id).toBe(first._id);
    expect(second.created_at).toEqual(first.created_at);
    expect(cipher.decrypt(ORG_A, second.url)).toBe('https://hooks.slack.com/services/2');
    expect(second.events).toEqual(['budget.exceeded']);
  });

  it('records deliveries and deletes', async () => {
    await t.repo.put(ORG_A, input(ORG_A, 'https://hooks.slack.com/services/1'));
    const at = new Date('2030-01-01T00:00:00Z');
    await t.repo.recordDelivery(ORG_A, 'HTTP 500', at);
    expect(await t.repo.get(ORG_A)).toMatchObject({ last_delivery_at: at, last_error: 'HTTP 500' });
    expect(await t.repo.delete(ORG_A)).toBe(true);
    expect(await t.repo.get(ORG_A)).toBeNull();
  });

  it('isolates tenants', async () => {
    const mine = await t.repo.put(ORG_A, input(ORG_A, 'https://hooks.slack.com/services/1'));
    expect(await t.repo.get(ORG_B)).toBeNull();
    await t.repo.recordDelivery(ORG_B, 'evil');
    expect(await t.repo.delete(ORG_B)).toBe(false);
    const theirs = await t.repo.put(ORG_B, input(ORG_B, 'https://hooks.slack.com/services/9'));
    expect(theirs._id).not.toBe(mine._id);
    expect(await t.repo.get(ORG_A)).toEqual(mine);
  });
});
