import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@svc/platform';
import { CHART_DIR, isObject, ROOT, SERVICES, Yaml } from './support/chart';
import { parseDockerfile, stagesOf } from './support/dockerfile';
import { formatFloat, GoInt, Templates, truthy } from './support/gotemplate';
import { DEFINITIONS } from './support/routes';
import { Container, containerEnv, containerOf, podSpec } from './support/pods';
import { Manifest, MINIMAL_VALUES, renderChart, Rendered, RELEASE, TemplateFail, valuesFile } from './support/render';

/**
 * The chart rendered (support/render.ts: Helm's template language without a `helm` binary) with
 * the default values, both examples and a values file with every optional feature on, and the
 * rendered objects checked against each other and against the services.
 */
const example = (name: string) => valuesFile(join(CHART_DIR, 'examples', name));
const ALL_FEATURES = valuesFile(join(__dirname, 'fixtures', 'values-all-features.yaml'));
/** Values-managed secrets and datastore URLs: everything in the chart's own Secret. */
const IN_VALUES: Yaml = {
  secrets: { MASTER_ENCRYPTION_KEY: randomBytes(32).toString('base64'), JWT_SECRET: randomBytes(32).toString('hex'), BOOTSTRAP_ADMIN_PASSWORD: 'a-long-password', providerApiKeys: { openai: 'sk-x' } },
  redis: { url: 'rediss://default:pw@redis.example.internal:6380/0' },
  mongodb: { uri: 'mongodb+srv://svc:pw@cluster0.example.net/svc_gateway' },
};
const SCENARIOS: [string, Rendered][] = [
  ['defaults (external stores, existing Secret)', renderChart(MINIMAL_VALUES)],
  ['examples/values-bundled.yaml', renderChart(example('values-bundled.yaml'))],
  ['examples/values-external.yaml', renderChart(example('values-external.yaml'))],
  ['every optional feature on', renderChart(ALL_FEATURES)],
  ['secrets and datastore URLs in values', renderChart(IN_VALUES)],
];
const IMAGE_USER = Number(
  stagesOf(parseDockerfile(readFileSync(join(ROOT, 'deploy/docker/Dockerfile'), 'utf8'))).pop()?.instructions.filter((i) => i.keyword === 'USER').pop()?.rest.split(':')[0],
);

const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
const componentOf = (m: Manifest) => m.metadata.labels?.['app.kubernetes.io/component'];

describe('the template renderer', () => {
  const render = (source: string, data: unknown = {}) => {
    const set = new Templates();
    set.add('t', source);
    return set.render('t', data);
  };

  it('trims around {{- and -}}, skips comments, and scopes variables as Go does', () => {
    expect(render('a  \n {{- /* c */ -}} \n b')).toBe('ab');
    expect(render('{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ $y := 3 }}{{ end }}{{ $x }}')).toBe('2');
    expect(() => render('{{ if true }}{{ $y := 3 }}{{ end }}{{ $y }}')).toThrow(/undefined variable/);
    expect(render('{{ range $k, $v := .m }}{{ $k }}={{ $v }};{{ end }}', { m: { b: 2, a: 1 } })).toBe('a=1;b=2;');
    expect(render('{{ define "x" }}[{{ . }}]{{ end }}{{ include "x" "y" | upper }}')).toBe('[Y]');
  });

  it('prints whole float64 values from a million on in exponent form, as Helm does, and ints plainly', () => {
    expect(formatFloat(25000)).toBe('25000');
    expect(formatFloat(5242880)).toBe('5.24288e+06');
    expect(render('{{ .n }} {{ int64 .n }} {{ .n | quote }}', { n: 5242880 })).toBe('5.24288e+06 5242880 "5.24288e+06"');
    expect(truthy(new GoInt(0))).toBe(false);
  });

  it('is strict: missing keys, unknown functions and printed maps are errors; fail stops the render', () => {
    expect(() => render('{{ .a.b }}', { a: {} })).toThrow(/missing key/);
    expect(() => render('{{ nosuch 1 }}')).toThrow(/unknown function/);
    expect(() => render('{{ .a }}', { a: { b: 1 } })).toThrow(/toYaml/);
    expect(() => render('{{ fail "no" }}')).toThrow(TemplateFail);
  });

  it('urlParse, regexFind and trimPrefix answer as Sprig\'s do (a URL without a scheme is an error here)', () => {
    const parts = '{{ $u := urlParse .u }}{{ $u.scheme }} {{ $u.host }} {{ $u.hostname }} {{ $u.path }} {{ $u.userinfo }}';
    expect(render(parts, { u: 'HTTP://user:pw@[::1]:4318/v1?a=b' })).toBe('http [::1]:4318 ::1 /v1 user:pw');
    expect(render(parts, { u: 'https://otel.example.com' })).toBe('https otel.example.com otel.example.com  ');
    expect(render('{{ regexFind ":[0-9]+$" "otel:4318" | trimPrefix ":" }}|{{ regexFind ":[0-9]+$" "otel" }}|{{ trimPrefix "x" "ab" }}')).toBe('4318||ab');
    expect(() => render('{{ urlParse "no-scheme" }}')).toThrow(/urlParse/);
  });
});

