import { generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour } from '../crypto/api-key-material';
import { DuplicateKeyError } from '../store/types';
import { storeTargets, StoreUnderTest } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B } from '../testing/jest-helpers';
import { ApiKeyRepository, NewApiKey } from './api-key.repository';

function keyInput(name: string, extra: Partial<NewApiKey> = {}): NewApiKey & { plaintext: string } {
  const plaintext = generateApiKey();
  return {
    plaintext,
    name,
    key_hash: hashApiKey(plaintext),
    key_prefix: keyDisplayPrefix(plaintext),
    last_four: keyLastFour(plaintext),
    scopes: ['gateway:write'],
    ...extra,
  };
}

describe.each(storeTargets(process.env.MONGODB_URI))('ApiKeyRepository ($name)', (target) => {
  let ctx: StoreUnderTest;
  let keys: ApiKeyRepository;

  beforeEach(async () => {
    ctx = await target.open();
    keys = new ApiKeyRepository(ctx.store);
    await ctx.store.ready();
  });
  afterEach(() => ctx.cleanup());

  it('creates a key storing only its hash, display prefix and last four', async () => {
    const input = keyInput('ci', { ip_allowlist: ['10.0.0.0/8'], team_id: 'team_1' });
    const created = await keys.create(ORG_A, input);
    expect(created).toMatchObject({
      org_id: ORG_A,
      name: 'ci',
      key_hash: hashApiKey(input.plaintext),
      key_prefix: input.plaintext.slice(0, 11),
      last_four: input.plaintext.slice(-4),
      scopes: ['gateway:write'],
      ip_allowlist: ['10.0.0.0/8'],
      status: 'active',
      replaced_by: null,
      team_id: 'team_1',
      last_used_at: null,
    });
    expect(created._id).toMatch(/^key_/);
    expect(JSON.stringify(created)).not.toContain(input.plaintext);
  });

  it('finds a key by hash across organizations (gateway authentication)', async () => {
    const input = keyInput('ci');
    const created = await keys.create(ORG_B, input);
    expect(await keys.findByHash(hashApiKey(input.plaintext))).toEqual(created);
    expect(await keys.findByHash(hashApiKey(generateApiKey()))).toBeNull();
  });

  it('keeps names unique per organization among current keys', async () => {
    await keys.create(ORG_A, keyInput('ci'));
    await keys.create(ORG_B, keyInput('ci'));
    await expect(keys.create(ORG_A, keyInput('ci'))).rejects.toBeInstanceOf(DuplicateKeyError);
    const existing = await keys.findByName(ORG_A, 'ci');
    expect(existing?.name).toBe('ci');
  });

  it('revokes a key, which frees its name', async () => {
    const created = await keys.create(ORG_A, keyInput('ci'));
    const revoked = await keys.revoke(ORG_A, created._id);
    expect(revoked).toMatchObject({ status: 'revoked' });
    expect(revoked?.revoked_at).toBeInstanceOf(Date);
    expect(await keys.revoke(ORG_A, created._id)).toBeNull();
    await expect(keys.create(ORG_A, keyInput('ci'))).resolves.toMatchObject({ name: 'ci' });
  });

  it('rotates a key: the replacement takes the name, the old key keeps a grace period', async () => {
    const created = await keys.create(ORG_A, keyInput('ci', { scopes: ['gateway:write', 'admin:read'], team_id: 't1' }));
    const next = keyInput('ignored');
    const graceUntil = new Date(Date.now() + 24 * 3600_000);
    const rotated = await keys.rotate(ORG_A, created._id, next, graceUntil);
    expect(rotated?.previous).toMatchObject({ _id: created._id, replaced_by: rotated?.current._id, grace_until: graceUntil });
    expect(rotated?.current).toMatchObject({
      name: 'ci',
      scopes: ['gateway:write', 'admin:read'],
      team_id: 't1',
      key_hash: next.key_hash,
      status: 'active',
      replaced_by: null,
    });
    expect(await keys.findByName(ORG_A, 'ci')).toMatchObject({ _id: rotated?.current._id });
    expect(await keys.findByHash(created.key_hash)).toMatchObject({ status: 'active', replaced_by: rotated?.current._id });
    expect(await keys.rotate(ORG_A, created._id, keyInput('x'), graceUntil)).toBeNull();
  });

  it('stores expires_at (null when not given); a rotation keeps it unless given one, and caps the grace period at it', async () => {
    expect((await keys.create(ORG_A, keyInput('forever'))).expires_at).toBeNull();
    const expiresAt = new Date(Date.now() + 3600_000);
    const created = await keys.create(ORG_A, keyInput('ci', { expires_at: expiresAt }));
    expect((await keys.findByHash(created.key_hash))?.expires_at).toEqual(expiresAt);

    const kept = await keys.rotate(ORG_A, created._id, keyInput('x'), new Date(Date.now() + 24 * 3600_000));
    expect(kept?.previous.grace_until).toEqual(expiresAt);
    expect(kept?.current.expires_at).toEqual(expiresAt);
    const soon = new Date(Date.now() + 60_000);
    const renewed = await keys.rotate(ORG_A, kept?.current._id ?? '', keyInput('y', { expires_at: null }), soon);
    expect(renewed?.previous.grace_until).toEqual(soon);
    expect(renewed?.current.expires_at).toBeNull();
  });

  it('undoes the first half of a rotation when the new key cannot be stored', async () => {
    const created = await keys.create(ORG_A, keyInput('ci'));
    const clash = await keys.create(ORG_A, keyInput('other'));
    const reusedHash = { key_hash: clash.key_hash, key_prefix: clash.key_prefix, last_four: clash.last_four };
    await expect(keys.rotate(ORG_A, created._id, reusedHash, new Date())).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await keys.findById(ORG_A, created._id)).toMatchObject({ replaced_by: null, grace_until: null });
  });

  it('moves last_used_at only forward', async () => {
    const created = await keys.create(ORG_A, keyInput('ci'));
    const later = new Date('2030-01-02T00:00:00Z');
    await keys.touchLastUsed(ORG_A, created._id, later);
    await keys.touchLastUsed(ORG_A, created._id, new Date('2030-01-01T00:00:00Z'));
    expect((await keys.findById(ORG_A, created._id))?.last_used_at).toEqual(later);
  });

  it('lists keys newest first with offset, limit and total, and by team', async () => {
    for (let i = 0; i < 5; i += 1) {
      await keys.create(ORG_A, keyInput(`k${i}`, { team_id: i % 2 ? 'odd' : 'even' }), new Date(Date.UTC(2025, 0, i + 1)));
    }
    const page = await keys.list(ORG_A, { offset: 1, limit: 2 });
    expect(page).toMatchObject({ total: 5, offset: 1, limit: 2 });
    expect(page.items.map((k) => k.name)).toEqual(['k3', 'k2']);
    expect((await keys.listByTeam(ORG_A, 'odd')).map((k) => k.name)).toEqual(['k3', 'k1']);
  });

  it('lists the keys of a team created at the same moment newest first too (ties by id, as list does)', async () => {
    const at = new Date(Date.UTC(2025, 0, 1));
    for (const name of ['t1', 't2', 't3']) await keys.create(ORG_A, keyInput(name, { team_id: 'same' }), at);
    expect((await keys.list(ORG_A)).items.map((k) => k.name)).toEqual(['t3', 't2', 't1']);
    expect((await keys.listByTeam(ORG_A, 'same')).map((k) => k.name)).toEqual(['t3', 't2', 't1']);
  });

  it('isolates tenants', async () => {
    const created = await keys.create(ORG_A, keyInput('ci', { team_id: 'shared' }));
    await expectTenantIsolation(keys, created, { scopes: ['admin:write'] });
    expect(await keys.findByName(ORG_B, 'ci')).toBeNull();
    expect(await keys.revoke(ORG_B, created._id)).toBeNull();
    expect(await keys.rotate(ORG_B, created._id, keyInput('x'), new Date())).toBeNull();
    await keys.touchLastUsed(ORG_B, created._id, new Date('2030-01-01T00:00:00Z'));
    expect(await keys.listByTeam(ORG_B, 'shared')).toEqual([]);
    expect(await keys.findById(ORG_A, created._id)).toEqual(created);
  });
});
