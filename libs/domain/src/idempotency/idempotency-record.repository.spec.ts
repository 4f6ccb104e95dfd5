import { storeTargets } from '../testing/stores';
import { expectTenantIsolation, ORG_A, ORG_B, useRepository } from '../testing/jest-helpers';
import { IDEMPOTENCY_TTL_MS } from './idempotency-record.entity';
import { IdempotencyRecordRepository } from './idempotency-record.repository';

const RESPONSE = { status_code: 200, headers: { 'content-type': 'application/json' }, body: '{"id":"chatcmpl-1"}' };

describe.each(storeTargets(process.env.MONGODB_URI))('IdempotencyRecordRepository ($name)', (target) => {
  const t = useRepository(target, (store) => new IdempotencyRecordRepository(store));
  const now = () => new Date(t.ctx.clock.now());

  it('claims a key once; a second claim sees the record in flight, then completed', async () => {
    const first = await t.repo.claim(ORG_A, 'key-1', 'hash-1', now());
    expect(first).toMatchObject({ claimed: true, record: { state: 'in_progress', body_hash: 'hash-1', response: null } });
    expect(first.record._id).toMatch(/^idem_/);
    expect(await t.repo.claim(ORG_A, 'key-1', 'hash-2', now())).toMatchObject({ claimed: false, record: { state: 'in_progress', body_hash: 'hash-1' } });
    expect(await t.repo.complete(ORG_A, 'key-1', RESPONSE)).toMatchObject({ state: 'completed', response: RESPONSE });
    expect(await t.repo.complete(ORG_A, 'key-1', RESPONSE)).toBeNull();
    expect(await t.repo.claim(ORG_A, 'key-1', 'hash-1', now())).toMatchObject({ claimed: false, record: { state: 'completed', response: RESPONSE } });
  });

  it('releases a claim so the key can be used again', async () => {
    await t.repo.claim(ORG_A, 'key-1', 'hash-1', now());
    expect(await t.repo.release(ORG_A, 'key-1')).toBe(true);
    expect(await t.repo.claim(ORG_A, 'key-1', 'hash-2', now())).toMatchObject({ claimed: true });
  });

  it('forgets a key after 24 hours, so it can be claimed again', async () => {
    await t.repo.claim(ORG_A, 'key-1', 'hash-1', now());
    await t.repo.complete(ORG_A, 'key-1', RESPONSE);
    t.ctx.clock.advance(IDEMPOTENCY_TTL_MS + 1000);
    expect(await t.repo.findByKey(ORG_A, 'key-1')).toBeNull();
    expect(await t.repo.claim(ORG_A, 'key-1', 'hash-3', now())).toMatchObject({ claimed: true, record: { body_hash: 'hash-3' } });
  });

  it('isolates tenants: the same key is independent per organization', async () => {
    const mine = await t.repo.claim(ORG_A, 'key-1', 'hash-1', now());
    await expectTenantIsolation(t.repo, mine.record, { body_hash: 'evil' });
    expect(await t.repo.findByKey(ORG_B, 'key-1')).toBeNull();
    expect(await t.repo.complete(ORG_B, 'key-1', RESPONSE)).toBeNull();
    expect(await t.repo.release(ORG_B, 'key-1')).toBe(false);
    expect(await t.repo.claim(ORG_B, 'key-1', 'hash-9', now())).toMatchObject({ claimed: true, record: { org_id: ORG_B } });
    expect(await t.repo.findByKey(ORG_A, 'key-1')).toEqual(mine.record);
  });
});
