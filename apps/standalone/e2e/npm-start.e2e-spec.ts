import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnNode, WORKSPACE_ROOT } from '@svc/testing';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
type Json = Record<string, any>;

/** `npm start` as a newcomer runs it: the real script, the real build, two real ports. */
describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves the gateway surface and the org API, owns its DATA_DIR, then drains on SIGTERM', async () => {
    const [gatewayPort, orgPort] = [await freePort(), await freePort()];
    // LOG_LEVEL=silent prints nothing but the generated bootstrap password: the one way in.
    const started = spawnNode(['tools/start.mjs'], {
      GATEWAY_PORT: String(gatewayPort),
      ORG_API_PORT: String(orgPort),
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
    });
    try {
      await started.waitFor(/log in: POST/, 120_000);
      expect(started.output()).toMatch(/bootstrap\s+created the first organization \(org_\w+\) and its Owner admin@example.com/);
      expect(started.output()).toMatch(/generated password \(shown once\): \w{24}/);
      expect(started.output()).not.toContain('is running');

      for (const port of [gatewayPort, orgPort]) {
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        expect(res.status).toBe(200);
        expect(await res.json() as Json).toEqual({ status: 'ok' });
        const docs = await fetch(`http://127.0.0.1:${port}/docs/json`);
        expect(docs.status).toBe(200);
        expect(((await docs.json()) as Json).openapi).toMatch(/^3\./);
      }

      // A second process on the same DATA_DIR is refused, naming the first one.
      const second = spawnNode(['tools/start.mjs'], {
        GATEWAY_PORT: String(await freePort()),
        ORG_API_PORT: String(await freePort()),
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      });
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain(`is in use by process ${started.child.pid}`);
      expect(second.output()).toMatch(/different DATA_DIR/);
    } finally {
      started.child.kill('SIGTERM');
    }
    expect(await started.exited).toBe(0);

    // The bundle npm start ran: every package it requires is in the package.json generated with it.
    const bundle = join(WORKSPACE_ROOT, 'dist', 'apps', 'standalone');
    const listed = Object.keys((JSON.parse(readFileSync(join(bundle, 'package.json'), 'utf8')) as Json).dependencies);
    const required = [...readFileSync(join(bundle, 'main.js'), 'utf8').matchAll(/require\("([^".][^"]*)"\)/g)]
      .map(([, id]) => (id.startsWith('@') ? id.split('/').slice(0, 2) : id.split('/').slice(0, 1)).join('/'))
      .filter((name) => !name.startsWith('node:') && !builtinModules.includes(name));
    expect(required).toContain('tslib');
    expect([...new Set(required)].filter((name) => !listed.includes(name))).toEqual([]);

    // A restart on the same DATA_DIR keeps the organization: no second bootstrap, no new password.
    const restarted = spawnNode(['tools/start.mjs'], {
      GATEWAY_PORT: String(gatewayPort),
      ORG_API_PORT: String(orgPort),
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    });
    try {
      await restarted.waitFor('is running', 120_000);
      expect(restarted.output()).toContain(`http://localhost:${gatewayPort}/docs`);
      expect(restarted.output()).toContain(`http://localhost:${orgPort}/docs`);
      expect(restarted.output()).toMatch(/documents\s+embedded file store/);
      expect(restarted.output()).not.toContain('bootstrap');
      expect(restarted.output()).not.toContain('generated password');
    } finally {
      restarted.child.kill('SIGTERM');
    }
    expect(await restarted.exited).toBe(0);
  }, 300_000);
});

describe('bad configuration', () => {
  it.each([
    ['GATEWAY_PORT', 'not-a-port', /GATEWAY_PORT/],
    ['REDIS_URL', 'http://localhost:6379', /REDIS_URL: must be a URL starting with redis:\/\//],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL/],
    ['MASTER_ENCRYPTION_KEY', 'too-short', /MASTER_ENCRYPTION_KEY: must be 32 bytes/],
  ])('%s=%s stops the process with a message naming the variable', async (variable, value, message) => {
    const run = spawnNode(['-r', '@swc-node/register', 'apps/standalone/src/main.ts'], {
      SWC_NODE_PROJECT: 'tsconfig.base.json',
      [variable]: value,
    });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(message);
  });

  it('a port in use stops the start naming its variable, and a first start still shows the password it generated', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-busy-'));
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const busyPort = (busy.address() as AddressInfo).port;
    const env = { SWC_NODE_PROJECT: 'tsconfig.base.json', DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    try {
      // The gateway surface listens first; the org API's port is taken.
      const run = spawnNode(['-r', '@swc-node/register', 'apps/standalone/src/main.ts'], { ...env, GATEWAY_PORT: String(await freePort()), ORG_API_PORT: String(busyPort) });
      expect(await run.exited).toBe(1);
      expect(run.output()).toContain(`ORG_API_PORT: port ${busyPort} is already in use on 127.0.0.1`);
      expect(run.output()).not.toMatch(/\n\s+at /);
      const password = /generated password \(shown once\): (\w{24})/.exec(run.output())?.[1];
      expect(password).toBeDefined();

      // The account it announced was kept: the next start creates none, and that password logs in.
      const orgPort = await freePort();
      const next = spawnNode(['-r', '@swc-node/register', 'apps/standalone/src/main.ts'], { ...env, GATEWAY_PORT: String(await freePort()), ORG_API_PORT: String(orgPort) });
      try {
        await next.waitFor('is running', 120_000);
        expect(next.output()).not.toContain('generated password');
        const login = await fetch(`http://127.0.0.1:${orgPort}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'admin@example.com', password }),
        });
        expect(login.status).toBe(200);
      } finally {
        next.child.kill('SIGTERM');
      }
      expect(await next.exited).toBe(0);
    } finally {
      busy.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);

  it('refuses to start in production without the master key and JWT secret', async () => {
    const run = spawnNode(['-r', '@swc-node/register', 'apps/standalone/src/main.ts'], {
      SWC_NODE_PROJECT: 'tsconfig.base.json',
      NODE_ENV: 'production',
      GATEWAY_PORT: String(await freePort()),
      ORG_API_PORT: String(await freePort()),
    });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/MASTER_ENCRYPTION_KEY: is required when NODE_ENV=production/);
    expect(run.output()).toMatch(/JWT_SECRET: is required when NODE_ENV=production/);
  });
});
