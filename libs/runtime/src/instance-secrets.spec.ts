import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '@svc/platform';
import { resolveInstanceSecrets } from './instance-secrets';

describe('resolveInstanceSecrets outside production', () => {
  const parent = mkdtempSync(join(tmpdir(), 'svc-secrets-'));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('generates the secrets into a data directory only its user can read (0700), the file 0600, and reads them back', () => {
    const dataDir = join(parent, 'fresh', 'data');
    const config = loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir });
    const first = resolveInstanceSecrets(config, pino({ level: 'silent' }));
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'instance-secrets.json')).mode & 0o777).toBe(0o600);
    const again = resolveInstanceSecrets(config, pino({ level: 'silent' }));
    expect(again.jwtSecret).toBe(first.jwtSecret);
    expect(first.generated).toBe(true);
  });
});
