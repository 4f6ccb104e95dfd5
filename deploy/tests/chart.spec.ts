import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDockerfile, stagesOf } from './support/dockerfile';
import {
  CHART_DIR, chartFile, isObject, kinds, leafPaths, lookup, readYaml, ROOT, ServiceApp, SERVICES, templates, templateStructureErrors, unknownKeys,
  valuesReferences, Yaml,
} from './support/chart';

const chart = readYaml(join(CHART_DIR, 'Chart.yaml'));
const values = readYaml(join(CHART_DIR, 'values.yaml'));
const files = templates();
const template = (name: string) => files.get(name) ?? '';
const allTemplateText = [...files.values()].join('\n');
/** The deploy guide: docs/deploy.md's two parts, building and installing, then operating. */
const guide = ['deploy-install.md', 'deploy-operating.md'].map((file) => readFileSync(join(ROOT, 'docs', file), 'utf8')).join('\n');
/**
 * Resident memory of each service on the images' Node 24 with their NODE_OPTIONS and malloc settings
 * (docs/deploy-install.md "Memory": idle after start, Redis connected; the gateway after load, docs/benchmarks.md).
 */
const RESIDENT_MIB: Record<ServiceApp, number> = { gateway: 234, 'gateway-admin': 152, 'org-api': 137, 'webhook-dispatcher': 138, 'runner-control-plane': 137 };
const mebibytes = (quantity: unknown) => {
  const match = /^(\d+(?:\.\d+)?)(Mi|Gi)$/.exec(String(quantity));
  if (!match) throw new Error(`memory quantity ${String(quantity)}: use Mi or Gi`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
};
const packageVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Values only the Bitnami subcharts read (the chart passes them through under redis./mongodb.). */
const SUBCHART_ONLY = ['redis.architecture', 'redis.master.persistence.size', 'mongodb.persistence.size'];

describe('Chart.yaml', () => {
  it('is a v2 application chart whose appVersion is the package.json version', () => {
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'svc-gateway', type: 'application', appVersion: packageVersion });
    expect(String(chart.version)).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
  });

  it('depends on the Bitnami redis and mongodb charts, each behind its enabled flag', () => {
    const dependencies = chart.dependencies as Yaml[];
    expect(dependencies.map((d) => [d.name, d.condition])).toEqual([
      ['redis', 'redis.enabled'],
      ['mongodb', 'mongodb.enabled'],
    ]);
    for (const dependency of dependencies) {
      expect(String(dependency.repository)).toMatch(/bitnami/);
      expect(String(dependency.version)).toMatch(/^\d+\.(x|\d+)\.(x|\d+)$/);
      expect(lookup(values, String(dependency.condition))).toEqual({ found: true, value: false });
    }
  });
});

describe('values.yaml and the templates', () => {
  it('parses, and every template is well-formed Go-template text', () => {
    expect(Object.keys(values).length).toBeGreaterThan(10);
    expect([...files.keys()]).toEqual(expect.arrayContaining(['_helpers.tpl', 'configmap.yaml', 'secret.yaml', 'ingress.yaml', 'servicemonitor.yaml', 'NOTES.txt']));
    for (const [name, text] of files) expect({ name, errors: templateStructureErrors(text) }).toEqual({ name, errors: [] });
  });

  it('every .Values path a template or _helpers.tpl references exists in values.yaml', () => {
    const missing = [...files].flatMap(([name, text]) => valuesReferences(text).filter((path) => !lookup(values, path).found).map((path) => `${name}: .Values.${path}`));
    expect(missing).toEqual([]);
    expect(valuesReferences(allTemplateText).length).toBeGreaterThan(100);
  });

  it('every value is read by a template, or passed through to a Bitnami subchart', () => {
    const referenced = valuesReferences(allTemplateText);
    const unused = leafPaths(values).filter(
      (leaf) => !SUBCHART_ONLY.includes(leaf) && !referenced.some((path) => leaf === path || leaf.startsWith(`${path}.`)),
    );
    expect(unused).toEqual([]);
  });

  it('templates use no with/range over .Values except explicit maps and lists', () => {
    // Values inside `with`/`range` are free-form content: the paths themselves must be explicit.
    for (const match of allTemplateText.matchAll(/\{\{-?\s*(?:with|range)\s+(?:\$\w+(?:,\s*\$\w+)?\s*:=\s*)?([^}]+?)\s*-?\}\}/g)) {
      const target = match[1].trim();
      expect(target).toMatch(/^(\.Values(\.\w+)+|\$hosts)$/);
      const value = lookup(values, target.replace(/^\.Values\./, '')).value;
      if (target !== '$hosts') expect(isObject(value) || Array.isArray(value)).toBe(true);
    }
  });
});

