import { asOrgId } from '@svc/domain';
import { createOrg, GatewayHarness, Json, postJson, PROVIDER_KEY, recordOf, startGateway } from './harness';

/**
 * The counters of stage 2.5 (DECISIONS.md "Hierarchical budgets"; docs/governance-stages.md "Reservations
 * and settling") after refusals: a request refused by one node, or by a later stage, leaves nothing
 * on the other nodes, so a sibling key keeps exactly the room its served requests left.
 */
describe('budget node counters after refusals', () => {
  let gw: GatewayHarness;
  const chat = (content: string) => ({ model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content }] });
  const send = (key: string, body: Json) => postJson(`${gw.url}/v1/chat/completions`, body, { 'X-SVC-API-Key': key, 'X-Provider-Key': PROVIDER_KEY });
  const settled = () => new Promise((resolve) => setTimeout(resolve, 60));

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.stop());

  /** The estimate (X-SVC-Cost) and the charged cost of one request of the shape `<word> <digit>`, measured before any node exists. */
  async function measure(key: string, orgId: string, word: string): Promise<{ estimate: number; cost: number }> {
    const probe = await send(key, chat(`${word} 9`));
    expect(probe.status).toBe(200);
    const record = await recordOf(gw, probe.headers.get('x-svc-request-id'), orgId);
    expect(record.cost).toBeGreaterThan(0);
    return { estimate: Number(probe.headers.get('x-svc-cost')), cost: record.cost };
  }

  it("a key node's refusals charge neither the org node nor the team node: a sibling key gets exactly the room its own spend leaves", async () => {
    const org = await createOrg(gw, 'growth');
    const id = asOrgId(org.orgId);
    const blocked = await org.newKey({ teamId: 'team_a' });
    const sibling = await org.newKey({ teamId: 'team_a' });
    const { estimate, cost } = await measure(sibling.key, org.orgId, 'sibling');
    // Refused when spent + reserved + estimate > limit: with 3.5 costs of room beyond one estimate, four requests pass.
    const limit = estimate + cost * 3.5;
    const root = await gw.repos.budgetNodes.create(id, { name: 'Company', level: 'org', budget_limit: limit, reset_period: 'daily' });
    const team = await gw.repos.budgetNodes.create(id, { name: 'Team A', level: 'team', team_id: 'team_a', parent_id: root._id, budget_limit: limit, reset_period: 'weekly' });
    await gw.repos.budgetNodes.create(id, { name: 'Blocked key', level: 'key', key_id: blocked.keyId, team_id: 'team_a', parent_id: team._id, budget_limit: 0.0000001, reset_period: 'monthly' });
    await gw.service.runtime.invalidation.publish('policy', org.orgId);

    for (let i = 0; i < 8; i++) {
      const refused = await send(blocked.key, chat(`blocked ${i}`));
      expect(refused.body.error).toMatchObject({ code: 'budget_hierarchy_exceeded', gateway_error_code: 'GW_BUDGET_HIERARCHY_001' });
      expect(refused.body.error.message).toContain('key budget "Blocked key"');
    }
    const statuses: number[] = [];
    let last: Json = {};
    for (let i = 0; i < 6; i++) {
      const res = await send(sibling.key, chat(`sibling ${i}`));
      statuses.push(res.status);
      last = res.body;
      await settled();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 403, 403]);
    // The first node over its limit in the order org, team, key names itself: the org node.
    expect(last.error.message).toContain('org budget "Company"');
    expect(gw.mock.requests.filter((r) => JSON.stringify(r.body ?? '').includes('blocked '))).toHaveLength(0);
  });

  it('requests refused after stage 2.5 (PII, 403) or held for approval (202) give their reservations back on every node', async () => {
    const org = await createOrg(gw, 'growth');
    const id = asOrgId(org.orgId);
    const { estimate, cost } = await measure(org.key, org.orgId, 'held');
    // Room for one estimate and not two: a reservation left behind by any refusal would refuse the next request.
    await gw.repos.budgetNodes.create(id, { name: 'Company', level: 'org', budget_limit: estimate * 1.5, reset_period: 'daily' });
    await gw.service.runtime.invalidation.publish('policy', org.orgId);
    for (let i = 0; i < 10; i++) {
      expect((await send(org.key, chat(`my ssn is 123-45-678${i}`))).body.error).toMatchObject({ code: 'pii_detected' });
      await settled();
    }
    await gw.repos.policies.replace(id, { hitl_cost_threshold: estimate / 2 });
    await gw.service.runtime.invalidation.publish('policy', org.orgId);
    for (let i = 0; i < 5; i++) {
      expect((await send(org.key, chat(`held ${i}`))).status).toBe(202);
      await settled();
    }
    await gw.repos.policies.delete(id);
    await gw.service.runtime.invalidation.publish('policy', org.orgId);
    await settled();
    const served = await send(org.key, chat('held 8'));
    expect(served.status).toBe(200);
    expect(cost).toBeLessThan(estimate);
  });
});
