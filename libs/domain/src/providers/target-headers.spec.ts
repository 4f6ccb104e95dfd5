import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { SecretCipher } from '../crypto/secret-cipher';
import { insertLegacyProviderTarget } from '../testing/legacy-provider-target';
import { storeTargets } from '../testing/stores';
import { ORG_A, ORG_B, present, useRepository } from '../testing/jest-helpers';
import { loadOrgProviderTargets } from './org-provider-targets';
import { PROVIDER_TARGETS } from './provider-target.entity';
import { ProviderTargetRepository } from './provider-target.repository';
import { isCredentialHeader, maskedTargetHeaders, openTargetHeaders, sealTargetHeaders } from './target-headers';
import { sealProviderTargetHeaders } from './target-headers-migration';

const cipher = new SecretCipher({ current: { version: 1, key: randomBytes(32) } });
const TOKEN = 'tok-Vb7nQ2wLx9Kp4Rz';
const SUBSCRIPTION = 'sub-Hq3mZt8Ys1Nc6Wd';

describe('provider target headers', () => {
  it('names credentials however a server spells them, and nothing else', () => {
    for (const name of ['Authorization', 'X-Auth-Token', 'Ocp-Apim-Subscription-Key', 'X-Client-Secret', 'x-access-token', 'Cookie']) expect({ name, credential: isCredentialHeader(name) }).toEqual({ name, credential: true });
    for (const name of ['X-Team', 'OpenAI-Organization', 'anthropic-version']) expect({ name, credential: isCredentialHeader(name) }).toEqual({ name, credential: false });
  });

  it('seals credential headers for the organization, opens them for the upstream and masks them for the API', () => {
    const stored = sealTargetHeaders(cipher, ORG_A, { 'X-Auth-Token': TOKEN, 'x-team': 'ml' });
    expect(stored.headers).toEqual({ 'x-team': 'ml' });
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    const target = { org_id: ORG_A, ...stored };
    expect(openTargetHeaders(cipher, target)).toEqual({ 'x-auth-token': TOKEN, 'x-team': 'ml' });
    expect(maskedTargetHeaders(target)).toEqual({ 'x-auth-token': '[REDACTED]', 'x-team': 'ml' });
    // A clear credential header of an older document is masked too.
    expect(maskedTargetHeaders({ headers: { authorization: `Bearer ${TOKEN}`, 'x-team': 'ml' } })).toEqual({ authorization: '[REDACTED]', 'x-team': 'ml' });
    // Copied into another organization it does not open: left out and reported, never thrown.
    const failed: string[] = [];
    expect(openTargetHeaders(cipher, { ...target, org_id: ORG_B }, (name) => failed.push(name))).toEqual({ 'x-team': 'ml' });
    expect(failed).toEqual(['x-auth-token']);
  });
});

describe.each(storeTargets(process.env.MONGODB_URI))('sealProviderTargetHeaders ($name)', (storeTarget) => {
  const t = useRepository(storeTarget, (store) => new ProviderTargetRepository(store));
  const raw = (id: string) => t.ctx.store.collection(PROVIDER_TARGETS).findOne({ _id: id });
  const legacy = (id: string, orgId: string, headers: Record<string, string>) =>
    insertLegacyProviderTarget(t.ctx.store, { _id: id, org_id: orgId, provider_id: id.replace('tgt_', ''), base_url: 'https://93.184.216.34/v1', headers, models: ['m1'], last_discovery_status: 'succeeded', created_at: new Date('2026-01-01T00:00:00Z') });

  it('seals the credential headers of documents stored before, keeps every other field, and is a no-op the second time', async () => {
    const withSecrets = await legacy('tgt_legacy1', ORG_A, { 'x-auth-token': TOKEN, 'ocp-apim-subscription-key': SUBSCRIPTION, 'x-team': 'ml' });
    const plain = await legacy('tgt_legacy2', ORG_B, { 'x-team': 'ops' });
    const current = await t.repo.create(ORG_A, { name: 'New', provider_id: 'new', base_url: 'https://93.184.216.34/v1', headers: { 'x-team': 'new' } });

    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
    expect(await sealProviderTargetHeaders(t.repo, cipher, logger)).toEqual({ sealed: 1, marked: 1 });
    expect(lines.join('')).toContain('"sealed":1');
    expect(lines.join('')).not.toContain(TOKEN);
    const sealed = present(await raw(withSecrets._id));
    expect(JSON.stringify(sealed)).not.toContain(TOKEN);
    expect(JSON.stringify(sealed)).not.toContain(SUBSCRIPTION);
    expect(sealed.headers).toEqual({ 'x-team': 'ml' });
    expect(openTargetHeaders(cipher, sealed)).toEqual({ 'x-auth-token': TOKEN, 'ocp-apim-subscription-key': SUBSCRIPTION, 'x-team': 'ml' });
    expect({ ...sealed, headers: null, sealed_headers: null }).toEqual({ ...withSecrets, headers: null, sealed_headers: null });
    expect(await raw(plain._id)).toEqual({ ...plain, sealed_headers: {} });
    expect(await raw(current._id)).toEqual(current);

    // Twice, and two replicas at once: nothing left to do, nothing changes.
    const before = await Promise.all([raw(withSecrets._id), raw(plain._id)]);
    expect(await Promise.all([sealProviderTargetHeaders(t.repo, cipher), sealProviderTargetHeaders(t.repo, cipher)])).toEqual([
      { sealed: 0, marked: 0 },
      { sealed: 0, marked: 0 },
    ]);
    expect(await Promise.all([raw(withSecrets._id), raw(plain._id)])).toEqual(before);
  });

  it('routes carry the headers of both shapes: clear ones of an older document, sealed ones to open', async () => {
    await legacy('tgt_legacy3', ORG_A, { 'x-auth-token': TOKEN });
    const open = async () => {
      const routes = await loadOrgProviderTargets({ providerTargets: t.repo, discoveredModels: { listByTarget: async () => [] } }, ORG_A);
      return openTargetHeaders(cipher, { org_id: ORG_A, headers: routes[0].headers, sealed_headers: routes[0].sealedHeaders });
    };
    expect(await open()).toEqual({ 'x-auth-token': TOKEN });
    await sealProviderTargetHeaders(t.repo, cipher);
    expect(JSON.stringify(await raw('tgt_legacy3'))).not.toContain(TOKEN);
    expect(await open()).toEqual({ 'x-auth-token': TOKEN });
  });

  it('leaves a document written meanwhile to its writer (the pass reads it again)', async () => {
    const target = await legacy('tgt_legacy4', ORG_A, { 'x-auth-token': TOKEN });
    // A discovery run stamps updated_at after the pass read the document: the stale read does not write.
    await t.repo.recordDiscovery(ORG_A, target._id, 'failed', new Date(target.updated_at.getTime() + 1000));
    expect(await t.repo.sealHeaders(ORG_A, target._id, target.updated_at, sealTargetHeaders(cipher, ORG_A, target.headers))).toBe(false);
    expect(await sealProviderTargetHeaders(t.repo, cipher)).toEqual({ sealed: 1, marked: 0 });
    expect(present(await raw(target._id))).toMatchObject({ headers: {}, last_discovery_status: 'failed' });
  });
});
