import { storeTargets, StoreUnderTest } from '../testing/stores';
import { Collection, defineCollection, DuplicateKeyError } from './types';

interface Account {
  _id: string;
  org_id: string;
  email?: string;
  name: string;
  status: 'active' | 'revoked';
}

const ACCOUNTS = defineCollection<Account>('accounts', [
  { fields: { email: 1 }, unique: true, name: 'email_unique', comment: 'login by email' },
  {
    fields: { org_id: 1, name: 1 },
    unique: true,
    partialFilterExpression: { status: 'active' },
    comment: 'an active name is unique per org',
  },
]);

async function duplicateOf(promise: Promise<unknown>): Promise<DuplicateKeyError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DuplicateKeyError);
  return error as DuplicateKeyError;
}

describe.each(storeTargets(process.env.MONGODB_URI))('Unique indexes ($name)', (target) => {
  let ctx: StoreUnderTest;
  let accounts: Collection<Account>;

  beforeEach(async () => {
    ctx = await target.open();
    accounts = ctx.store.collection(ACCOUNTS);
    await ctx.store.ready();
  });
  afterEach(() => ctx.cleanup());

  const account = (id: string, extra: Partial<Account> = {}): Account => ({
    _id: id,
    org_id: 'org_a',
    email: `${id}@example.com`,
    name: id,
    status: 'active',
    ...extra,
  });

  it('rejects a second document with the same value, naming the index and its fields', async () => {
    await accounts.insertOne(account('a1', { email: 'same@example.com' }));
    const error = await duplicateOf(accounts.insertOne(account('a2', { email: 'same@example.com' })));
    expect(error).toMatchObject({ collection: 'accounts', index: 'email_unique', fields: ['email'], code: 'duplicate_key' });
    expect(await accounts.count({})).toBe(1);
  });

  it('enforces compound keys: the same name is fine in another org', async () => {
    await accounts.insertOne(account('a1', { name: 'ci' }));
    await accounts.insertOne(account('a2', { name: 'ci', org_id: 'org_b' }));
    const error = await duplicateOf(accounts.insertOne(account('a3', { name: 'ci' })));
    expect(error).toMatchObject({ index: 'org_id_1_name_1', fields: ['org_id', 'name'] });
  });

  it('applies a partial unique index only to matching documents', async () => {
    await accounts.insertOne(account('a1', { name: 'ci', status: 'revoked' }));
    await accounts.insertOne(account('a2', { name: 'ci', status: 'revoked' }));
    await accounts.insertOne(account('a3', { name: 'ci' }));
    await duplicateOf(accounts.insertOne(account('a4', { name: 'ci' })));
    // Revoking the active one frees the name.
    await accounts.updateOne({ _id: 'a3' }, { $set: { status: 'revoked' } });
    await expect(accounts.insertOne(account('a4', { name: 'ci' }))).resolves.toMatchObject({ _id: 'a4' });
  });

  it('treats a missing field as null: two documents without it conflict', async () => {
    await accounts.insertOne(account('a1', { email: undefined }));
    await duplicateOf(accounts.insertOne(account('a2', { email: undefined })));
  });

  it('rejects an update that would take an existing key, and leaves the document unchanged', async () => {
    await accounts.insertMany([account('a1'), account('a2')]);
    await duplicateOf(accounts.updateOne({ _id: 'a2' }, { $set: { email: 'a1@example.com' } }));
    await duplicateOf(accounts.findOneAndUpdate({ _id: 'a2' }, { $set: { email: 'a1@example.com' } }));
    expect(await accounts.findOne({ _id: 'a2' })).toMatchObject({ email: 'a2@example.com' });
    // The key the update failed to take away is still held by a2.
    await duplicateOf(accounts.insertOne(account('a3', { email: 'a2@example.com' })));
  });

  it('rejects an upsert that would insert a taken key', async () => {
    await accounts.insertOne(account('a1'));
    await duplicateOf(
      accounts.updateOne({ _id: 'a9' }, { $setOnInsert: { ...account('a9'), email: 'a1@example.com' } }, { upsert: true }),
    );
  });

  it('frees a key when its document is deleted or changes it', async () => {
    await accounts.insertOne(account('a1'));
    await accounts.updateOne({ _id: 'a1' }, { $set: { email: 'new@example.com' } });
    await accounts.insertOne(account('a2', { email: 'a1@example.com' }));
    await accounts.deleteOne({ _id: 'a1' });
    await expect(accounts.insertOne(account('a3', { email: 'new@example.com' }))).resolves.toMatchObject({ _id: 'a3' });
  });

  it('still enforces the indexes after a reopen', async () => {
    await accounts.insertOne(account('a1'));
    const reopened = (await ctx.reopen()).collection(ACCOUNTS);
    await duplicateOf(reopened.insertOne(account('a2', { email: 'a1@example.com' })));
  });
});
