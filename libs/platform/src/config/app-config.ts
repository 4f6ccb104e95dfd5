import { configSchema, RawConfig } from './config.schema';
import { urlUserName, withPassword } from './datastore-url';

/** Environment variables that configure an upstream provider: `<PROVIDER>_BASE_URL`, `<PROVIDER>_API_KEY`. */
const PROVIDER_ENV = /^([A-Z0-9]+)_(BASE_URL|API_KEY)$/;

export interface AppConfig extends Readonly<Omit<RawConfig, 'ACCESS_LOG'>> {
  /**
   * `ACCESS_LOG`, resolved: set, as set; unset, on for `npm start` and development (a new user sees
   * each request answered), off with `NODE_ENV=production` (the images), where the usage records
   * are the per-request trail and a log line per request is the operator's choice.
   */
  readonly ACCESS_LOG: boolean;
  /** `<PROVIDER>_BASE_URL` overrides, keyed by lower-case provider id. */
  readonly providerBaseUrls: Readonly<Record<string, string>>;
  /** `<PROVIDER>_API_KEY` self-hosted provider keys, keyed by lower-case provider id. */
  readonly providerApiKeys: Readonly<Record<string, string>>;
  /**
   * `<WORD>_BASE_URL` variables whose value is not an http(s) URL. Only the proxy knows which words
   * are providers: it refuses to start for one of them, and ignores the rest (`API_BASE_URL=/api`
   * of another program in the same environment is none of its business).
   */
  readonly providerEnvProblems: readonly { variable: string; provider: string; message: string }[];
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
        // A number variable holding text: zod says "Expected number, received nan".
        message: issue.code === 'invalid_type' && issue.received === 'nan' ? 'must be a number' : issue.message,
      })),
    );
  }
  const datastores = datastoreUrls(parsed.data);
  const providerBaseUrls: Record<string, string> = {};
  const providerApiKeys: Record<string, string> = {};
  const providerEnvProblems: { variable: string; provider: string; message: string }[] = [];
  for (const [name, value] of Object.entries(env)) {
    const match = PROVIDER_ENV.exec(name);
    if (!match || !value) continue;
    const provider = match[1].toLowerCase();
    if (match[2] === 'BASE_URL') {
      if (!/^https?:\/\//.test(value)) {
        providerEnvProblems.push({ variable: name, provider, message: 'must be a URL starting with http:// or https://' });
        continue;
      }
      providerBaseUrls[provider] = value.replace(/\/+$/, '');
    } else {
      providerApiKeys[provider] = value;
    }
  }
  return Object.freeze({
    ...parsed.data,
    ...datastores,
    ACCESS_LOG: parsed.data.ACCESS_LOG ?? parsed.data.NODE_ENV !== 'production',
    providerBaseUrls: Object.freeze(providerBaseUrls),
    providerApiKeys: Object.freeze(providerApiKeys),
    providerEnvProblems: Object.freeze(providerEnvProblems),
  });
}

/**
 * REDIS_URL and MONGODB_URI with REDIS_PASSWORD / MONGODB_PASSWORD put in, percent-encoded (the Helm
 * chart's bundled stores pass the password apart: datastore-url.ts). A password without its URL, or
 * MONGODB_PASSWORD for a URI that names no user, is a configuration error.
 */
function datastoreUrls(data: RawConfig): Pick<RawConfig, 'REDIS_URL' | 'MONGODB_URI'> {
  const problems: { variable: string; message: string }[] = [];
  let { REDIS_URL, MONGODB_URI } = data;
  if (data.REDIS_PASSWORD !== undefined) {
    if (REDIS_URL) REDIS_URL = withPassword(REDIS_URL, data.REDIS_PASSWORD);
    else problems.push({ variable: 'REDIS_PASSWORD', message: 'is set without REDIS_URL: set REDIS_URL (redis://host:6379/0), or unset REDIS_PASSWORD' });
  }
  if (data.MONGODB_PASSWORD !== undefined) {
    if (!MONGODB_URI) problems.push({ variable: 'MONGODB_PASSWORD', message: 'is set without MONGODB_URI: set MONGODB_URI (mongodb://user@host:27017/db), or unset MONGODB_PASSWORD' });
    else if (!urlUserName(MONGODB_URI)) problems.push({ variable: 'MONGODB_PASSWORD', message: 'needs a user name in MONGODB_URI (mongodb://user@host:27017/db)' });
    else MONGODB_URI = withPassword(MONGODB_URI, data.MONGODB_PASSWORD);
  }
  if (problems.length) throw new ConfigError(problems);
  return { REDIS_URL, MONGODB_URI };
}