describe('rendering refusals', () => {
  it('the default values alone refuse to render: Redis, MongoDB and the secrets must be configured', () => {
    expect(() => renderChart()).toThrow(/Redis is required/);
    expect(() => renderChart({ redis: { enabled: true } })).toThrow(/MongoDB is required/);
    expect(() => renderChart({ redis: { enabled: true }, mongodb: { enabled: true } })).toThrow(/MASTER_ENCRYPTION_KEY is required/);
  });

  it('refuses secrets in values that the services would refuse at start', () => {
    const base = { ...IN_VALUES, secrets: { ...(IN_VALUES.secrets as Yaml) } };
    expect(() => renderChart(base, { secrets: { JWT_SECRET: 'short' } })).toThrow(/JWT_SECRET .*at least 32 characters/);
    expect(() => renderChart(base, { secrets: { MASTER_ENCRYPTION_KEY: 'not-32-bytes' } })).toThrow(/MASTER_ENCRYPTION_KEY .*32 bytes/);
    expect(() => renderChart(base, { secrets: { BOOTSTRAP_ADMIN_PASSWORD: 'short' } })).toThrow(/BOOTSTRAP_ADMIN_PASSWORD .*12 characters/);
    expect(() => renderChart(base, { secrets: { MASTER_ENCRYPTION_KEY_PREVIOUS: randomBytes(32).toString('base64') } })).toThrow(/MASTER_ENCRYPTION_KEY_VERSION/);
  });

  it('refuses secret values beside secrets.existingSecret, which would ignore them without a word', () => {
    const existing = { ...MINIMAL_VALUES, secrets: { existingSecret: 'svc-secrets' } };
    expect(() => renderChart(existing)).not.toThrow();
    for (const key of ['MASTER_ENCRYPTION_KEY', 'MASTER_ENCRYPTION_KEY_PREVIOUS', 'JWT_SECRET', 'BOOTSTRAP_ADMIN_PASSWORD']) {
      expect(() => renderChart(existing, { secrets: { [key]: 'x'.repeat(44) } })).toThrow(/secrets\.existingSecret and .* exclude each other/);
    }
  });

  it('refuses a bundled MongoDB replica set: MONGODB_URI names the standalone Service, which a replica set does not have', () => {
    const bundled = example('values-bundled.yaml');
    expect(() => renderChart(bundled, { mongodb: { architecture: 'replicaset' } })).toThrow(/mongodb\.architecture must be standalone/);
    // External stores are the operator's: any architecture behind mongodb.uri / mongodb.existingSecret.
    expect(() => renderChart(MINIMAL_VALUES, { mongodb: { architecture: 'replicaset' } })).not.toThrow();
    const uri = (containerOf(renderChart(bundled).get('Deployment', `${RELEASE.Name}-svc-gateway-gateway`)).env ?? []).find((e) => e.name === 'MONGODB_URI')?.value;
    expect(uri).toMatch(new RegExp(`@${RELEASE.Name}-mongodb:27017/`));
  });

  it('refuses a grace period that the preStop pause and the drain do not fit in', () => {
    expect(() => renderChart(MINIMAL_VALUES, { config: { SHUTDOWN_TIMEOUT_MS: 40000 } })).toThrow(/terminationGracePeriodSeconds \(40\) must exceed/);
  });
});

