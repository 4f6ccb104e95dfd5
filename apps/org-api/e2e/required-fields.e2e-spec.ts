import { asOrgId } from '@svc/domain';
import { Json, OrgApi, Session } from './org-api.helpers';

/**
 * A required field left out or sent as null gets one message of its own ("<field> is required",
 * "<field> must not be null"), not its type checks ("each value in scopes must be a string; scopes
 * must be an array"); other fields keep their messages.
 */
describe('org API: messages of required fields left out or null', () => {
  let api: OrgApi;
  let owner: Session;
  beforeAll(async () => {
    api = await OrgApi.boot();
    owner = await api.loginOwner();
  });
  afterAll(() => api.stop());

  const routes = {
    keys: '/api/v1/platform/api-keys',
    webhooks: '/api/v1/admin/webhooks',
    budgets: '/api/v1/admin/costs/budgets',
    members: () => `/api/v1/organizations/${owner.orgId}/members`,
  };
  const member = { email: 'required-member@example.com', password: 'required-member-pass-1', role: 'Member' };
  const hook = { url: 'https://hooks.example.com/required', events: ['budget.exceeded'] };

  const counts = async () => {
    const org = asOrgId(owner.orgId);
    return {
      keys: (await api.repos.apiKeys.list(org, { limit: 1000 })).total,
      webhooks: (await api.repos.webhooks.list(org, { limit: 1000 })).total,
      budgets: (await api.call('GET', routes.budgets, { token: owner.token })).body.total,
      members: (await api.call('GET', `${routes.members()}?limit=100`, { token: owner.token })).body.total,
    };
  };

  const expectRefusal = async (path: string, body: Json | undefined, param: string, message: string) => {
    const res = await api.call('POST', path, { token: owner.token, body });
    expect({ path, body, status: res.status, code: res.body.error?.code, param: res.body.error?.details?.param, message: res.body.error?.message }).toEqual({
      path,
      body,
      status: 400,
      code: 'VALIDATION_ERROR',
      param,
      message,
    });
  };

  it('says "<field> is required" alone for a required field left out, on every create', async () => {
    const before = await counts();
    const cases: [string, Json | undefined, string, string][] = [
      [routes.keys, { name: 'k' }, 'scopes', 'scopes is required'],
      [routes.keys, { scopes: ['gateway:read'] }, 'name', 'name is required'],
      [routes.keys, {}, 'name', 'name is required; scopes is required'],
      [routes.keys, undefined, 'name', 'name is required; scopes is required'],
      [routes.webhooks, { events: hook.events }, 'url', 'url is required'],
      [routes.webhooks, { url: hook.url }, 'events', 'events is required'],
      [routes.budgets, { name: 'n' }, 'limit', 'limit is required'],
      [routes.budgets, { name: 'n', limit: 5, alerts: [{ channels: ['email'] }] }, 'alerts.0.threshold', 'threshold is required'],
      [routes.members(), { email: member.email, password: member.password }, 'role', 'role is required'],
      [routes.members(), { password: member.password, role: member.role }, 'email', 'email is required'],
    ];
    for (const [path, body, param, message] of cases) await expectRefusal(path, body, param, message);
    expect(await counts()).toEqual(before);
  });

  it('says "<field> must not be null" alone for a required field sent as null; other fields keep their messages', async () => {
    const before = await counts();
    const cases: [string, Json, string, string][] = [
      [routes.keys, { name: 'k', scopes: null }, 'scopes', 'scopes must not be null'],
      [routes.keys, { name: null, scopes: 'gateway:read' }, 'name', 'name must not be null; scopes must be an array'],
      [routes.webhooks, { ...hook, url: null }, 'url', 'url must not be null'],
      [routes.budgets, { name: 'n', limit: null }, 'limit', 'limit must not be null'],
      [routes.budgets, { name: 'n', limit: 5, alerts: [{ threshold: null, channels: ['email'] }] }, 'alerts.0.threshold', 'threshold must not be null'],
      [routes.members(), { ...member, email: null }, 'email', 'email must not be null'],
      [routes.members(), { ...member, email: null, password: 'short' }, 'email', 'email must not be null; password must be longer than or equal to 12 characters'],
    ];
    for (const [path, body, param, message] of cases) await expectRefusal(path, body, param, message);
    expect(await counts()).toEqual(before);
    // The control: the same bodies with the field given are created.
    expect((await api.call('POST', routes.keys, { token: owner.token, body: { name: 'required-ok', scopes: ['gateway:read'] } })).status).toBe(201);
    expect((await api.call('POST', routes.members(), { token: owner.token, body: member })).status).toBe(201);
  });
});
