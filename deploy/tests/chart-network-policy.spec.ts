import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { CHART_DIR, isObject, readYaml, ROOT, SERVICES, unknownKeys, Yaml } from './support/chart';
import { allowsEgress, allowsIngress, Endpoint, Peer, podOf, selects, specOf } from './support/netpol';
import { Manifest, MINIMAL_VALUES, renderChart, Rendered, RELEASE, valuesFile } from './support/render';

/**
 * networkPolicy.enabled: the rendered NetworkPolicies asked, as Kubernetes would, which connections
 * they let through (support/netpol.ts), with bundled and external stores and private networks
 * refused or allowed.
 */
const ON: Yaml = { networkPolicy: { enabled: true } };
const NAMESPACE = RELEASE.Namespace;
const fullname = `${RELEASE.Name}-svc-gateway`;
const example = (name: string) => valuesFile(join(CHART_DIR, 'examples', name));
const ALL_FEATURES = valuesFile(join(__dirname, 'fixtures', 'values-all-features.yaml'));
/** The services that call user-configured URLs: providers, provider targets' model lists, webhooks. */
const CALLS_OUT = ['gateway', 'gateway-admin', 'webhook-dispatcher'];
/** The services behind the Ingress (templates/ingress.yaml). */
const PUBLISHED = ['gateway', 'gateway-admin', 'org-api', 'runner-control-plane'];
const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:4700:4700::1111';
const PRIVATE = ['10.1.2.3', '172.20.0.9', '192.168.1.1', '100.64.0.7', '169.254.169.254', '127.0.0.1', 'fd00:ec2::254', 'fe80::1'];

const SCENARIOS: [string, Rendered][] = [
  ['external stores by URL, no CIDRs', renderChart(MINIMAL_VALUES, ON)],
  ['bundled stores (examples/values-bundled.yaml)', renderChart(example('values-bundled.yaml'), ON)],
  [
    'external stores in CIDRs (examples/values-external.yaml)',
    renderChart(example('values-external.yaml'), ON, {
      networkPolicy: { externalRedis: { cidrs: ['10.20.0.0/16'], ports: [6380] }, externalMongodb: { cidrs: ['10.30.0.0/16', 'fd10::/64'] } },
    }),
  ],
  ['every optional feature on (private networks allowed)', renderChart(ALL_FEATURES)],
];

