import { configSchema, RawConfig } from './config.schema';

/** Environment variables that configure an upstream provider: `<PROVIDER>_BASE_URL`, `<PROVIDER>_API_KEY`. */
const PROVIDER_ENV = /^([A-Z0-9]+)_(BASE_URL|API_KEY)$/;

export interface AppConfig extends Readonly<RawConfig> {
  /** `<PROVIDER>_BASE_URL` overrides, keyed by lower-case provider id. */
  readonly providerBaseUrls: Readonly<Record<string, string>>;
  /** `<PROVIDER>_API_KEY` self-hosted provider keys, keyed by lower-case provider id. */
  readonly providerApiKeys: Readonly<Record<string, string>>;
}

export class ConfigError extends Error {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(
      `Invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment once. Throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '(root)'),
        message: issue.message,
      })),
    );
  }
  const providerBaseUrls: Record<string, string> = {};
  const providerApiKeys: Record<string, string> = {};
  const problems: { variable: string; message: string }[] = [];
  for (const [name, value] of Object.entries(env)) {
    const match = PROVIDER_ENV.exec(name);
    if (!match || !value) continue;
    const provider = match[1].toLowerCase();
    if (match[2] === 'BASE_URL') {
      if (!/^https?:\/\//.test(value)) {
        problems.push({ variable: name, message: 'must be a URL starting with http:// or https://' });
        continue;
      }
      providerBaseUrls[provider] = value.replace(/\/+$/, '');
    } else {
      providerApiKeys[provider] = value;
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return Object.freeze({
    ...parsed.data,
    providerBaseUrls: Object.freeze(providerBaseUrls),
    providerApiKeys: Object.freeze(providerApiKeys),
  });
}
