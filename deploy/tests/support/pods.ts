/**
 * The pods of a rendered chart as Kubernetes starts them: a Deployment's container, and the
 * environment it gets from its ConfigMap, Secrets and env list, with $(VAR) expansion.
 */
import { randomBytes } from 'node:crypto';
import { Yaml } from './chart';
import { Manifest, Rendered } from './render';

export type Container = { name: string; env?: { name: string; value?: string; valueFrom?: Yaml }[]; envFrom?: Yaml[]; ports?: { name: string; containerPort: number }[] } & Yaml;
export const podSpec = (deployment: Manifest) => (deployment.spec as Yaml & { template: { metadata: { labels: Record<string, string> }; spec: Yaml } }).template;
export const containerOf = (deployment: Manifest) => (podSpec(deployment).spec.containers as Container[])[0];

/** What a Secret the chart does not render holds under a key (the bundled charts' and the operator's Secrets). */
export type SecretValues = (secret: string, key: string) => string;

const DEFAULT_SECRET_VALUES: SecretValues = (_, key) =>
  key === 'REDIS_URL' ? 'redis://:pw@redis:6379/0' : key === 'MONGODB_URI' ? 'mongodb://svc:pw@mongodb:27017/svc' : 'secret-from-a-secret';

/**
 * The environment a container starts with: its ConfigMap and Secrets (an existing Secret holds the
 * keys the docs tell you to put there), then its env list, with Kubernetes' $(VAR) expansion.
 */
export function containerEnv(rendered: Rendered, container: Container, secrets: SecretValues = DEFAULT_SECRET_VALUES): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const name = String(((source.configMapRef ?? source.secretRef) as Yaml).name);
    if (source.configMapRef) Object.assign(env, rendered.get('ConfigMap', name).data);
    else if (rendered.all('Secret').some((s) => s.metadata.name === name)) {
      for (const [key, value] of Object.entries(rendered.get('Secret', name).data as Record<string, string>)) env[key] = Buffer.from(value, 'base64').toString('utf8');
    } else {
      Object.assign(env, { MASTER_ENCRYPTION_KEY: randomBytes(32).toString('base64'), JWT_SECRET: randomBytes(32).toString('hex'), BOOTSTRAP_ADMIN_PASSWORD: 'a-long-password' });
    }
  }
  for (const entry of container.env ?? []) {
    if (entry.valueFrom) {
      const ref = (entry.valueFrom as { secretKeyRef: { name: string; key: string } }).secretKeyRef;
      env[entry.name] = secrets(ref.name, ref.key);
    } else env[entry.name] = String(entry.value ?? '').replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole);
  }
  return env;
}
