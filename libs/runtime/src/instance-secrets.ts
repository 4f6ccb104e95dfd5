import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppConfig, ConfigError, Logger } from '@svc/platform';

export interface InstanceSecrets {
  /** AES-256-GCM master key (32 bytes) and its version; previous keys still decrypt. */
  masterKeys: { current: { version: number; key: Buffer }; previous: { version: number; key: Buffer }[] };
  jwtSecret: string;
  /** True when the secrets were generated into DATA_DIR because none were configured. */
  generated: boolean;
}

interface StoredSecrets {
  master_encryption_key: string;
  jwt_secret: string;
}

const FILE = 'instance-secrets.json';

/**
 * The master encryption key and the JWT signing secret. Configured values always win. Outside
 * production a missing value is generated once and kept in DATA_DIR (mode 0600) so a laptop
 * `npm start` needs no setup and survives restarts; in production both must be configured,
 * because replicas must share them.
 */
export function resolveInstanceSecrets(config: AppConfig, logger: Logger): InstanceSecrets {
  const missing = [
    ...(config.MASTER_ENCRYPTION_KEY ? [] : ['MASTER_ENCRYPTION_KEY']),
    ...(config.JWT_SECRET ? [] : ['JWT_SECRET']),
  ];
  if (missing.length && config.NODE_ENV === 'production') {
    throw new ConfigError(missing.map((variable) => ({ variable, message: 'is required when NODE_ENV=production' })));
  }
  let stored: StoredSecrets | undefined;
  if (missing.length) {
    stored = loadOrCreate(config.DATA_DIR);
    logger.warn({ variables: missing, file: join(config.DATA_DIR, FILE) }, 'using generated development secrets; set them for production');
  }
  const current = config.MASTER_ENCRYPTION_KEY ?? stored?.master_encryption_key;
  const previous = config.MASTER_ENCRYPTION_KEY_PREVIOUS;
  const version = config.MASTER_ENCRYPTION_KEY_VERSION;
  if (previous && version < 2) {
    throw new ConfigError([
      { variable: 'MASTER_ENCRYPTION_KEY_VERSION', message: 'must be 2 or more when MASTER_ENCRYPTION_KEY_PREVIOUS is set' },
    ]);
  }
  return {
    masterKeys: {
      current: { version, key: Buffer.from(current as string, 'base64') },
      previous: previous ? [{ version: version - 1, key: Buffer.from(previous, 'base64') }] : [],
    },
    jwtSecret: config.JWT_SECRET ?? (stored as StoredSecrets).jwt_secret,
    generated: missing.length > 0,
  };
}

function loadOrCreate(dataDir: string): StoredSecrets {
  const path = join(dataDir, FILE);
  if (existsSync(path)) {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<StoredSecrets>;
    if (parsed.master_encryption_key && parsed.jwt_secret) return parsed as StoredSecrets;
  }
  // As the embedded store creates it: only this user reads the data directory (secrets and data)
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secrets: StoredSecrets = {
    master_encryption_key: randomBytes(32).toString('base64'),
    jwt_secret: randomBytes(48).toString('base64url'),
  };
  writeFileSync(path, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return secrets;
}
