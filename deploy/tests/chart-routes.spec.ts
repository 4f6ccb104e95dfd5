import { join } from 'node:path';
import { CHART_DIR, ingressRoutes, probePath, readYaml, SERVICES, ServiceApp, templates } from './support/chart';
import { AppRoutes, ingressTarget, prefixMatches, readAllRoutes } from './support/routes';

/**
 * Probes and Ingress paths against the routes the apps really serve: each app's SERVICE
 * definition is booted (embedded stores, free ports) and its Fastify router asked.
 */
const files = templates();
const values = readYaml(join(CHART_DIR, 'values.yaml'));
const ingress = ingressRoutes(files.get('ingress.yaml') ?? '');

/** DECISIONS.md "Running it". */
const EXPECTED_INGRESS: { path: string; app: ServiceApp }[] = [
  { path: '/v1', app: 'gateway' },
  { path: '/gateway/admin/runners', app: 'runner-control-plane' },
  { path: '/gateway/admin', app: 'gateway-admin' },
  { path: '/api/v1', app: 'org-api' },
  // SPEC.md's /v1/admin/api-keys and /v1/admin/webhooks: served by the gateway admin, not the proxy.
  { path: '/v1/admin', app: 'gateway-admin' },
];

/** Routes for the cluster's own use, not published through the Ingress. */
const isOperational = (url: string) => ['/', '/health', '/metrics'].includes(url) || url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs-');

let routes: Record<ServiceApp, AppRoutes>;

beforeAll(async () => {
  routes = await readAllRoutes();
}, 60_000);

describe('the route reader', () => {
  it('finds every app\'s GET /health, and the gateway\'s proxy routes', () => {
    for (const { app } of SERVICES) expect({ app, health: routes[app].hasGet('/health') }).toEqual({ app, health: true });
    expect(routes.gateway.routes).toEqual(expect.arrayContaining([{ method: 'POST', url: '/v1/chat/completions' }, { method: 'GET', url: '/v1/health' }]));
    expect(routes.gateway.hasGet('/no-such-route')).toBe(false);
  });

  it('matches Kubernetes Prefix paths by whole segments and picks the longest', () => {
    expect(prefixMatches('/v1', '/v1/models')).toBe(true);
    expect(prefixMatches('/v1', '/v1')).toBe(true);
    expect(prefixMatches('/v1', '/v10/models')).toBe(false);
    expect(ingressTarget(EXPECTED_INGRESS, '/gateway/admin/runners/r1')?.app).toBe('runner-control-plane');
    expect(ingressTarget(EXPECTED_INGRESS, '/gateway/admin/policies')?.app).toBe('gateway-admin');
    expect(ingressTarget(EXPECTED_INGRESS, '/health')).toBeNull();
    expect(ingressTarget(EXPECTED_INGRESS, '/v1/admin/api-keys/key_1')?.app).toBe('gateway-admin');
    expect(ingressTarget(EXPECTED_INGRESS, '/v1/administrator/chat/completions')?.app).toBe('gateway');
  });
});

describe('probes', () => {
  it.each(SERVICES)('$app: startup, liveness and readiness probes call GET routes the app serves', ({ app }) => {
    const text = files.get(`${app}.yaml`) ?? '';
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const) {
      const path = probePath(text, probe);
      expect({ probe, path: path !== null }).toEqual({ probe, path: true });
      expect({ probe, path, served: routes[app].hasGet(path ?? '') }).toEqual({ probe, path, served: true });
      // A kubelet probe sends no credentials: the path answers 200 to a bare GET.
      expect({ probe, path, status: routes[app].answers[path ?? ''] }).toEqual({ probe, path, status: 200 });
    }
    expect(probePath(text, 'livenessProbe')).toBe('/health');
  });

  it('the gateway is ready when GET /v1/health answers (it reports Redis and MongoDB)', () => {
    expect(probePath(files.get('gateway.yaml') ?? '', 'readinessProbe')).toBe('/v1/health');
  });

  it('the ServiceMonitor scrapes a route the gateway serves', () => {
    expect(routes.gateway.hasGet('/metrics')).toBe(true);
  });
});

describe('Ingress', () => {
  it('routes the prefixes of DECISIONS.md "Running it" and /v1/admin to their services, with pathType Prefix', () => {
    expect(ingress.map(({ path, backend }) => ({ path, app: backend })).sort((a, b) => a.path.localeCompare(b.path))).toEqual(
      [...EXPECTED_INGRESS].sort((a, b) => a.path.localeCompare(b.path)),
    );
    expect(ingress.every((route) => route.pathType === 'Prefix')).toBe(true);
  });

  it('lists a longer prefix before any shorter prefix it extends (for controllers that match in order)', () => {
    ingress.forEach((route, i) => {
      const shadowedBy = ingress.slice(0, i).filter((earlier) => prefixMatches(earlier.path, route.path));
      expect({ path: route.path, shadowedBy }).toEqual({ path: route.path, shadowedBy: [] });
    });
  });

  it('sends traffic to the Service port named http, which each Service and container declares', () => {
    expect((files.get('ingress.yaml') ?? '').match(/port:\n\s+name: http/g)?.length).toBe(EXPECTED_INGRESS.length);
    for (const { app } of SERVICES) {
      const text = files.get(`${app}.yaml`) ?? '';
      expect(text).toMatch(/- name: http\n\s+port: \{\{ \.Values\.\w+\.port \}\}\n\s+targetPort: http/);
      expect(text).toMatch(/- name: http\n\s+containerPort: /);
    }
    expect(values.ingress).toMatchObject({ enabled: true });
  });

  it.each(EXPECTED_INGRESS)('$path: $app serves at least one route that the Ingress sends to it', ({ path, app }) => {
    const reachable = routes[app].routes.filter((route) => prefixMatches(path, route.url) && ingressTarget(ingress, route.url)?.backend === app);
    expect({ path, app, routes: reachable.length > 0 ? 'at least one' : 'none' }).toEqual({ path, app, routes: 'at least one' });
  });

  it.each(SERVICES)('$app: every API route it serves reaches it through the Ingress', ({ app }) => {
    const unreachable = routes[app].routes
      .filter((route) => !isOperational(route.url))
      .filter((route) => ingressTarget(ingress, route.url)?.backend !== app)
      .map((route) => `${route.method} ${route.url} -> ${ingressTarget(ingress, route.url)?.backend ?? 'no Ingress path'}`);
    expect(unreachable).toEqual([]);
  });
});
