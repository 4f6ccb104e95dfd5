import { bootRunners, RunnerTestContext } from './runner-helpers';

type Operation = { security?: Record<string, string[]>[] };

/**
 * The runner routes take a gateway key or a dashboard access token (docs/runners.md), like every
 * admin route: the OpenAPI document must say so, or /docs' "Try it out" with a signed-in user's
 * token (Authorize → bearer) sends no credentials to the runner routes and gets a 401.
 */
describe('runner control plane OpenAPI document', () => {
  let t: RunnerTestContext;
  beforeAll(async () => {
    t = await bootRunners();
  });
  afterAll(() => t.stop());

  it('lists both the gateway key and the bearer token on every authenticated runner route', async () => {
    const doc = (await (await fetch(`${t.base}/docs/json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const secured = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/gateway/admin/runners'))
      .flatMap(([path, operations]) => Object.entries(operations).map(([method, op]) => ({ route: `${method} ${path}`, op })))
      .filter(({ op }) => op.security?.length);
    expect(secured.length).toBeGreaterThanOrEqual(12);
    const schemes = secured.map(({ route, op }) => [route, (op.security ?? []).flatMap((entry) => Object.keys(entry)).sort()]);
    expect(schemes).toEqual(secured.map(({ route }) => [route, ['bearer', 'gateway-key']]));
  });

  it('answers a dashboard access token on those routes, as documented', async () => {
    const res = await t.role('Owner').get('/');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ runners: [], total: 0 });
  });
});
