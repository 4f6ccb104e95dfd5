import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { configSchema, loadConfig } from '@svc/platform';
import { CHART_DIR, dataKeys, envNames, isObject, lookup, readYaml, SERVICES, templates, Yaml } from './support/chart';
import { DEFINITIONS } from './support/routes';

const values = readYaml(join(CHART_DIR, 'values.yaml'));
const config = values.config as Yaml;
const files = templates();
const template = (name: string) => files.get(name) ?? '';
const SCHEMA = Object.keys(configSchema.shape);

/** Variables that carry credentials: never in the ConfigMap. */
const SECRET_VARIABLES = ['MASTER_ENCRYPTION_KEY', 'MASTER_ENCRYPTION_KEY_PREVIOUS', 'JWT_SECRET', 'BOOTSTRAP_ADMIN_PASSWORD', 'REDIS_URL', 'MONGODB_URI'];
/** `{{ ... }}_BASE_URL` / `{{ ... }}_API_KEY` keys generated from the provider maps. */
const providerKey = (suffix: 'BASE_URL' | 'API_KEY') => new RegExp(`^\\{\\{ upper \\$provider \\}\\}_${suffix}$`);
const isVariable = (name: string) => SCHEMA.includes(name) || /^[A-Z0-9]+_(BASE_URL|API_KEY)$/.test(name) || /^OTEL_[A-Z0-9_]+$/.test(name);

const configMapKeys = dataKeys(template('configmap.yaml'));
const secretKeys = dataKeys(template('secret.yaml'));
const containerTemplates = ['_helpers.tpl', ...SERVICES.map(({ app }) => `${app}.yaml`)];

/** Values defaults as the ConfigMap renders them (empty strings are left out), with production secrets. */
function environmentFrom(overrides: Yaml = {}): Record<string, string> {
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    MASTER_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    JWT_SECRET: randomBytes(32).toString('hex'),
    REDIS_URL: 'redis://:password@svc-redis-master:6379/0',
    MONGODB_URI: 'mongodb://root:password@svc-mongodb:27017/svc_gateway?authSource=admin',
  };
  for (const { key, app } of SERVICES) env[DEFINITIONS[app].surfaces[0].port] = String(lookup(values, `${key}.port`).value);
  for (const [name, value] of Object.entries({ ...config, ...overrides })) if (value !== '' && value !== null) env[name] = String(value);
  return env;
}

