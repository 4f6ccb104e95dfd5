import { randomBytes } from 'node:crypto';
import { SecretCipher } from '../crypto/secret-cipher';
import { DuplicateKeyError } from '../store/types';
import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, present, useRepository } from '../testing/jest-helpers';
import { ProviderSecretRepository } from './provider-secret.repository';

const cipher = new SecretCipher({ current: { version: 2, key: randomBytes(32) }, previous: [{ version: 1, key: randomBytes(32) }] });

describe.each(storeTargets(process.env.MONGODB_URI))('ProviderSecretRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new ProviderSecretRepository(store));

  const store = (orgId = ORG_A, provider = 'openai', plaintext = 'sk-test-1234') =>
    t.repo.create(orgId, { provider, encrypted: cipher.encrypt(orgId, plaintext), last_four: plaintext.slice(-4), label: 'prod' });

  it('stores an encrypted key with metadata; the plaintext is not in the record', async () => {
    const created = await store();
    expect(created).toMatchObject({ org_id: ORG_A, provider: 'openai', label: 'prod', last_four: '1234', key_version: 2, rotated_at: null });
    expect(JSON.stringify(created)).not.toContain('sk-test-1234');
    expect(cipher.decrypt(ORG_A, created)).toBe('sk-test-1234');
  });

  it('allows one secret per provider per organization', async () => {
    await store();
    await store(ORG_B);
    const error = await store().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateKeyError);
    expect(error).toMatchObject({ index: 'org_provider_unique', fields: ['org_id', 'provider'] });
  });

  it('finds by provider, lists by provider name, rotates and deletes', async () => {
    await store(ORG_A, 'openai');
    await store(ORG_A, 'anthropic', 'sk-ant-9999');
    expect((await t.repo.listAll(ORG_A)).map((s) => s.provider)).toEqual(['anthropic', 'openai']);
    const rotated = await t.repo.rotate(ORG_A, 'openai', cipher.encrypt(ORG_A, 'sk-new-5678'), '5678');
    expect(rotated).toMatchObject({ last_four: '5678', label: 'prod' });
    expect(rotated?.rotated_at).toBeInstanceOf(Date);
    expect(cipher.decrypt(ORG_A, present(await t.repo.findByProvider(ORG_A, 'openai')))).toBe('sk-new-5678');
    expect(await t.repo.rotate(ORG_A, 'mistral', cipher.encrypt(ORG_A, 'x'), 'x')).toBeNull();
    expect(await t.repo.deleteByProvider(ORG_A, 'openai')).toBe(true);
    expect(await t.repo.deleteByProvider(ORG_A, 'openai')).toBe(false);
  });

  it('finds records sealed with an older master key and re-seals them once', async () => {
    const old = new SecretCipher({ current: { version: 1, key: randomBytes(32) } });
    const sealed = await t.repo.create(ORG_A, { provider: 'groq', encrypted: old.encrypt(ORG_A, 'gsk-1'), last_four: 'sk-1' });
    await store(ORG_B);
    const stale = await t.repo.listSealedWithOtherKeyAcrossOrgs(2);
    expect(stale.map((s) => s._id)).toEqual([sealed._id]);
    const next = cipher.encrypt(ORG_A, 'gsk-1');
    expect(await t.repo.replaceEncryption(ORG_A, sealed._id, sealed, next)).toBe(true);
    expect(await t.repo.replaceEncryption(ORG_A, sealed._id, sealed, next)).toBe(false);
    expect(await t.repo.listSealedWithOtherKeyAcrossOrgs(2)).toEqual([]);
  });

  it('isolates tenants', async () => {
    const created = await store();
    await expectTenantIsolation(t.repo, created, { label: 'hijacked' });
    expect(await t.repo.findByProvider(ORG_B, 'openai')).toBeNull();
    expect(await t.repo.listAll(ORG_B)).toEqual([]);
    expect(await t.repo.rotate(ORG_B, 'openai', cipher.encrypt(ORG_B, 'evil'), 'evil')).toBeNull();
    expect(await t.repo.deleteByProvider(ORG_B, 'openai')).toBe(false);
    expect(await t.repo.replaceEncryption(ORG_B, created._id, created, cipher.encrypt(ORG_B, 'evil'))).toBe(false);
    expect(await t.repo.findByProvider(ORG_A, 'openai')).toEqual(created);
  });
});
