import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insertLegacyProviderTarget, openTargetHeaders, PROVIDER_TARGETS, ProviderTargetEntity, sealProviderTargetHeaders } from '@svc/domain';
import { MockProvider, startMockProvider } from './mock-provider';
import { AdminHarness, GATEWAY_WITH_ADMIN, Json, startAdmin } from './admin-harness';

const TOKEN = 'tok-Gm4sXq9Lw2Rb7Kd';
const BEARER = 'Bearer sk-legacy-Tz8pNc3Vh6Yf1Qa';
const MASKED = { authorization: '[REDACTED]', 'x-auth-token': '[REDACTED]', 'x-team': 'ml' };

/**
 * docs/admin-api-providers.md "Provider targets and discovery": a target stored before credential header names
 * were refused keeps them sealed (`sealed_headers`) once the start-up pass has run, still sends them
 * upstream as configured, and the admin API never answers their values.
 */
describe('gateway admin: credential headers of provider targets stored before they were refused', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-target-headers-'));
  let mock: MockProvider;
  let h: AdminHarness;
  let adminKey: string;
  let legacy: ProviderTargetEntity;

  const boot = (env: Record<string, string> = {}) =>
    startAdmin({ definition: GATEWAY_WITH_ADMIN, env: { DATA_DIR: dataDir, OPENAI_BASE_URL: `${mock.url}/v1`, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', ...env } });
  const raw = (id: string) => h.service.runtime.store.collection(PROVIDER_TARGETS).findOne({ _id: id });
  const call = (method: string, path: string, body?: Json) => h.call(method, `/gateway/admin/provider-targets${path}`, { key: adminKey, body });

  /** The target's view from list and get, and the raw answers (which must not hold a secret). */
  async function views(): Promise<{ listed: Json; got: Json; text: string }> {
    const list = await call('GET', '?limit=100');
    const get = await call('GET', `/${legacy._id}`);
    expect([list.status, get.status]).toEqual([200, 200]);
    return { listed: (list.body.items as Json[]).find((item) => item.id === legacy._id) as Json, got: get.body, text: list.text + get.text };
  }

  /** One proxied chat to the target over HTTP; the headers the mock upstream received. */
  async function proxied(): Promise<Json> {
    mock.reset();
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-api-key': adminKey },
      body: JSON.stringify({ model: 'legacy/lab-model', messages: [{ role: 'user', content: 'hello' }], max_tokens: 16 }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain(TOKEN);
    return mock.requests.at(-1)?.headers as Json;
  }

  beforeAll(async () => {
    mock = await startMockProvider({ port: 0 });
    h = await boot();
    adminKey = h.org.admin;
  });
  afterAll(async () => {
    await h?.stop();
    await mock?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves a target an earlier version stored in clear: listed masked, sent upstream as configured', async () => {
    // Written in clear after the start, as a replica of the earlier version still would.
    legacy = await insertLegacyProviderTarget(h.service.runtime.store, {
      _id: 'tgt_legacyheaders1',
      org_id: h.org.id,
      name: 'Legacy',
      provider_id: 'legacy',
      base_url: `${mock.url}/v1`,
      headers: { authorization: BEARER, 'x-auth-token': TOKEN, 'x-team': 'ml' },
      models: ['lab-model'],
    });
    await h.service.runtime.invalidation.publish('provider-target', h.org.id);
    const { listed, got, text } = await views();
    expect(listed.headers).toEqual(MASKED);
    expect(got.headers).toEqual(MASKED);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(BEARER);
    expect(await proxied()).toMatchObject({ authorization: BEARER, 'x-auth-token': TOKEN, 'x-team': 'ml' });
  });

  it('seals it at the next start: the document holds no value in clear, the target still works, the pass again changes nothing', async () => {
    await h.stop();
    h = await boot();
    const stored = await raw(legacy._id);
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    expect(JSON.stringify(stored)).not.toContain('sk-legacy');
    expect(stored).toMatchObject({ headers: { 'x-team': 'ml' }, sealed_headers: { authorization: { key_version: 1 }, 'x-auth-token': { key_version: 1 } } });
    expect({ ...stored, headers: null, sealed_headers: null }).toEqual({ ...legacy, headers: null, sealed_headers: null });

    const { listed, got, text } = await views();
    expect(listed.headers).toEqual(MASKED);
    expect(got.headers).toEqual(MASKED);
    expect(text).not.toContain(TOKEN);
    expect(await proxied()).toMatchObject({ authorization: BEARER, 'x-auth-token': TOKEN, 'x-team': 'ml' });
    // Discovery sends them too.
    mock.reset();
    expect((await call('POST', `/${legacy._id}/discover-models`)).status).toBe(200);
    expect(mock.requests.at(-1)).toMatchObject({ path: '/v1/models', headers: { authorization: BEARER, 'x-auth-token': TOKEN } });

    const before = await raw(legacy._id);
    for (let run = 0; run < 2; run++) expect(await sealProviderTargetHeaders(h.repos.providerTargets, h.service.runtime.cipher)).toEqual({ sealed: 0, marked: 0 });
    expect(await raw(legacy._id)).toEqual(before);
  });

  it('a PATCH of headers keeps a stored credential header sent back masked, drops one left out, and refuses a new value', async () => {
    const kept = await call('PATCH', `/${legacy._id}`, { headers: { Authorization: '[REDACTED]', 'X-Auth-Token': '[REDACTED]', 'X-Team': 'ai' } });
    expect(kept.status).toBe(200);
    expect(kept.body.headers).toEqual({ ...MASKED, 'x-team': 'ai' });
    expect(await proxied()).toMatchObject({ authorization: BEARER, 'x-auth-token': TOKEN, 'x-team': 'ai' });

    const changed = await call('PATCH', `/${legacy._id}`, { headers: { 'X-Auth-Token': 'tok-new-value', 'X-Team': 'ai' } });
    expect(changed.status).toBe(400);
    expect(changed.body.error).toMatchObject({ param: 'headers.X-Auth-Token' });

    const dropped = await call('PATCH', `/${legacy._id}`, { headers: { Authorization: '[REDACTED]', 'X-Team': 'ai' } });
    expect(dropped.body.headers).toEqual({ authorization: '[REDACTED]', 'x-team': 'ai' });
    const stored = (await raw(legacy._id)) as ProviderTargetEntity;
    expect(openTargetHeaders(h.service.runtime.cipher, stored)).toEqual({ authorization: BEARER, 'x-team': 'ai' });
    expect(await proxied()).not.toHaveProperty('x-auth-token');
  });

  it('after a master key rotation, the same PATCH seals the kept header again under the current key', async () => {
    const previous = h.service.runtime.secrets.masterKeys.current.key.toString('base64');
    await h.stop();
    h = await boot({ MASTER_ENCRYPTION_KEY: randomBytes(32).toString('base64'), MASTER_ENCRYPTION_KEY_PREVIOUS: previous, MASTER_ENCRYPTION_KEY_VERSION: '2' });
    expect(await raw(legacy._id)).toMatchObject({ sealed_headers: { authorization: { key_version: 1 } } });
    expect(await proxied()).toMatchObject({ authorization: BEARER });
    expect((await call('PATCH', `/${legacy._id}`, { headers: { Authorization: '[REDACTED]', 'X-Team': 'ai' } })).status).toBe(200);
    const stored = (await raw(legacy._id)) as ProviderTargetEntity;
    expect(stored).toMatchObject({ sealed_headers: { authorization: { key_version: 2 } } });
    expect(openTargetHeaders(h.service.runtime.cipher, stored)).toEqual({ authorization: BEARER, 'x-team': 'ai' });
    expect(await proxied()).toMatchObject({ authorization: BEARER, 'x-team': 'ai' });
  });
});