describe('ConfigMap and Secret', () => {
  it('the ConfigMap sets only configuration variables (or <PROVIDER>_BASE_URL / OTEL_*)', () => {
    expect(configMapKeys.length).toBeGreaterThan(40);
    const unknown = configMapKeys.filter((key) => !isVariable(key) && !providerKey('BASE_URL').test(key));
    expect(unknown).toEqual([]);
    expect(configMapKeys).toContain('{{ upper $provider }}_BASE_URL');
  });

  it('the Secret sets only configuration variables (or <PROVIDER>_API_KEY)', () => {
    const unknown = secretKeys.filter((key) => !isVariable(key) && !providerKey('API_KEY').test(key));
    expect(unknown).toEqual([]);
    expect(secretKeys).toEqual(expect.arrayContaining([...SECRET_VARIABLES, '{{ upper $provider }}_API_KEY']));
  });

  it('no secret lives in the ConfigMap or in config values', () => {
    expect(configMapKeys.filter((key) => SECRET_VARIABLES.includes(key) || /API_KEY/.test(key))).toEqual([]);
    expect(Object.keys(config).filter((key) => SECRET_VARIABLES.includes(key))).toEqual([]);
  });

  it('NODE_ENV is production, and each port variable comes from its service\'s port value', () => {
    expect(template('configmap.yaml')).toContain('NODE_ENV: "production"');
    const defaults = configSchema.parse({});
    for (const { key, app } of SERVICES) {
      const variable = DEFINITIONS[app].surfaces[0].port;
      expect(template('configmap.yaml')).toContain(`${variable}: {{ include "svc.scalar" .Values.${key}.port | quote }}`);
      expect(lookup(values, `${key}.port`).value).toBe(defaults[variable]);
    }
  });

  it('every config value is a configuration variable, rendered under its own name (whole numbers without exponents)', () => {
    expect(Object.keys(config).filter((key) => !SCHEMA.includes(key))).toEqual([]);
    const text = template('configmap.yaml');
    for (const key of Object.keys(config)) {
      const line = new RegExp(`^\\s+${key}: \\{\\{ include "svc\\.scalar" \\.Values\\.config\\.${key} \\| quote \\}\\}$`, 'm');
      expect({ key, rendered: line.test(text) }).toEqual({ key, rendered: true });
    }
    // A key rendered from config.X is X itself (no crossed wires).
    const rendered = [...text.matchAll(/^\s+([A-Z0-9_]+): \{\{ include "svc\.scalar" \.Values\.config\.([A-Z0-9_]+) /gm)];
    expect(rendered.length).toBe(Object.keys(config).length);
    for (const match of rendered) expect(match[1]).toBe(match[2]);
    // Helm reads numbers as float64 (5242880 would print as 5.24288e+06): svc.scalar prints whole numbers as integers.
    expect(template('_helpers.tpl')).toMatch(/define "svc\.scalar"[\s\S]*?kindIs "float64"[\s\S]*?int64/);
  });

  it('every configuration variable can be set: ConfigMap, Secret, or container env', () => {
    const settable = new Set([...configMapKeys, ...secretKeys, ...containerTemplates.flatMap((name) => envNames(template(name)))]);
    const missing = SCHEMA.filter((name) => !settable.has(name));
    // A variable added to libs/platform/src/config/config.schema.ts needs a config value (values.yaml,
    // templates/configmap.yaml, the chart README) or, for a secret, a key in templates/secret.yaml.
    expect(missing).toEqual([]);
  });

  it('the values defaults with production secrets make a valid configuration', () => {
    expect(() => loadConfig(environmentFrom())).not.toThrow();
    const loaded = loadConfig(environmentFrom());
    expect(loaded.NODE_ENV).toBe('production');
    expect(loaded.SHUTDOWN_TIMEOUT_MS).toBe(config.SHUTDOWN_TIMEOUT_MS);
  });

  it.each(['values-bundled.yaml', 'values-external.yaml'])('the config of examples/%s is valid too', (name) => {
    const example = readYaml(join(CHART_DIR, 'examples', name));
    const overrides = isObject(example.config) ? example.config : {};
    expect(() => loadConfig(environmentFrom(overrides))).not.toThrow();
  });
});

describe('container environment', () => {
  it('containers set only configuration variables, OTEL_* and helpers expanded into them', () => {
    for (const name of containerTemplates) {
      const text = template(name);
      for (const variable of envNames(text)) {
        const helper = text.includes(`$(${variable})`);
        expect({ name, variable, ok: isVariable(variable) || helper }).toEqual({ name, variable, ok: true });
        if (helper) {
          // Kubernetes expands $(VAR) only from variables listed before it.
          expect(text.indexOf(`- name: ${variable}`)).toBeLessThan(text.indexOf(`$(${variable})`));
          expect(SCHEMA).not.toContain(variable);
        }
      }
    }
  });

  it.each(SERVICES)('$app: gets the ConfigMap and Secrets, its OTEL_SERVICE_NAME and the datastore env', ({ key, app }) => {
    const text = template(`${app}.yaml`);
    expect(text).toContain('{{- include "svc.envFrom" . | nindent 12 }}');
    expect(text).toContain('{{- $datastoreEnv := include "svc.datastoreEnv" . | trim }}');
    expect(text).toContain(`- name: OTEL_SERVICE_NAME\n              value: {{ .Values.${key}.otelServiceName | quote }}`);
    expect(lookup(values, `${key}.otelServiceName`).value).toBe(app);
    expect(template('configmap.yaml')).toContain('OTEL_EXPORTER_OTLP_ENDPOINT: {{ include "svc.scalar" .Values.config.OTEL_EXPORTER_OTLP_ENDPOINT | quote }}');
  });

  it('REDIS_URL and MONGODB_URI come from the bundled charts, an existing Secret, or the chart Secret', () => {
    const helpers = template('_helpers.tpl');
    // Bundled: the URL without its password, the password apart (the services encode it into the URL);
    // $(VAR) would paste a password into the URL as it is.
    expect(helpers).toMatch(/- name: REDIS_PASSWORD\n\s+valueFrom:\n\s+secretKeyRef:/);
    expect(helpers).toMatch(/- name: MONGODB_PASSWORD\n\s+valueFrom:\n\s+secretKeyRef:/);
    expect(helpers).toContain('value: {{ printf "redis://%s-master:6379/0"');
    expect(helpers).not.toMatch(/value: .*\$\([A-Z_]+\)/);
    expect(helpers).toMatch(/name: \{\{ \.Values\.redis\.existingSecret \}\}\n\s+key: \{\{ \.Values\.redis\.existingSecretKey \}\}/);
    expect(helpers).toMatch(/name: \{\{ \.Values\.mongodb\.existingSecret \}\}\n\s+key: \{\{ \.Values\.mongodb\.existingSecretKey \}\}/);
    expect(template('secret.yaml')).toContain('REDIS_URL: {{ .Values.redis.url | b64enc | quote }}');
    expect(template('secret.yaml')).toContain('MONGODB_URI: {{ .Values.mongodb.uri | b64enc | quote }}');
    expect(helpers).toMatch(/fail "Redis is required/);
    expect(helpers).toMatch(/fail "MongoDB is required/);
  });
});
