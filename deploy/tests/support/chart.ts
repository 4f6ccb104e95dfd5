/**
 * Reads the Helm chart as text and YAML (there is no `helm` binary here): templates, values,
 * `.Values.*` references, the environment variables templates set, and block structure.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';

export const ROOT = join(__dirname, '..', '..', '..');
export const CHART_DIR = join(ROOT, 'deploy', 'helm', 'svc-gateway');
export const TEMPLATES_DIR = join(CHART_DIR, 'templates');

/** The five services: values key, app (apps/<app>, image, component label) and template file. */
export const SERVICES = [
  { key: 'gateway', app: 'gateway' },
  { key: 'gatewayAdmin', app: 'gateway-admin' },
  { key: 'orgApi', app: 'org-api' },
  { key: 'webhookDispatcher', app: 'webhook-dispatcher' },
  { key: 'runnerControlPlane', app: 'runner-control-plane' },
] as const;
export type ServiceApp = (typeof SERVICES)[number]['app'];

export type Yaml = Record<string, unknown>;

export const isObject = (value: unknown): value is Yaml => typeof value === 'object' && value !== null && !Array.isArray(value);

export function readYaml(path: string): Yaml {
  const value = load(readFileSync(path, 'utf8'));
  if (!isObject(value)) throw new Error(`${path} is not a YAML mapping`);
  return value;
}

export function chartFile(name: string): string {
  return readFileSync(join(CHART_DIR, name), 'utf8');
}

/** Every file under templates/ (the .tpl helpers, the .yaml manifests and NOTES.txt), by name. */
export function templates(): Map<string, string> {
  const files = readdirSync(TEMPLATES_DIR).filter((name) => /\.(ya?ml|tpl|txt)$/.test(name));
  return new Map(files.sort().map((name) => [name, readFileSync(join(TEMPLATES_DIR, name), 'utf8')]));
}

/** `.Values.a.b.c` (also `$.Values...`) references in template text, as `a.b.c`. */
export function valuesReferences(text: string): string[] {
  return [...new Set([...text.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)].map((match) => match[1].slice(1)))];
}

/** The value at a dotted path, or undefined when a segment is missing. */
export function lookup(values: unknown, path: string): { found: boolean; value: unknown } {
  let current: unknown = values;
  for (const segment of path.split('.')) {
    if (!isObject(current) || !(segment in current)) return { found: false, value: undefined };
    current = current[segment];
  }
  return { found: true, value: current };
}

/**
 * Dotted paths of every leaf of a values tree. An empty map (`{}`) or a list is a leaf:
 * free-form content (annotations, provider maps, tolerations) belongs to the user.
 */
export function leafPaths(values: Yaml, prefix = ''): string[] {
  return Object.entries(values).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return isObject(value) && Object.keys(value).length > 0 ? leafPaths(value, path) : [path];
  });
}

/** Keys of an override file that values.yaml does not define (free-form maps and lists accept anything). */
export function unknownKeys(override: Yaml, defaults: Yaml, prefix = ''): string[] {
  return Object.entries(override).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (!(key in defaults)) return [path];
    const base = defaults[key];
    if (isObject(base) && Object.keys(base).length > 0) {
      return isObject(value) ? unknownKeys(value, base, path) : [`${path} (a map in values.yaml)`];
    }
    return [];
  });
}

/** Keys of the `data:` block of a ConfigMap or Secret template (literal names and `{{ ... }}_SUFFIX` forms). */
export function dataKeys(template: string): string[] {
  const lines = template.split('\n');
  const start = lines.findIndex((line) => /^(data|stringData):\s*$/.test(line));
  if (start < 0) return [];
  const keys: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line) && !line.startsWith('{{')) break;
    const match = /^\s{2}((?:\{\{[^}]*\}\})?[A-Z0-9_]*):/.exec(line);
    if (match) keys.push(match[1]);
  }
  return keys;
}

/** `- name: X` entries of container `env:` lists (helpers included). */
export function envNames(template: string): string[] {
  return [...template.matchAll(/^\s*- name: ([A-Z][A-Z0-9_]*)\s*$/gm)].map((match) => match[1]);
}

/** Probe of a Deployment template: its httpGet path. */
export function probePath(template: string, probe: 'livenessProbe' | 'readinessProbe' | 'startupProbe'): string | null {
  const match = new RegExp(`^(\\s*)${probe}:\\s*\\n\\1\\s+httpGet:\\s*\\n\\1\\s+path: (\\S+)`, 'm').exec(template);
  return match ? match[2] : null;
}

/** `path:` / backend service pairs of the Ingress template, in order. */
export function ingressRoutes(template: string): { path: string; pathType: string; backend: string }[] {
  const routes: { path: string; pathType: string; backend: string }[] = [];
  const pattern = /- path: (\S+)\s*\n\s*pathType: (\S+)\s*\n\s*backend:\s*\n\s*service:\s*\n\s*name: \{\{ \$fullname \}\}-([a-z-]+)/g;
  for (const match of template.matchAll(pattern)) routes.push({ path: match[1], pathType: match[2], backend: match[3] });
  return routes;
}

/** `kind:` of each document of a template. */
export function kinds(template: string): string[] {
  return [...template.matchAll(/^kind: (\S+)/gm)].map((match) => match[1]);
}

/**
 * Structure of the Go template actions: `{{`/`}}` balance, and every if/with/range/define block
 * closed by an end (else/else if inside a block only).
 */
export function templateStructureErrors(text: string): string[] {
  const errors: string[] = [];
  const opens = (text.match(/\{\{/g) ?? []).length;
  const closes = (text.match(/\}\}/g) ?? []).length;
  if (opens !== closes) errors.push(`${opens} "{{" but ${closes} "}}"`);
  const stack: string[] = [];
  for (const match of text.matchAll(/\{\{-?\s*(\/\*[\s\S]*?\*\/)?\s*([a-z]+)?/g)) {
    if (match[1]) continue;
    const word = match[2];
    if (word === 'if' || word === 'with' || word === 'range' || word === 'define' || word === 'block') stack.push(word);
    else if (word === 'else' && stack.length === 0) errors.push('else outside a block');
    else if (word === 'end' && !stack.pop()) errors.push('end without a block');
  }
  if (stack.length) errors.push(`unclosed: ${stack.join(', ')}`);
  return errors;
}