describe.each(SCENARIOS)('rendered: %s', (_, rendered) => {
  const deployments = rendered.all('Deployment');
  const fullname = `${RELEASE.Name}-svc-gateway`;

  it('renders YAML objects with kinds, names and the chart labels; one Deployment and Service per service', () => {
    for (const m of rendered.manifests) {
      expect({ kind: m.kind, apiVersion: typeof m.apiVersion, name: m.metadata?.name }).toEqual({ kind: m.kind, apiVersion: 'string', name: expect.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/) });
      expect(m.metadata.labels).toMatchObject({ 'app.kubernetes.io/instance': RELEASE.Name, 'app.kubernetes.io/managed-by': 'Helm' });
    }
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(SERVICES.map((s) => `${fullname}-${s.app}`).sort());
    expect(rendered.all('Service').map((s) => s.metadata.name).sort()).toEqual(SERVICES.map((s) => `${fullname}-${s.app}`).sort());
    expect(rendered.files.get('NOTES.txt')).toContain(`deployment/${fullname}-gateway`);
  });

  it.each(SERVICES)('$app: selector, pod labels, Service, PodDisruptionBudget and autoscaler agree', ({ key, app }) => {
    const deployment = rendered.get('Deployment', `${fullname}-${app}`);
    const template = podSpec(deployment);
    const selector = (deployment.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
    expect(selects(selector, template.metadata.labels)).toBe(true);
    expect(selector['app.kubernetes.io/component']).toBe(app);
    // No other Deployment's pods match this selector.
    expect(deployments.filter((d) => selects(selector, podSpec(d).metadata.labels)).map((d) => d.metadata.name)).toEqual([deployment.metadata.name]);
    const service = rendered.get('Service', `${fullname}-${app}`);
    const serviceSpec = service.spec as { selector: Record<string, string>; ports: { name: string; port: number; targetPort: string }[] };
    expect(serviceSpec.selector).toEqual(selector);
    const containerPorts = containerOf(deployment).ports ?? [];
    for (const port of serviceSpec.ports) expect(containerPorts.map((p) => p.name)).toContain(port.targetPort);
    expect(serviceSpec.ports[0].port).toBe(rendered.values[key] && (rendered.values[key] as Yaml).port);
    const pdb = rendered.all('PodDisruptionBudget').find((p) => componentOf(p) === app);
    expect(Boolean(pdb)).toBe(Boolean(((rendered.values[key] as Yaml).pdb as Yaml).enabled));
    if (pdb) expect((pdb.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels).toEqual(selector);
    const hpa = rendered.all('HorizontalPodAutoscaler').find((h) => componentOf(h) === app);
    if (hpa) {
      expect((hpa.spec as { scaleTargetRef: Yaml }).scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
      // The autoscaler owns the replica count: a replicas field would fight it on every upgrade.
      expect(deployment.spec).not.toHaveProperty('replicas');
    } else expect((deployment.spec as Yaml).replicas).toBe((rendered.values[key] as Yaml).replicaCount);
  });

  it.each(SERVICES)('$app: runs as the image user, non-root, read-only root, no privileges, RuntimeDefault seccomp', ({ app }) => {
    const deployment = rendered.get('Deployment', `${fullname}-${app}`);
    const spec = podSpec(deployment).spec as Yaml & { volumes: { name: string; emptyDir?: Yaml }[] };
    expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: IMAGE_USER, seccompProfile: { type: 'RuntimeDefault' } });
    expect(spec.automountServiceAccountToken).toBe(false);
    const container = containerOf(deployment);
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, privileged: false, capabilities: { drop: ['ALL'] } });
    // Every path the service writes to is on a writable volume: /tmp (the OS temp directory), DATA_DIR and RUNNER_WORK_DIR.
    const mounts = container.volumeMounts as { name: string; mountPath: string; readOnly?: boolean }[];
    for (const mount of mounts) expect(spec.volumes.map((v) => v.name)).toContain(mount.name);
    const writable = mounts.filter((m) => !m.readOnly).map((m) => m.mountPath);
    const env = containerEnv(rendered, container);
    for (const path of ['/tmp', env.DATA_DIR, env.RUNNER_WORK_DIR].filter(Boolean)) {
      expect({ path, writable: writable.some((mount) => path === mount || path.startsWith(`${mount}/`)) }).toEqual({ path, writable: true });
    }
  });

  it.each(SERVICES)('$app: the container environment is a valid production configuration with the right port', ({ app }) => {
    const deployment = rendered.get('Deployment', `${fullname}-${app}`);
    const container = containerOf(deployment);
    const env = containerEnv(rendered, container);
    expect(Object.values(env).filter((value) => /\$\(/.test(value))).toEqual([]);
    const config = loadConfig(env);
    expect(config.NODE_ENV).toBe('production');
    expect(config.REDIS_URL).toMatch(/^rediss?:\/\/./);
    expect(config.MONGODB_URI).toMatch(/^mongodb(\+srv)?:\/\/./);
    expect(config.OTEL_SERVICE_NAME).toBe(app);
    expect(container.ports?.map((p) => p.containerPort)).toEqual([config[DEFINITIONS[app].surfaces[0].port]]);
    expect(config.providerEnvProblems).toEqual([]);
  });

  it.each(SERVICES)('$app: probes on the named port; the grace period outlasts the preStop pause and the drain', ({ app }) => {
    const deployment = rendered.get('Deployment', `${fullname}-${app}`);
    const container = containerOf(deployment) as Container & Record<'startupProbe' | 'livenessProbe' | 'readinessProbe', { httpGet: { path: string; port: string } }>;
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const) {
      expect(container[probe].httpGet.port).toBe('http');
    }
    const env = containerEnv(rendered, container);
    const preStop = (container.lifecycle as { preStop: { exec: { command: string[] } } }).preStop.exec.command;
    expect(preStop.slice(0, 1)).toEqual(['/bin/sleep']);
    const grace = (podSpec(deployment).spec as Yaml).terminationGracePeriodSeconds as number;
    expect(grace).toBeGreaterThan(Number(preStop[1]) + Number(env.SHUTDOWN_TIMEOUT_MS) / 1000);
  });

  it('no credential in the ConfigMap; every Secret value is base64; credentials reach containers only from Secrets', () => {
    const configMap = rendered.all('ConfigMap')[0];
    const keys = Object.keys(configMap.data as Yaml);
    expect(keys.filter((k) => /SECRET|PASSWORD|API_KEY|MASTER_ENCRYPTION_KEY$|MASTER_ENCRYPTION_KEY_PREVIOUS|REDIS_URL|MONGODB_URI/.test(k))).toEqual([]);
    for (const secret of rendered.all('Secret')) {
      for (const value of Object.values(secret.data as Yaml)) expect(String(value)).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
    }
    for (const deployment of deployments) {
      const literal = (containerOf(deployment).env ?? []).filter((e) => e.value !== undefined && /SECRET|PASSWORD|API_KEY/.test(e.name));
      expect(literal).toEqual([]);
    }
  });

  it('the Ingress sends each path to a Service port that exists; the ServiceMonitor selects the gateway Service', () => {
    for (const ingress of rendered.all('Ingress')) {
      const rules = (ingress.spec as { rules: { http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[] }).rules;
      for (const path of rules.flatMap((rule) => rule.http.paths)) {
        const service = rendered.get('Service', path.backend.service.name);
        expect((service.spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toContain(path.backend.service.port.name);
      }
    }
    for (const monitor of rendered.all('ServiceMonitor')) {
      const spec = monitor.spec as { selector: { matchLabels: Record<string, string> }; endpoints: { port: string }[] };
      const matched = rendered.all('Service').filter((s) => selects(spec.selector.matchLabels, s.metadata.labels ?? {}));
      expect(matched.map((s) => s.metadata.name)).toEqual([`${fullname}-gateway`]);
      expect((matched[0].spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toContain(spec.endpoints[0].port);
    }
  });

  it('every ServiceAccount a pod names is created by the chart, or named in values (create: false)', () => {
    const created = rendered.all('ServiceAccount').map((s) => s.metadata.name);
    for (const { key, app } of SERVICES) {
      const account = (rendered.values[key] as Yaml).serviceAccount as Yaml;
      const name = (podSpec(rendered.get('Deployment', `${fullname}-${app}`)).spec as Yaml).serviceAccountName;
      if (account.create) expect(created).toContain(name);
      else expect(name).toBe(account.name || 'default');
    }
  });
});

describe('every optional feature on', () => {
  const rendered = SCENARIOS[3][1];
  const fullname = `${RELEASE.Name}-svc-gateway`;

  it('renders every kind the chart has', () => {
    expect([...new Set(rendered.manifests.map((m) => m.kind))].sort()).toEqual(
      ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'Ingress', 'NetworkPolicy', 'PodDisruptionBudget', 'Secret', 'Service', 'ServiceAccount', 'ServiceMonitor'],
    );
    const hpa = rendered.get('HorizontalPodAutoscaler', `${fullname}-gateway`).spec as { metrics: { resource: { name: string } }[] };
    expect(hpa.metrics.map((m) => m.resource.name)).toEqual(['cpu', 'memory']);
    expect(isObject(rendered.get('Secret', `${fullname}-secrets`).data)).toBe(true);
  });

  it('whole numbers print without exponents, and the bundled stores are reached with their passwords', () => {
    const data = rendered.get('ConfigMap', `${fullname}-config`).data as Record<string, string>;
    expect(data.DISCOVERY_MAX_RESPONSE_BYTES).toBe('10485760');
    expect(data.UPSTREAM_TOTAL_TIMEOUT_MS).toBe('1200000');
    const env = containerEnv(rendered, containerOf(rendered.get('Deployment', `${fullname}-gateway`)));
    const config = loadConfig(env);
    expect(config.REDIS_URL).toBe('redis://:secret-from-a-secret@cache-master:6379/0');
    expect(config.MONGODB_URI).toBe(`mongodb://gateway:secret-from-a-secret@${RELEASE.Name}-mongodb:27017/llm`);
    expect(env.NODE_OPTIONS).toMatch(/--max-semi-space-size=16/);
  });
});
