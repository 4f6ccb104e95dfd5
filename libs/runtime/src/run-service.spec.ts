import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import type { BootstrapResult } from '@svc/domain';
import { AppConfig, ConfigError, loadConfig } from '@svc/platform';
import { printBanner, ServiceDefinition, startService } from './run-service';

@Module({})
class EmptyModule {}

const definition: ServiceDefinition = {
  name: 'svc-gateway',
  version: '9.9.9',
  surfaces: [
    { label: 'gateway', module: EmptyModule, port: 'GATEWAY_PORT', surface: 'gateway', docs: { title: 't', description: 'd' } },
    { label: 'org-api', module: EmptyModule, port: 'ORG_API_PORT', surface: 'org' },
  ],
};
const urls = { gateway: 'http://localhost:8002', 'org-api': 'http://localhost:8001' };

function banner(config: AppConfig, bootstrap: BootstrapResult | null): string {
  let text = '';
  printBanner(definition, { config, bootstrap, storesInUse: () => ({ documents: 'embedded file store in ./.data' }) }, urls, {
    write: (chunk: string | Uint8Array) => {
      text += String(chunk);
      return true;
    },
  });
  return text;
}

const created = (generatedPassword?: string) =>
  ({ created: true, orgId: 'org_1', email: 'admin@example.com', generatedPassword }) as unknown as BootstrapResult;

describe('printBanner', () => {
  it('prints the URLs, docs, stores and the generated bootstrap password', () => {
    const text = banner(loadConfig({ LOG_LEVEL: 'info' }), created('p4ssw0rd-generated-once'));
    expect(text).toContain('svc-gateway 9.9.9 is running');
    expect(text).toContain('http://localhost:8002   docs: http://localhost:8002/docs');
    expect(text).toMatch(/documents\s+embedded file store/);
    expect(text).toContain('generated password (shown once): p4ssw0rd-generated-once');
    expect(text).toContain('log in: POST http://localhost:8001/api/v1/auth/login');
  });

  it('at LOG_LEVEL=silent still shows a generated password, and nothing else', () => {
    const text = banner(loadConfig({ LOG_LEVEL: 'silent' }), created('p4ssw0rd-generated-once'));
    expect(text).toContain('created the first organization (org_1) and its Owner admin@example.com');
    expect(text).toContain('generated password (shown once): p4ssw0rd-generated-once');
    expect(text).not.toContain('is running');
    expect(text).not.toContain('docs:');
  });

  it('at LOG_LEVEL=silent prints nothing when no password was generated', () => {
    expect(banner(loadConfig({ LOG_LEVEL: 'silent' }), created())).toBe('');
    expect(banner(loadConfig({ LOG_LEVEL: 'silent' }), null)).toBe('');
  });
});

describe('startService, a HOST it cannot listen on', () => {
  const onlyGateway: ServiceDefinition = { ...definition, surfaces: [definition.surfaces[0]] };

  it('stops with a configuration error naming HOST, not a stack trace (an address this machine does not have)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-host-'));
    try {
      // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine, so listen fails with EADDRNOTAVAIL.
      const config = loadConfig({ DATA_DIR: dataDir, HOST: '192.0.2.1', GATEWAY_PORT: '0', LOG_LEVEL: 'silent' });
      const started = startService(onlyGateway, config, { handleSignals: false, banner: false });
      await expect(started).rejects.toBeInstanceOf(ConfigError);
      await expect(started).rejects.toThrow(/HOST: 192\.0\.2\.1 is not an address of this machine/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
