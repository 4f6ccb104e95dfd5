import { bootRunners, Json, LOCAL_ON, RunnerApi, RunnerTestContext, seedKey } from './runner-helpers';

/**
 * docs/decisions-services.md "Tenant isolation": every runner route refuses a query parameter it does not take
 * (`?org_id=` above all) with 400 naming it, as it refuses unknown body fields; `?api_key=` is a
 * credential every route takes.
 */
describe('runner control plane: query parameters', () => {
  let t: RunnerTestContext;
  beforeAll(async () => {
    t = await bootRunners(LOCAL_ON);
  });
  afterAll(() => t.stop());

  it('refuses a query parameter a GET route does not take (?org_id= above all): 400 naming it; ?api_key= is taken everywhere', async () => {
    const runner = await t.admin.createRunner();
    const reads = ['/', `/${runner.runner_id}`, `/${runner.runner_id}/events`, `/${runner.runner_id}/stream`, '/prerequisites'];
    for (const path of reads) {
      for (const [name, value] of [['org_id', 'org_other'], ['org_id', t.orgId], ['colour', 'red']]) {
        const res = await t.admin.get(path, { [name]: value });
        expect({ path, status: res.status, error: res.body.error }).toEqual({
          path,
          status: 400,
          error: { type: 'invalid_request_error', code: 'invalid_request', param: name, message: `property ${name} should not exist` },
        });
      }
    }
    const apiKey = await seedKey(t.repos, t.orgId, ['admin:write']);
    for (const path of reads.filter((p) => !p.endsWith('/stream'))) {
      const res = await new RunnerApi(t.base, {}).get(path, { api_key: apiKey });
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
  });

  it('refuses a query parameter a write route does not take, with a body it accepts: 400 naming it, nothing done; ?api_key= is taken', async () => {
    const ready = await t.admin.createRunner();
    const running = await t.admin.createRunner();
    const session = await t.admin.startSession(running.runner_id);
    const byovm = await t.admin.post('/byovm/register', { machine_id: 'query-box' });
    expect(byovm.status).toBe(201);
    const sessionQuery = { session_id: session.session_id as string };
    const writes: [method: string, path: string, body?: Json, query?: Record<string, string>][] = [
      ['POST', '/', { provider_type: 'fake', tool_profile: 'locked', ttl_seconds: 600 }],
      ['POST', `/${ready.runner_id}/start`, {}],
      ['POST', `/${running.runner_id}/stop`, undefined, sessionQuery],
      ['POST', `/${running.runner_id}/exec`, { argv: ['echo', 'hi'] }, sessionQuery],
      ['POST', `/${ready.runner_id}/terminate`],
      ['POST', '/canary'],
      ['POST', '/byovm/register', { machine_id: 'query-box-2' }],
      ['DELETE', `/byovm/${byovm.body.runner_id}`],
    ];
    const state = async () => {
      const ids = [ready.runner_id, running.runner_id, byovm.body.runner_id];
      return {
        list: (await t.admin.get('/', { limit: '1000' })).body,
        runners: await Promise.all(ids.map(async (id) => (await t.admin.get(`/${id}`)).body)),
        events: await Promise.all(ids.map(async (id) => (await t.admin.get(`/${id}/events`, { limit: '1000' })).body)),
      };
    };
    const before = await state();
    const apiKey = await seedKey(t.repos, t.orgId, ['admin:write']);
    for (const [method, path, body, query = {}] of writes) {
      for (const [name, value] of [['org_id', 'org_other'], ['org_id', t.orgId], ['colour', 'red']]) {
        const res = await t.admin.request(method, path, body, { ...query, [name]: value });
        expect({ method, path, status: res.status, error: res.body.error }).toEqual({
          method,
          path,
          status: 400,
          error: { type: 'invalid_request_error', code: 'invalid_request', param: name, message: `property ${name} should not exist` },
        });
      }
      // The key through `api_key` alone (no header) authenticates and is no refusal: only `colour` is named.
      const viaQuery = await new RunnerApi(t.base, {}).request(method, path, body, { ...query, api_key: apiKey, colour: 'red' });
      expect({ method, path, status: viaQuery.status, error: viaQuery.body.error }).toEqual({
        method,
        path,
        status: 400,
        error: { type: 'invalid_request_error', code: 'invalid_request', param: 'colour', message: 'property colour should not exist' },
      });
    }
    expect(await state()).toEqual(before);
    // Without the parameter each is served (exec before stop, which ends the session): the query was the only refusal.
    const [create, start, stop, exec, ...rest] = writes;
    for (const [method, path, body, query] of [create, start, exec, stop, ...rest]) {
      const res = await t.admin.request(method, path, body, query);
      expect({ method, path, status: res.status < 300 ? 'served' : res.status, error: res.body.error }).toEqual({ method, path, status: 'served', error: undefined });
    }
  });
});
