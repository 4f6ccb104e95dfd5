import { asOrgId, EmbeddedDocumentStore, USAGE_RECORDS } from '@svc/domain';
import { GatewayHarness, postJson, PROVIDER_KEY, startGateway } from './harness';

/**
 * On the embedded document store a gateway process only writes usage records: the collection stays
 * on disk (docs/decisions.md) and nothing of it stays in memory. A gateway that read it (as a first
 * version of the budget-node seeds did) would hold every record it ever wrote, hundreds of MB under
 * load. Served, refused and governed requests, budget nodes included, must leave it unloaded.
 */
describe('gateway on the embedded store: usage records stay write-only', () => {
  let gw: GatewayHarness;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());

  it('leaves the usage collection unloaded after served and refused requests, with a budget node and a named budget', async () => {
    expect(gw.service.runtime.store).toBeInstanceOf(EmbeddedDocumentStore);
    const usage = gw.service.runtime.store.collection(USAGE_RECORDS) as unknown as { isLoaded?: boolean };
    expect(usage.isLoaded).toBe(false);
    await gw.repos.budgetNodes.create(asOrgId(gw.orgId), { name: 'org cap', level: 'org', budget_limit: 100, reset_period: 'daily' });
    await gw.repos.namedBudgets.create(asOrgId(gw.orgId), { name: 'daily', type: 'daily', limit: 100, auto_stop: true });
    await gw.service.runtime.invalidation.publish('policy', gw.orgId);
    const auth = { 'X-SVC-API-Key': gw.key, 'X-Provider-Key': PROVIDER_KEY };
    const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'write-only' }] };
    for (let i = 0; i < 5; i++) expect((await postJson(`${gw.url}/v1/chat/completions`, chat, auth)).status).toBe(200);
    expect((await postJson(`${gw.url}/v1/openai/chat/completions`, { ...chat, model: 'claude-sonnet-4-5' }, auth)).status).toBe(400);
    expect((await postJson(`${gw.url}/v1/chat/completions`, chat, { 'X-SVC-API-Key': 'svc_sk_unknown000000000000000000000000' })).status).toBe(401);
    // The records were written (the usage recorder flushes in batches), yet nothing read them back.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(usage.isLoaded).toBe(false);
  });
});
