import { DuplicateKeyError } from '../store/types';
import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { NewProviderTarget, ProviderTargetRepository } from './provider-target.repository';

const target = (name: string, extra: Partial<NewProviderTarget> = {}): NewProviderTarget => ({
  name,
  provider_id: name.toLowerCase(),
  base_url: `https://${name.toLowerCase()}.example.com/v1`,
  ...extra,
});

describe.each(storeTargets(process.env.MONGODB_URI))('ProviderTargetRepository ($name)', (storeTarget) => {
  const t = useRepository(storeTarget, (store) => new ProviderTargetRepository(store));

  it('creates a target with defaults', async () => {
    const created = await t.repo.create(ORG_A, target('Local-vLLM', { headers: { 'x-team': 'ml' } }));
    expect(created).toMatchObject({
      name: 'Local-vLLM',
      provider_id: 'local-vllm',
      format: 'openai',
      api_key: null,
      enabled: true,
      models: [],
      headers: { 'x-team': 'ml' },
      last_discovery_status: null,
    });
    expect(created._id).toMatch(/^tgt_/);
  });

  it('keeps names and provider ids unique per organization', async () => {
    await t.repo.create(ORG_A, target('One'));
    await t.repo.create(ORG_B, target('One'));
    await expect(t.repo.create(ORG_A, target('One', { provider_id: 'other' }))).rejects.toMatchObject({ index: 'org_name_unique' });
    const error = await t.repo.create(ORG_A, target('Two', { provider_id: 'one' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateKeyError);
    expect(error).toMatchObject({ index: 'org_provider_id_unique', fields: ['org_id', 'provider_id'] });
  });

  it('finds by provider id, lists enabled targets, updates and records discovery', async () => {
    const one = await t.repo.create(ORG_A, target('One'));
    await t.repo.create(ORG_A, target('Two', { enabled: false }));
    expect((await t.repo.findByProviderId(ORG_A, 'one'))?._id).toBe(one._id);
    expect((await t.repo.listEnabled(ORG_A)).map((x) => x.name)).toEqual(['One']);
    expect(await t.repo.updateById(ORG_A, one._id, { base_url: 'https://new.example.com/v1' })).toMatchObject({
      base_url: 'https://new.example.com/v1',
    });
    const at = new Date('2030-01-01T00:00:00Z');
    await t.repo.recordDiscovery(ORG_A, one._id, 'succeeded', at);
    expect(await t.repo.findById(ORG_A, one._id)).toMatchObject({ last_discovery_at: at, last_discovery_status: 'succeeded' });
  });

  it('isolates tenants', async () => {
    const created = await t.repo.create(ORG_A, target('One'));
    await expectTenantIsolation(t.repo, created, { base_url: 'https://evil.example.com' });
    expect(await t.repo.findByProviderId(ORG_B, 'one')).toBeNull();
    expect(await t.repo.listEnabled(ORG_B)).toEqual([]);
    await t.repo.recordDiscovery(ORG_B, created._id, 'failed');
    expect(await t.repo.findById(ORG_A, created._id)).toEqual(created);
  });
});