const np = (rendered: Rendered) => rendered.values.networkPolicy as Yaml & Record<'ingressControllerFrom' | 'prometheusFrom' | 'dnsTo', Peer[]>;
const policyOf = (rendered: Rendered, app: string) => rendered.get('NetworkPolicy', `${fullname}-${app}`);
const podLabelsOf = (deployment: Manifest) => (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
const chartPod = (rendered: Rendered, app: string): Endpoint => ({ namespace: NAMESPACE, labels: podLabelsOf(rendered.get('Deployment', `${fullname}-${app}`)) });
const out = (policy: Manifest, to: Endpoint, port: number, protocol = 'TCP') => allowsEgress(policy, NAMESPACE, to, port, protocol);
const into = (policy: Manifest, from: Endpoint, port: number) => allowsIngress(policy, NAMESPACE, from, port);

describe('networkPolicy.enabled off (the default)', () => {
  it.each([
    ['defaults', renderChart(MINIMAL_VALUES)],
    ['examples/values-bundled.yaml', renderChart(example('values-bundled.yaml'))],
    ['examples/values-external.yaml', renderChart(example('values-external.yaml'))],
  ])('%s: no NetworkPolicy', (_, rendered) => {
    expect((rendered.values.networkPolicy as Yaml).enabled).toBe(false);
    expect(rendered.all('NetworkPolicy')).toEqual([]);
  });
});

describe.each(SCENARIOS)('networkPolicy on: %s', (_, rendered) => {
  const deployments = rendered.all('Deployment');
  const config = rendered.values.config as Yaml;
  const allowPrivate = config.OUTBOUND_ALLOW_PRIVATE_NETWORKS === true;
  /** A service that calls out, with private networks allowed, reaches every pod on any port (checked below). */
  const reachesEveryPod = (app: string) => CALLS_OUT.includes(app) && allowPrivate;

  it('one NetworkPolicy per service, for both directions, selecting exactly its Deployment\'s pods by the Deployment\'s selector', () => {
    expect(rendered.all('NetworkPolicy').map((p) => p.metadata.name).sort()).toEqual(SERVICES.map((s) => `${fullname}-${s.app}`).sort());
    for (const { app } of SERVICES) {
      const policy = policyOf(rendered, app);
      expect(policy.apiVersion).toBe('networking.k8s.io/v1');
      expect(policy.metadata.labels?.['app.kubernetes.io/component']).toBe(app);
      const spec = specOf(policy);
      expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
      const deployment = rendered.get('Deployment', `${fullname}-${app}`);
      expect(spec.podSelector).toEqual((deployment.spec as { selector: Yaml }).selector);
      expect(deployments.filter((d) => selects(spec.podSelector, podLabelsOf(d))).map((d) => d.metadata.name)).toEqual([deployment.metadata.name]);
    }
  });

  it.each(SERVICES)('$app: DNS to the cluster DNS pods on UDP and TCP 53, and nowhere else on 53', ({ app }) => {
    const policy = policyOf(rendered, app);
    const dns = podOf(np(rendered).dnsTo, NAMESPACE);
    expect(dns).toMatchObject({ namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } });
    expect([out(policy, dns, 53, 'UDP'), out(policy, dns, 53, 'TCP')]).toEqual([true, true]);
    expect(out(policy, { ...dns, labels: { 'k8s-app': 'other' } }, 53, 'UDP')).toBe(reachesEveryPod(app));
    expect(out(policy, { ip: PUBLIC_V4 }, 53, 'UDP')).toBe(false);
  });

  it.each(SERVICES)('$app: Redis and MongoDB: the bundled charts\' pods, or the external stores\' networks and ports', ({ app }) => {
    const policy = policyOf(rendered, app);
    for (const [store, port, key] of [['redis', 6379, 'externalRedis'], ['mongodb', 27017, 'externalMongodb']] as const) {
      const values = rendered.values[store] as Yaml;
      if (values.enabled) {
        const pod = { namespace: NAMESPACE, labels: { 'app.kubernetes.io/name': store, 'app.kubernetes.io/instance': RELEASE.Name, 'app.kubernetes.io/component': 'primary' } };
        expect({ store, allowed: out(policy, pod, port) }).toEqual({ store, allowed: true });
        expect(out(policy, { ...pod, namespace: 'elsewhere' }, port)).toBe(reachesEveryPod(app));
        expect(out(policy, { ...pod, labels: { ...pod.labels, 'app.kubernetes.io/instance': 'another-release' } }, port)).toBe(reachesEveryPod(app));
        expect(out(policy, { ip: '10.9.9.9' }, port)).toBe(reachesEveryPod(app));
      } else {
        const { cidrs, ports } = (rendered.values.networkPolicy as Record<string, { cidrs: string[]; ports: number[] }>)[key];
        const inside = cidrs.length ? cidrs.map((cidr) => cidr.replace(/0\/\d+$/, '7').replace(/::\/\d+$/, '::7')) : [PUBLIC_V4, '10.9.9.9'];
        for (const ip of inside) for (const p of ports) expect({ store, ip, p, allowed: out(policy, { ip }, p) }).toEqual({ store, ip, p, allowed: true });
        if (cidrs.length && !CALLS_OUT.includes(app)) expect(out(policy, { ip: PUBLIC_V4 }, ports[0])).toBe(false);
        if (!CALLS_OUT.includes(app)) expect(out(policy, { ip: inside[0] }, 5432)).toBe(false);
      }
    }
  });

  it.each(SERVICES)('$app: let in from the ingress controller when behind the Ingress, Prometheus for the gateway, no other pod of the chart', ({ app, key }) => {
    const policy = policyOf(rendered, app);
    const port = (rendered.values[key] as Yaml).port as number;
    const { ingressControllerFrom, prometheusFrom } = np(rendered);
    const controller = podOf(ingressControllerFrom, NAMESPACE);
    expect(into(policy, controller, port)).toBe(PUBLISHED.includes(app));
    expect(into(policy, controller, port + 1)).toBe(false);
    expect(into(policy, { ...controller, labels: { 'app.kubernetes.io/name': 'something-else' } }, port)).toBe(false);
    expect(into(policy, podOf(prometheusFrom, NAMESPACE), port)).toBe(app === 'gateway');
    // The rules name the configured peers exactly.
    const froms = (specOf(policy).ingress ?? []).map((rule) => rule.from);
    if (PUBLISHED.includes(app)) expect(froms).toContainEqual(ingressControllerFrom);
    expect(froms.filter((from) => JSON.stringify(from) === JSON.stringify(prometheusFrom)).length).toBe(app === 'gateway' ? 1 : 0);
    // The services call one another only through Redis and MongoDB: no pod of the chart is let in.
    for (const other of SERVICES) expect({ from: other.app, allowed: into(policy, chartPod(rendered, other.app), port) }).toEqual({ from: other.app, allowed: false });
    expect(into(policy, { ip: PUBLIC_V4 }, port)).toBe(false);
    if (app === 'webhook-dispatcher') expect(specOf(policy).ingress).toEqual([]);
  });

  it.each(SERVICES)('$app: public addresses on the internet ports only when it calls out; private ones only with OUTBOUND_ALLOW_PRIVATE_NETWORKS', ({ app }) => {
    const policy = policyOf(rendered, app);
    const ports = (np(rendered).internetEgress as { ports: number[] }).ports;
    const callsOut = CALLS_OUT.includes(app);
    for (const port of ports) {
      expect({ port, v4: out(policy, { ip: PUBLIC_V4 }, port), v6: out(policy, { ip: PUBLIC_V6 }, port) }).toEqual({ port, v4: callsOut, v6: callsOut });
      for (const ip of PRIVATE) expect({ ip, port, allowed: out(policy, { ip }, port) }).toEqual({ ip, port, allowed: callsOut && allowPrivate });
    }
    expect(out(policy, { ip: PUBLIC_V4 }, 22)).toBe(false);
    // With private networks allowed, a service that calls out reaches any pod, any port (the services then do too).
    const pod = { namespace: 'inference', labels: { app: 'vllm' } };
    const gatewayExtra = ((rendered.values.gateway as { networkPolicy: { extraEgress: unknown[] } }).networkPolicy.extraEgress).length > 0;
    expect(out(policy, pod, 8000)).toBe(reachesEveryPod(app) || (app === 'gateway' && gatewayExtra));
  });

  it('the OTLP collector\'s port from config.OTEL_EXPORTER_OTLP_ENDPOINT, for every service, when it is set', () => {
    for (const { app } of SERVICES) expect({ app, allowed: out(policyOf(rendered, app), { ip: '10.50.0.1' }, 4318) }).toEqual({ app, allowed: Boolean(config.OTEL_EXPORTER_OTLP_ENDPOINT) });
  });
});