describe('each service', () => {
  it.each(SERVICES)('$app: a ServiceAccount, Service, Deployment and PodDisruptionBudget, in templates/$app.yaml', ({ key, app }) => {
    const text = template(`${app}.yaml`);
    expect(kinds(text)).toEqual(expect.arrayContaining(['ServiceAccount', 'Service', 'Deployment', 'PodDisruptionBudget']));
    // Every .Values reference of a service's file is global or its own block.
    const foreign = valuesReferences(text).filter((path) => SERVICES.some((s) => s.key !== key && path.startsWith(`${s.key}.`)));
    expect(foreign).toEqual([]);
    for (const part of ['resources', 'pdb.maxUnavailable', 'serviceAccount.create', 'port', 'otelServiceName', 'image.repository']) {
      expect(text).toContain(`.Values.${key}.${part}`);
    }
    expect(lookup(values, `${key}.image.repository`).value).toBe(app);
    expect(text).toContain(`- name: ${app}\n`);
    expect(text).toMatch(/containerPort: \{\{ \.Values\.\w+\.port \}\}/);
  });

  it.each(SERVICES)('$app: resource requests and limits for cpu and memory; the memory request covers what it holds', ({ key, app }) => {
    const resources = lookup(values, `${key}.resources`).value as { requests: Yaml; limits: Yaml };
    expect(Object.keys(resources.requests).sort()).toEqual(['cpu', 'memory']);
    expect(Object.keys(resources.limits).sort()).toEqual(['cpu', 'memory']);
    const request = mebibytes(resources.requests.memory);
    // A request under what the pod holds lets the scheduler overcommit the node; the limit leaves room for load on top.
    expect({ app, request, covers: request >= RESIDENT_MIB[app] }).toEqual({ app, request, covers: true });
    expect(mebibytes(resources.limits.memory)).toBeGreaterThanOrEqual(2 * RESIDENT_MIB[app]);
    expect(guide).toMatch(new RegExp(`\\| ${app} \\| ${RESIDENT_MIB[app]} MiB`));
  });

  it('the gateway and the org API scale with a HorizontalPodAutoscaler; the others by replicas', () => {
    for (const { key, app } of SERVICES) {
      const scaled = key === 'gateway' || key === 'orgApi';
      expect({ app, hpa: kinds(template(`${app}.yaml`)).includes('HorizontalPodAutoscaler') }).toEqual({ app, hpa: scaled });
      expect(lookup(values, `${key}.autoscaling.enabled`)).toEqual(scaled ? { found: true, value: true } : { found: false, value: undefined });
      expect(template(`${app}.yaml`)).toContain(`replicas: {{ .Values.${key}.replicaCount }}`);
    }
    expect(template('webhook-dispatcher.yaml')).not.toMatch(/autoscaling/);
    expect(lookup(values, 'webhookDispatcher.replicaCount').value).toBeGreaterThanOrEqual(1);
  });

  it('pods run as the image user, non-root, on a read-only root filesystem with /tmp as an emptyDir', () => {
    const dockerUser = stagesOf(parseDockerfile(readFileSync(join(ROOT, 'deploy/docker/Dockerfile'), 'utf8')))
      .pop()
      ?.instructions.filter((i) => i.keyword === 'USER')
      .pop()?.rest;
    expect(values.podSecurityContext).toMatchObject({ runAsNonRoot: true, runAsUser: Number(dockerUser?.split(':')[0]) });
    expect(values.containerSecurityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(String(lookup(values, 'config.DATA_DIR').value)).toMatch(/^\/tmp\//);
    expect(template('_helpers.tpl')).toMatch(/mountPath: \/tmp\n/);
    for (const { app } of SERVICES) {
      const text = template(`${app}.yaml`);
      for (const piece of ['.Values.podSecurityContext', '.Values.containerSecurityContext', 'svc.tmpVolumeMount', 'svc.tmpVolume"', 'svc.lifecycle', 'terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}']) {
        expect({ app, piece, present: text.includes(piece) }).toEqual({ app, piece, present: true });
      }
    }
  });

  it('the grace period outlasts the preStop pause plus SHUTDOWN_TIMEOUT_MS, and the chart refuses less', () => {
    const drain = Number(values.preStopSleepSeconds) + Number(lookup(values, 'config.SHUTDOWN_TIMEOUT_MS').value) / 1000;
    expect(Number(values.terminationGracePeriodSeconds)).toBeGreaterThan(drain);
    expect(template('_helpers.tpl')).toMatch(/fail \(printf "terminationGracePeriodSeconds/);
  });
});

describe('Ingress, secrets, ServiceMonitor', () => {
  it('the Ingress class and TLS come from values', () => {
    const ingress = template('ingress.yaml');
    expect(ingress).toContain('ingressClassName: {{ .Values.ingress.className }}');
    expect(ingress).toMatch(/with \.Values\.ingress\.tls \}\}\n\s+tls:/);
    expect(values.ingress).toMatchObject({ enabled: true, className: '', tls: [], hosts: [] });
  });

  it('secrets can all come from existing Secrets: the app secrets, the Redis URL and the MongoDB URI', () => {
    const helpers = template('_helpers.tpl');
    for (const path of ['secrets.existingSecret', 'redis.existingSecret', 'mongodb.existingSecret', 'redis.existingSecretKey', 'mongodb.existingSecretKey', 'redis.url', 'mongodb.uri']) {
      expect({ path, inValues: lookup(values, path).found, used: helpers.includes(`.Values.${path}`) }).toEqual({ path, inValues: true, used: true });
    }
    // No secret has a non-empty default.
    const secretDefaults = leafPaths(values.secrets as Yaml).map((leaf) => lookup(values.secrets, leaf).value);
    expect(secretDefaults.every((value) => value === '' || (isObject(value) && Object.keys(value).length === 0))).toBe(true);
    expect(template('secret.yaml')).toMatch(/^\{\{- if include "svc\.createSecret" \. \}\}/);
  });

  it('an optional ServiceMonitor scrapes the gateway at /metrics', () => {
    const monitor = template('servicemonitor.yaml');
    expect(lookup(values, 'metrics.serviceMonitor.enabled')).toEqual({ found: true, value: false });
    expect(monitor).toMatch(/^\{\{- if \.Values\.metrics\.serviceMonitor\.enabled \}\}/m);
    expect(monitor).toContain('path: /metrics');
    expect(monitor).toContain('"component" "gateway"');
  });
});

describe('examples', () => {
  const examples = ['values-bundled.yaml', 'values-external.yaml'];

  it.each(examples)('%s parses and only uses keys that values.yaml defines', (name) => {
    const example = readYaml(join(CHART_DIR, 'examples', name));
    expect(unknownKeys(example, values)).toEqual([]);
  });

  it.each(examples)('%s passes the chart\'s own checks: Redis and MongoDB one way each, secrets from a Secret', (name) => {
    const example = readYaml(join(CHART_DIR, 'examples', name));
    const get = (path: string) => lookup(example, path).value ?? lookup(values, path).value;
    for (const store of ['redis', 'mongodb']) {
      const external = Boolean(get(`${store}.${store === 'redis' ? 'url' : 'uri'}`) || get(`${store}.existingSecret`));
      expect({ store, bundled: Boolean(get(`${store}.enabled`)), external }).toEqual({ store, bundled: !external, external });
    }
    expect(get('secrets.existingSecret')).toBeTruthy();
    expect(leafPaths(example).filter((path) => /^secrets\.[A-Z_]+$/.test(path))).toEqual([]);
  });

  it('one example bundles both stores, the other uses external ones from existing Secrets', () => {
    const bundled = readYaml(join(CHART_DIR, 'examples', 'values-bundled.yaml'));
    const external = readYaml(join(CHART_DIR, 'examples', 'values-external.yaml'));
    expect([lookup(bundled, 'redis.enabled').value, lookup(bundled, 'mongodb.enabled').value]).toEqual([true, true]);
    expect([lookup(external, 'redis.existingSecret').value, lookup(external, 'mongodb.existingSecret').value].every(Boolean)).toBe(true);
  });
});

describe('documentation', () => {
  it('the chart README documents every value and both examples', () => {
    const readme = chartFile('README.md');
    // Per-service keys may be documented once as <service>.x; a block rendered whole with toYaml
    // (resources, security contexts, probe timings) is documented as that block.
    const generic = (path: string) => path.replace(new RegExp(`^(${SERVICES.map((s) => s.key).join('|')})\\.`), '<service>.');
    const documented = (path: string) => readme.includes(`\`${path}\``) || readme.includes(`\`${generic(path)}\``);
    const wholeBlocks = [...allTemplateText.matchAll(/toYaml \.Values\.([\w.]+)/g)].map((m) => m[1]);
    const undocumented = leafPaths(values).filter(
      (leaf) => !documented(leaf) && !wholeBlocks.some((block) => leaf.startsWith(`${block}.`) && documented(block)),
    );
    expect(undocumented).toEqual([]);
    expect(readme).toContain('examples/values-bundled.yaml');
    expect(readme).toContain('examples/values-external.yaml');
  });

  it('docs/deploy-install.md and docs/deploy-operating.md walk through building, installing and upgrading', () => {
    for (const step of [
      'deploy/docker/Dockerfile', 'kubectl create namespace', 'kubectl -n', 'create secret generic', 'helm dependency update', 'helm install',
      'rollout status', '/v1/health', '/api/v1/auth/login', 'helm upgrade', 'rollout restart', 'MASTER_ENCRYPTION_KEY_PREVIOUS',
      'MASTER_ENCRYPTION_KEY_VERSION', 'helm rollback',
    ]) {
      expect({ step, present: guide.includes(step) }).toEqual({ step, present: true });
    }
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('docs/deploy.md');
  });

  it('docs/deploy-operating.md states the rolling-update settings every Deployment template uses', () => {
    const strategies = SERVICES.map(({ app }) => /rollingUpdate:\n\s+maxSurge: (\S+)\n\s+maxUnavailable: (\S+)\n/.exec(template(`${app}.yaml`))?.slice(1, 3));
    expect(new Set(strategies.map((s) => JSON.stringify(s))).size).toBe(1);
    const [maxSurge, maxUnavailable] = strategies[0] ?? [];
    expect(guide).toContain(`\`maxSurge: ${maxSurge}\``);
    expect(guide).toContain(`\`maxUnavailable: ${maxUnavailable}\``);
    // With a surge of a fraction of the replicas, a large Deployment rolls several pods at a time.
    if (/%$/.test(String(maxSurge))) expect(guide).not.toMatch(/roll one pod at a time/);
  });
});
