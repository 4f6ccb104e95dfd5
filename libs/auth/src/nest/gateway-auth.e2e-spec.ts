import { Controller, Get, Module, UseGuards } from '@nestjs/common';
import { asOrgId, generateApiKey, hashApiKey, keyDisplayPrefix, keyLastFour, Repositories } from '@svc/domain';
import { SERVICE_VERSION } from '@svc/platform';
import { bootService, TestService } from '@svc/testing';
import { Principal } from '../principal';
import type { Role } from '../scopes';
import { TokenService } from '../tokens';
import { revokeAccessTokenFamily, StoreAccessTokenRevocations } from './access-token-revocations';
import { AuthModule } from './auth.module';
import { CurrentPrincipal, RequireScopes } from './decorators';
import { GatewayAuthGuard } from './gateway-auth.guard';

@Controller('gateway/admin/probe')
@UseGuards(GatewayAuthGuard)
class ProbeController {
  @Get('read')
  @RequireScopes('admin:read')
  read(@CurrentPrincipal() principal: Principal) {
    return { org: principal.orgId, kind: principal.kind, key: principal.keyId };
  }
  @Get('write')
  @RequireScopes('admin:write')
  write() {
    return { ok: true };
  }
}

@Module({ imports: [AuthModule], controllers: [ProbeController] })
class ProbeModule {}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
type Json = Record<string, any>;

