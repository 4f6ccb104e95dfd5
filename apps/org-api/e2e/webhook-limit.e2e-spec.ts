import { asOrgId } from '@svc/domain';
import { Json, OrgApi, Session } from './org-api.helpers';

/** WEBHOOK_MAX_PER_ORG: an organization cannot register webhooks without bound (they all load the shared dispatcher). */
describe('org API: at most WEBHOOK_MAX_PER_ORG webhooks per organization', () => {
  const MAX = 5;
  let api: OrgApi;
  let owner: Session;
  beforeAll(async () => {
    api = await OrgApi.boot({ WEBHOOK_MAX_PER_ORG: String(MAX) });
    owner = await api.loginOwner();
  });
  afterAll(() => api.stop());

  let counter = 0;
  const url = () => `https://8.8.8.8/limited/${(counter += 1)}`;
  const create = (session: Session, body: Json = { url: url(), events: ['budget.exceeded'] }) => api.call('POST', '/api/v1/admin/webhooks', { token: session.token, body });
  const stored = async (session: Session) => (await api.repos.webhooks.list(asOrgId(session.orgId), { limit: 1000 })).total;
  const expectLimit = (res: { status: number; body: Json }) => {
    expect({ status: res.status, code: res.body.error?.code, details: res.body.error?.details }).toEqual({ status: 409, code: 'WEBHOOK_LIMIT_REACHED', details: { limit: MAX } });
    expect(res.body.error.message).toContain(`at most ${MAX} webhooks`);
  };

  it('refuses the create past the cap with 409 WEBHOOK_LIMIT_REACHED; disabled webhooks count; a delete frees a place', async () => {
    const created: Json[] = [];
    for (let i = 0; i < MAX; i += 1) {
      const res = await create(owner);
      expect(res.status).toBe(201);
      created.push(res.body);
    }
    expect((await api.call('PATCH', `/api/v1/admin/webhooks/${created[0].id}`, { token: owner.token, body: { status: 'disabled' } })).body.status).toBe('disabled');
    expectLimit(await create(owner));
    // The cap is checked before the URL: a full organization gets the cap's answer, whatever it sends.
    expectLimit(await create(owner, { url: created[1].url, events: ['budget.exceeded'] }));
    expect(await stored(owner)).toBe(MAX);

    expect((await api.call('DELETE', `/api/v1/admin/webhooks/${created[0].id}`, { token: owner.token })).status).toBe(204);
    expect((await create(owner)).status).toBe(201);
    expectLimit(await create(owner));
    expect(await stored(owner)).toBe(MAX);
  });

  it("counts only the organization's own webhooks", async () => {
    const other = await api.otherOrganization('Other Org');
    expect(await stored(owner)).toBe(MAX);
    for (let i = 0; i < MAX; i += 1) expect((await create(other)).status).toBe(201);
    expectLimit(await create(other));
  });

  it('never goes past the cap under parallel creates, and still fills it', async () => {
    const burst = await api.otherOrganization('Burst Org');
    expect((await create(burst)).status).toBe(201);
    const replies = await Promise.all(Array.from({ length: 20 }, () => create(burst)));
    const statuses = replies.map((res) => res.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(MAX - 1);
    for (const res of replies.filter((reply) => reply.status !== 201)) expectLimit(res);
    expect(await stored(burst)).toBe(MAX);
  });
});
