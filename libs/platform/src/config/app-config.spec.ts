import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './app-config';
import { configSchema } from './config.schema';

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.GATEWAY_PORT).toBe(8002);
    expect(config.ORG_API_PORT).toBe(8001);
    expect(config.GATEWAY_ADMIN_PORT).toBe(8003);
    expect(config.RUNNER_CONTROL_PLANE_PORT).toBe(8004);
    expect(config.WEBHOOK_DISPATCHER_PORT).toBe(8005);
    expect(config.DATA_DIR).toBe('./.data');
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.WEBHOOK_RETRY_BASE_MS).toBe(1000);
    expect(config.SIGNUP_ENABLED).toBe(false);
    expect(config.BOOTSTRAP_ORG_PLAN).toBe('growth');
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('parses booleans, numbers and lists', () => {
    const config = loadConfig({ SIGNUP_ENABLED: 'true', WEBHOOK_RETRY_BASE_MS: '20', TRUSTED_PROXIES: '10.0.0.1, 10.0.0.2' });
    expect(config.SIGNUP_ENABLED).toBe(true);
    expect(config.WEBHOOK_RETRY_BASE_MS).toBe(20);
    expect(config.TRUSTED_PROXIES).toEqual(['10.0.0.1', '10.0.0.2']);
  });

  it('ACCESS_LOG: as set, else on unless NODE_ENV is production', () => {
    expect(loadConfig({}).ACCESS_LOG).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).ACCESS_LOG).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', ACCESS_LOG: 'true' }).ACCESS_LOG).toBe(true);
    expect(loadConfig({ ACCESS_LOG: 'no' }).ACCESS_LOG).toBe(false);
    expect(() => loadConfig({ ACCESS_LOG: 'sometimes' })).toThrow('ACCESS_LOG: must be one of true, false');
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({ GATEWAY_PORT: '70000', SIGNUP_ENABLED: 'maybe', MONGODB_URI: 'postgres://x' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.map((p) => p.variable).sort();
    expect(problems).toEqual(['GATEWAY_PORT', 'MONGODB_URI', 'SIGNUP_ENABLED']);
    expect((error as ConfigError).message).toContain('SIGNUP_ENABLED: must be one of true, false');
  });

  it('says a number variable holding text must be a number', () => {
    expect(() => loadConfig({ GATEWAY_PORT: 'abc' })).toThrow('GATEWAY_PORT: must be a number');
  });

  it('collects <PROVIDER>_BASE_URL and <PROVIDER>_API_KEY by lower-case provider id', () => {
    const config = loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1/', GROQ_API_KEY: 'gsk_x' });
    expect(config.providerBaseUrls).toEqual({ openai: 'http://127.0.0.1:9/v1' });
    expect(config.providerApiKeys).toEqual({ groq: 'gsk_x' });
    // Not a URL: reported for the proxy to judge (a provider's refuses the start), never thrown here,
    // since another program's API_BASE_URL=/api may share the environment.
    const odd = loadConfig({ MISTRAL_BASE_URL: 'ftp://x', API_BASE_URL: '/api' });
    expect(odd.providerEnvProblems).toEqual([
      { variable: 'MISTRAL_BASE_URL', provider: 'mistral', message: 'must be a URL starting with http:// or https://' },
      { variable: 'API_BASE_URL', provider: 'api', message: 'must be a URL starting with http:// or https://' },
    ]);
    expect(odd.providerBaseUrls).toEqual({});
  });

  it('is documented: the README table lists every variable', () => {
    const readme = readFileSync(README, 'utf8');
    const missing = Object.keys(configSchema.shape).filter((name) => !readme.includes(`| \`${name}\``));
    expect(missing).toEqual([]);
  });

  it("is documented with its default: the README table's Default column is the schema's", () => {
    const table = configurationTable(readFileSync(README, 'utf8'));
    // The schema's defaults: what an empty environment parses to (before loadConfig resolves ACCESS_LOG).
    const defaults: Record<string, unknown> = configSchema.parse({});
    const drift = Object.keys(configSchema.shape).flatMap((name) => {
      const documented = table.get(name);
      const value = defaults[name];
      // A literal default is shown as that literal; no default (or an empty list) in words (`unset`,
      // `generated outside production`, ...), never as a value the schema does not give.
      const expected = Array.isArray(value) ? (value.length ? `\`${value.join(',')}\`` : 'empty') : value === undefined ? null : `\`${String(value)}\``;
      const ok = expected === null ? documented !== undefined && !documented.startsWith('`') : documented === expected;
      return ok ? [] : [{ name, readme: documented ?? '(no row)', schema: expected ?? '(no default: described in words)' }];
    });
    expect(drift).toEqual([]);
    // And no row documents a variable the service does not read.
    const unknown = [...table.keys()].filter((name) => !(name in configSchema.shape) && !/^<PROVIDER>_/.test(name));
    expect(unknown).toEqual([]);
  });
});

const README = join(__dirname, '..', '..', '..', '..', 'README.md');

/** README.md's configuration table (`| Variable | Default | Meaning |`): variable name → Default cell. */
function configurationTable(readme: string): Map<string, string> {
  const lines = readme.split('\n');
  const start = lines.findIndex((line) => /^\|\s*Variable\s*\|\s*Default\s*\|/.test(line));
  if (start < 0) throw new Error('README.md has no configuration table (| Variable | Default | Meaning |)');
  const rows = new Map<string, string>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [, variable, fallback] = line.split('|').map((cell) => cell.trim());
    rows.set(variable.replace(/^`|`$/g, ''), fallback);
  }
  return rows;
}