describe('GatewayAuthGuard', () => {
  let service: TestService;
  let repos: Repositories;
  let base: string;
  let orgId: string;

  async function newKey(scopes: string[], extra: { ip_allowlist?: string[]; name?: string } = {}) {
    const plaintext = generateApiKey();
    const key = await repos.apiKeys.create(asOrgId(orgId), {
      name: extra.name ?? `k-${Math.random()}`,
      key_hash: hashApiKey(plaintext),
      key_prefix: keyDisplayPrefix(plaintext),
      last_four: keyLastFour(plaintext),
      scopes,
      ip_allowlist: extra.ip_allowlist ?? [],
    });
    return { plaintext, key };
  }
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });
  const body = async (res: Response) => (await res.json()) as Json;

  beforeAll(async () => {
    service = await bootService({
      name: 'auth-spec',
      version: SERVICE_VERSION,
      surfaces: [{ label: 'gateway', module: ProbeModule, port: 'GATEWAY_PORT', surface: 'gateway' }],
    });
    repos = service.runtime.repositories;
    base = service.urls.gateway;
    orgId = (await repos.organizations.create({ name: 'Acme', plan: 'growth' }))._id;
  });
  afterAll(() => service.stop());

  it('401 GW_AUTH_001 without credentials, naming the accepted locations', async () => {
    const res = await get('/gateway/admin/probe/read');
    expect(res.status).toBe(401);
    const { error } = await body(res);
    expect(error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_001' });
    expect(error.message).toMatch(/X-SVC-API-Key.*Authorization: Bearer.*api_key/);
  });

  it('accepts a key in each location, in priority order', async () => {
    const { plaintext, key } = await newKey(['admin:read']);
    for (const res of [
      await get('/gateway/admin/probe/read', { 'X-SVC-API-Key': plaintext }),
      await get('/gateway/admin/probe/read', { Authorization: `Bearer ${plaintext}` }),
      await get(`/gateway/admin/probe/read?api_key=${plaintext}`),
    ]) {
      expect(res.status).toBe(200);
      expect(await body(res)).toEqual({ org: orgId, kind: 'api_key', key: key._id });
    }
  });

  it('401 GW_AUTH_002 for unknown and revoked keys', async () => {
    expect((await body(await get('/gateway/admin/probe/read', { 'X-SVC-API-Key': generateApiKey() }))).error.gateway_error_code).toBe('GW_AUTH_002');
    const { plaintext, key } = await newKey(['admin:read']);
    expect((await get('/gateway/admin/probe/read', { 'X-SVC-API-Key': plaintext })).status).toBe(200);
    await repos.apiKeys.revoke(asOrgId(orgId), key._id);
    await service.runtime.invalidation.publish('api-key', key.key_hash);
    const res = await get('/gateway/admin/probe/read', { 'X-SVC-API-Key': plaintext });
    expect(res.status).toBe(401);
    expect((await body(res)).error.gateway_error_code).toBe('GW_AUTH_002');
  });

  it('403 insufficient_scope when the key lacks the route scope', async () => {
    const { plaintext } = await newKey(['admin:read']);
    const res = await get('/gateway/admin/probe/write', { 'X-SVC-API-Key': plaintext });
    expect(res.status).toBe(403);
    expect((await body(res)).error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
  });

  it('403 GW_AUTH_004 outside the IP allowlist; 200 inside it', async () => {
    const outside = await newKey(['admin:read'], { ip_allowlist: ['10.0.0.0/8'] });
    const res = await get('/gateway/admin/probe/read', { 'X-SVC-API-Key': outside.plaintext });
    expect(res.status).toBe(403);
    expect((await body(res)).error).toMatchObject({ code: 'ip_not_allowed', gateway_error_code: 'GW_AUTH_004' });
    const inside = await newKey(['admin:read'], { ip_allowlist: ['127.0.0.1'] });
    expect((await get('/gateway/admin/probe/read', { 'X-SVC-API-Key': inside.plaintext })).status).toBe(200);
  });

  it('keeps a rotated key working in its grace period with deprecation headers, then 401 key_rotated', async () => {
    const { plaintext, key } = await newKey(['admin:read']);
    const replacement = generateApiKey();
    const rotated = await repos.apiKeys.rotate(
      asOrgId(orgId),
      key._id,
      { key_hash: hashApiKey(replacement), key_prefix: keyDisplayPrefix(replacement), last_four: keyLastFour(replacement) },
      new Date(Date.now() + 2 * 3600_000),
    );
    await service.runtime.invalidation.publish('api-key', key.key_hash);
    const inGrace = await get('/gateway/admin/probe/read', { 'X-SVC-API-Key': plaintext });
    expect(inGrace.status).toBe(200);
    expect(inGrace.headers.get('x-svc-key-deprecated')).toBe('true');
    expect(Number(inGrace.headers.get('x-svc-grace-remaining-hours'))).toBeGreaterThan(1.9);
    expect((await get('/gateway/admin/probe/read', { 'X-SVC-API-Key': replacement })).status).toBe(200);

    await repos.apiKeys.updateById(asOrgId(orgId), key._id, { grace_until: new Date(Date.now() - 1000) });
    await service.runtime.invalidation.publish('api-key', key.key_hash);
    const expired = await get('/gateway/admin/probe/read', { 'X-SVC-API-Key': plaintext });
    expect(expired.status).toBe(401);
    const { error } = await body(expired);
    expect(error).toMatchObject({ code: 'key_rotated', gateway_error_code: 'GW_AUTH_003' });
    expect(error.message).toContain(rotated?.current._id);
  });

  /** A user of the organization and an access token issued to it (as the organization API's login does). */
  async function dashboardUser(role: Role, family?: string) {
    const tokens = new TokenService({ secret: service.runtime.secrets.jwtSecret, issuer: 'svc-org-api', audience: 'svc-gateway' });
    const email = `${role.toLowerCase()}-${Math.random().toString(36).slice(2)}@example.com`;
    const user = await repos.users.create(asOrgId(orgId), { email, role, password_hash: 'not-used', name: null });
    return { user, tokens, access: tokens.issueAccess({ id: user._id, org_id: orgId, role, email }, family) };
  }

  it('accepts a dashboard access token with the role-derived scopes', async () => {
    const { access: member } = await dashboardUser('Member');
    const read = await get('/gateway/admin/probe/read', { Authorization: `Bearer ${member.token}` });
    expect(read.status).toBe(200);
    expect((await body(read)).kind).toBe('dashboard');
    expect((await get('/gateway/admin/probe/write', { Authorization: `Bearer ${member.token}` })).status).toBe(403);
    const { tokens, user, access: admin } = await dashboardUser('Admin');
    expect((await get('/gateway/admin/probe/write', { Authorization: `Bearer ${admin.token}` })).status).toBe(200);
    expect((await get('/gateway/admin/probe/read', { Authorization: `Bearer ${admin.token}`, 'X-Org-ID': 'org_other' })).status).toBe(403);
    const refresh = tokens.issueRefresh({ id: user._id, org_id: orgId }).token;
    expect((await get('/gateway/admin/probe/read', { Authorization: `Bearer ${refresh}` })).status).toBe(401);
    await service.runtime.repositories.revokedAccessTokens.revoke(admin.claims.jti, new Date(admin.claims.exp * 1000));
    const loggedOut = await get('/gateway/admin/probe/read', { Authorization: `Bearer ${admin.token}` });
    expect(loggedOut.status).toBe(401);
    expect((await body(loggedOut)).error).toMatchObject({ gateway_error_code: 'GW_AUTH_002', message: expect.stringMatching(/revoked/) });
    // A token that is not a JWT at all is malformed (001); a forged or expired one is invalid (002).
    const notJwt = await get('/gateway/admin/probe/read', { Authorization: 'Bearer not-a-token' });
    expect((await body(notJwt)).error.gateway_error_code).toBe('GW_AUTH_001');
    const forged = await get('/gateway/admin/probe/read', { Authorization: `Bearer ${admin.token.slice(0, -4)}AAAA` });
    expect({ status: forged.status, code: (await body(forged)).error.gateway_error_code }).toEqual({ status: 401, code: 'GW_AUTH_002' });
  });

  it('takes the role from the user as it is now: a removed member is refused, a demoted one loses write', async () => {
    const removed = await dashboardUser('Admin');
    const demoted = await dashboardUser('Admin');
    for (const { access } of [removed, demoted]) expect((await get('/gateway/admin/probe/write', { Authorization: `Bearer ${access.token}` })).status).toBe(200);
    await repos.users.deleteById(asOrgId(orgId), removed.user._id);
    await repos.users.updateById(asOrgId(orgId), demoted.user._id, { role: 'Member' });
    const refused = await get('/gateway/admin/probe/read', { Authorization: `Bearer ${removed.access.token}` });
    expect(refused.status).toBe(401);
    expect((await body(refused)).error).toMatchObject({ code: 'invalid_api_key', gateway_error_code: 'GW_AUTH_002', message: expect.stringMatching(/no longer exists/) });
    expect((await get('/gateway/admin/probe/write', { Authorization: `Bearer ${demoted.access.token}` })).status).toBe(403);
    expect((await get('/gateway/admin/probe/read', { Authorization: `Bearer ${demoted.access.token}` })).status).toBe(200);
  });

  it('refuses a dashboard access token whose login (refresh-token family) was revoked', async () => {
    const ended = (await dashboardUser('Admin', 'fam-ended')).access.token;
    const live = (await dashboardUser('Admin', 'fam-live')).access.token;
    expect((await get('/gateway/admin/probe/read', { Authorization: `Bearer ${ended}` })).status).toBe(200);
    await revokeAccessTokenFamily(new StoreAccessTokenRevocations(repos), 'fam-ended');
    expect((await get('/gateway/admin/probe/read', { Authorization: `Bearer ${ended}` })).status).toBe(401);
    expect((await get('/gateway/admin/probe/read', { Authorization: `Bearer ${live}` })).status).toBe(200);
  });
});
