import { ApiKeyEntity, asOrgId, createRepositories, generateApiKey, hashApiKey, OrgId, Repositories, silentLogger, storeTargets, StoreUnderTest } from '@svc/domain';
import { GatewayError, InvalidationBus } from '@svc/platform';
import { GatewayKeyAuthenticator } from './gateway-key-authenticator';

describe.each(storeTargets(process.env.MONGODB_URI))('gateway key cache and invalidations ($name)', (target) => {
  let ctx: StoreUnderTest;
  let repos: Repositories;
  let orgId: OrgId;

  beforeEach(async () => {
    ctx = await target.open();
    await ctx.store.ready();
    repos = createRepositories(ctx.store);
    orgId = asOrgId((await repos.organizations.create({ name: 'Acme', plan: 'growth' }))._id);
  });
  afterEach(() => ctx.cleanup());

  it('does not cache a lookup that was in flight when the key was revoked: the next request is refused at once', async () => {
    const secret = generateApiKey();
    const key = await repos.apiKeys.create(orgId, { name: 'k', key_hash: hashApiKey(secret), key_prefix: secret.slice(0, 12), last_four: secret.slice(-4), scopes: ['gateway:write'] });
    const bus = new InvalidationBus(null, silentLogger());
    // The real repository, with its first lookup held until the revoke below was published.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let lookups = 0;
    const apiKeys = Object.create(repos.apiKeys) as Repositories['apiKeys'];
    apiKeys.findByHash = async (hash: string): Promise<ApiKeyEntity | null> => {
      const record = await repos.apiKeys.findByHash(hash);
      if (lookups++ === 0) await held;
      return record;
    };
    const authenticator = new GatewayKeyAuthenticator({ apiKeys, organizations: repos.organizations }, bus, silentLogger(), { cacheTtlMs: 60_000 });
    const credential = { value: secret, location: 'authorization', kind: 'gateway' } as const;

    const first = authenticator.authenticate(credential, '127.0.0.1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lookups).toBe(1);
    await repos.apiKeys.revoke(orgId, key._id);
    await bus.publish('api-key', hashApiKey(secret));
    release();
    // The request that started before the revoke read the key as it was.
    await expect(first).resolves.toMatchObject({ orgId });

    const next = await authenticator.authenticate(credential, '127.0.0.1').catch((error: unknown) => error);
    expect(next).toBeInstanceOf(GatewayError);
    expect((next as GatewayError).status).toBe(401);
    expect(lookups).toBe(2);
  });
});