describe('networkPolicy on: values that shape the rules', () => {
  it('the OTLP and governance service ports: the URL\'s own, else 443 for https and 80 for http', () => {
    const rendered = renderChart(MINIMAL_VALUES, ON, {
      config: { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com', PII_NER: true, PII_NER_URL: 'http://[fd00::5]:5002/analyze', AI_CLASSIFIER_URL: 'http://classifier.ml' },
    });
    const orgApi = policyOf(rendered, 'org-api');
    const gateway = policyOf(rendered, 'gateway');
    expect(out(orgApi, { ip: PUBLIC_V4 }, 443)).toBe(true);
    expect([out(orgApi, { ip: '10.0.0.9' }, 5002), out(orgApi, { ip: '10.0.0.9' }, 80)]).toEqual([false, false]);
    // Only the gateway runs the governance chain that calls them.
    expect([out(gateway, { ip: '10.0.0.9' }, 5002), out(gateway, { ip: '10.0.0.9' }, 80)]).toEqual([true, true]);
    expect(out(policyOf(rendered, 'gateway-admin'), { ip: '10.0.0.9' }, 5002)).toBe(false);
    // PII_NER off: its URL is not called.
    const off = renderChart(MINIMAL_VALUES, ON, { config: { PII_NER: false, PII_NER_URL: 'http://ner:5002' } });
    expect(out(policyOf(off, 'gateway'), { ip: '10.0.0.9' }, 5002)).toBe(false);
  });

  it('<service>.networkPolicy.extraIngress / extraEgress are added to that service\'s policy only', () => {
    const rule = { to: [{ ipBlock: { cidr: '10.40.0.0/16' } }], ports: [{ protocol: 'TCP', port: 8443 }] };
    const rendered = renderChart(MINIMAL_VALUES, ON, { webhookDispatcher: { networkPolicy: { extraEgress: [rule], extraIngress: [{ from: [{ podSelector: { matchLabels: { app: 'debug' } } }] }] } } });
    for (const { app } of SERVICES) {
      const policy = policyOf(rendered, app);
      const mine = app === 'webhook-dispatcher';
      expect({ app, egress: out(policy, { ip: '10.40.1.1' }, 8443), ingress: into(policy, { namespace: NAMESPACE, labels: { app: 'debug' } }, 8005) }).toEqual({ app, egress: mine, ingress: mine });
    }
  });

  it('empty peer lists: nothing in from the ingress controller or Prometheus; DNS to any address on port 53 only', () => {
    const rendered = renderChart(MINIMAL_VALUES, { networkPolicy: { enabled: true, ingressControllerFrom: [], prometheusFrom: [], dnsTo: [] } });
    const gateway = policyOf(rendered, 'gateway');
    expect(specOf(gateway).ingress).toEqual([]);
    expect([out(gateway, { ip: '10.96.0.10' }, 53, 'UDP'), out(gateway, { ip: '10.96.0.10' }, 54, 'UDP')]).toEqual([true, false]);
  });

  it('refuses empty port lists, which would allow every port', () => {
    expect(() => renderChart(MINIMAL_VALUES, { networkPolicy: { enabled: true, externalRedis: { ports: [] } } })).toThrow(/networkPolicy.externalRedis.ports/);
    expect(() => renderChart(MINIMAL_VALUES, { networkPolicy: { enabled: true, externalMongodb: { ports: [] } } })).toThrow(/networkPolicy.externalMongodb.ports/);
    expect(() => renderChart(MINIMAL_VALUES, { networkPolicy: { enabled: true, internetEgress: { ports: [] } } })).toThrow(/networkPolicy.internetEgress.ports/);
    // Bundled stores do not need the external ports.
    expect(renderChart(example('values-bundled.yaml'), { networkPolicy: { enabled: true, externalRedis: { ports: [] } } }).all('NetworkPolicy')).toHaveLength(5);
  });
});

describe('documentation', () => {
  it('docs/deploy-install.md "Network policies" has a values example that only uses chart keys and renders', () => {
    const guide = readFileSync(join(ROOT, 'docs', 'deploy-install.md'), 'utf8');
    const start = guide.indexOf('## Network policies');
    expect(start).toBeGreaterThan(0);
    const section = guide.slice(start);
    const snippet = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    const values = load(snippet ?? '');
    if (!isObject(values)) throw new Error('no yaml example under "## Network policies" in docs/deploy-install.md');
    expect(unknownKeys(values, readYaml(join(CHART_DIR, 'values.yaml')))).toEqual([]);
    expect(renderChart(MINIMAL_VALUES, values).all('NetworkPolicy')).toHaveLength(5);
    expect(readFileSync(join(CHART_DIR, 'README.md'), 'utf8')).toContain('## Network policies');
  });
});
