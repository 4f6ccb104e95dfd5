import { storeTargets } from '../testing/stores';
import { ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { UsageRecordEntity } from '../usage/usage-record.entity';
import { UsageRecordRepository } from '../usage/usage-record.repository';
import { DiscoveredModelRepository } from './discovered-model.repository';
import { loadOrgProviderTargets, targetApiBase, targetDiscoveryUrls } from './org-provider-targets';
import { ProviderTargetRepository } from './provider-target.repository';

describe('provider target URLs', () => {
  it('derives the format-A base and the discovery URLs of each kind', () => {
    expect(targetApiBase({ base_url: 'https://vllm.example.com/v1/', kind: 'openai_compatible' })).toBe('https://vllm.example.com/v1');
    expect(targetApiBase({ base_url: 'http://10.0.0.5:8000', kind: 'openai_compatible' })).toBe('http://10.0.0.5:8000/v1');
    expect(targetApiBase({ base_url: 'https://x.example.com/v1beta/openai', kind: undefined })).toBe('https://x.example.com/v1beta/openai');
    expect(targetApiBase({ base_url: 'http://box:11434/v1', kind: 'ollama' })).toBe('http://box:11434/v1');
    expect(targetDiscoveryUrls({ base_url: 'http://box:11434', kind: 'ollama' })).toEqual(['http://box:11434/api/tags']);
    expect(targetDiscoveryUrls({ base_url: 'https://h.example.com/v1', kind: 'openai_compatible' })).toEqual(['https://h.example.com/v1/models', 'https://h.example.com/models']);
    expect(targetDiscoveryUrls({ base_url: 'https://h.example.com/v1beta/openai', kind: 'openai_compatible' })).toEqual(['https://h.example.com/v1beta/openai/models']);
  });
});

describe.each(storeTargets(process.env.MONGODB_URI))('org provider targets and usage keyset paging ($name)', (target) => {
  const t = useRepository(target, (store) => ({
    targets: new ProviderTargetRepository(store),
    models: new DiscoveredModelRepository(store),
    usage: new UsageRecordRepository(store),
  }));

  it('loads the enabled targets with configured then discovered models, for the proxy registry', async () => {
    const lab = await t.repo.targets.create(ORG_A, { name: 'Lab', provider_id: 'lab', base_url: 'http://box:11434', kind: 'ollama', models: ['pinned'], headers: { 'x-team': 'ml' } });
    await t.repo.targets.create(ORG_A, { name: 'Off', provider_id: 'off', base_url: 'https://off.example.com/v1', enabled: false });
    await t.repo.models.replaceForTarget(ORG_A, { id: lab._id, provider_id: 'lab' }, [{ model_id: 'llama3:8b' }, { model_id: 'pinned' }]);
    const routes = await loadOrgProviderTargets({ providerTargets: t.repo.targets, discoveredModels: t.repo.models }, ORG_A);
    expect(routes).toEqual([
      {
        id: 'lab',
        targetId: lab._id,
        displayName: 'Lab',
        baseUrl: 'http://box:11434/v1',
        kind: 'ollama',
        headers: { 'x-team': 'ml' },
        sealedHeaders: {},
        requiresKey: false,
        apiKey: null,
        models: [
          { id: 'pinned', description: 'Lab model (configured)' },
          { id: 'llama3:8b', description: 'Lab model (discovered)' },
        ],
      },
    ]);
    expect(await loadOrgProviderTargets({ providerTargets: t.repo.targets, discoveredModels: t.repo.models }, ORG_B)).toEqual([]);
  });

  it('pages usage newest first by keyset, ties broken by id, within the range and the organization', async () => {
    const base = Date.now() - 3_600_000;
    const records = [0, 0, 0, 1000, 2000].map((offset, i) => ({ _id: `gw_${i}`, org_id: ORG_A, created_at: new Date(base + offset) }) as unknown as UsageRecordEntity);
    await t.repo.usage.recordBatch([...records, { ...records[0], _id: 'gw_other', org_id: ORG_B }]);
    const range = { from: new Date(base - 1), to: new Date(base + 1500) };
    const first = await t.repo.usage.listBefore(ORG_A, range, null, 2);
    expect(first.map((r) => r._id)).toEqual(['gw_3', 'gw_2']);
    const last = first[1];
    const second = await t.repo.usage.listBefore(ORG_A, range, { created_at: last.created_at, _id: last._id }, 10);
    expect(second.map((r) => r._id)).toEqual(['gw_1', 'gw_0']);
  });
});
