/**
 * `helm template` for deploy/helm/svc-gateway, without a `helm` binary: values coalesced as Helm
 * does, every template file rendered by the renderer in gotemplate.ts, and the manifests parsed
 * as YAML. The Bitnami subcharts are not rendered (only this chart's own templates).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { CHART_DIR, isObject, readYaml, templates, Yaml } from './chart';
import { Templates } from './gotemplate';

export { TemplateFail } from './gotemplate';

export interface Manifest extends Yaml {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

export interface Rendered {
  values: Yaml;
  /** Every Kubernetes object, from every template file. */
  manifests: Manifest[];
  /** Rendered text of each template file (NOTES.txt included). */
  files: Map<string, string>;
  get(kind: string, name: string): Manifest;
  all(kind: string): Manifest[];
}

/** Helm's coalescing: maps merge key by key, anything else (lists included) replaces, null removes. */
export function coalesce(base: Yaml, override: Yaml): Yaml {
  const result: Yaml = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === null) delete result[key];
    else if (isObject(value) && isObject(base[key])) result[key] = coalesce(base[key] as Yaml, value);
    else result[key] = value;
  }
  return result;
}

/** Values that make the chart render with the default values otherwise (it refuses without stores and secrets). */
export const MINIMAL_VALUES: Yaml = {
  secrets: { existingSecret: 'svc-credentials' },
  redis: { url: 'redis://:password@redis.example.internal:6379/0' },
  mongodb: { uri: 'mongodb://svc:password@mongodb.example.internal:27017/svc_gateway' },
};

export const RELEASE = { Name: 'svc', Namespace: 'svc', Service: 'Helm', IsInstall: true, IsUpgrade: false, Revision: 1 };

/** Renders the chart with values.yaml coalesced with each override in turn (as `-f a.yaml -f b.yaml`). */
export function renderChart(...overrides: Yaml[]): Rendered {
  const chart = readYaml(join(CHART_DIR, 'Chart.yaml'));
  const values = overrides.reduce<Yaml>((merged, override) => coalesce(merged, override), readYaml(join(CHART_DIR, 'values.yaml')));
  const name = String(chart.name);
  const set = new Templates();
  const sources = templates();
  for (const [file, text] of sources) set.add(`${name}/templates/${file}`, text);
  const root = {
    Values: values,
    Release: RELEASE,
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion, Description: chart.description, Type: chart.type },
    Template: { BasePath: `${name}/templates` },
    Capabilities: { KubeVersion: { Version: 'v1.30.0', Major: '1', Minor: '30' } },
  };
  const files = new Map<string, string>();
  const manifests: Manifest[] = [];
  for (const file of sources.keys()) {
    if (file.startsWith('_')) continue;
    const text = set.render(`${name}/templates/${file}`, { ...root, Template: { ...root.Template, Name: `${name}/templates/${file}` } });
    files.set(file, text);
    if (file.endsWith('.txt')) continue;
    for (const doc of loadAll(text)) {
      if (doc === null || doc === undefined) continue;
      if (!isObject(doc)) throw new Error(`${file}: a document that is not a mapping`);
      manifests.push(doc as Manifest);
    }
  }
  const all = (kind: string) => manifests.filter((m) => m.kind === kind);
  const get = (kind: string, objectName: string) => {
    const found = manifests.find((m) => m.kind === kind && m.metadata.name === objectName);
    if (!found) throw new Error(`no ${kind} ${objectName} (have: ${all(kind).map((m) => m.metadata.name).join(', ')})`);
    return found;
  };
  return { values, manifests, files, get, all };
}

/** A values file of deploy/tests/fixtures or the chart's examples/. */
export function valuesFile(path: string): Yaml {
  const value = loadAll(readFileSync(path, 'utf8'))[0];
  if (!isObject(value)) throw new Error(`${path} is not a mapping`);
  return value;
}
