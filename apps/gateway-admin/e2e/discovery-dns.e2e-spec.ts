import { DynamicModule, Module } from '@nestjs/common';
import { GatewayAdminModule } from '@svc/admin';
import { HostResolver, LivenessModule, OUTBOUND_RESOLVER, outboundResolver, SERVICE_VERSION } from '@svc/platform';
import { GatewayProxyModule } from '@svc/proxy';
import type { ServiceDefinition } from '@svc/runtime';
import { FakeNameServer, startFakeNameServer } from '@svc/test-redis';
import { MockProvider, startMockProvider } from './mock-provider';
import { AdminHarness, gatewayError, Json, startAdmin } from './admin-harness';

const TIMEOUT_MS = 1_000;
/** A busy machine's slack on top of a deadline. */
const SLACK_MS = 3_000;
const TARGET_KEY = 'sk-target-key-dns';
const MODELS = ['llama3.1:8b', 'qwen2.5:7b'];

/**
 * The proxy and the admin API in one app whose lookups of customer hosts (OUTBOUND_RESOLVER) ask a
 * name server of the test's own on a UDP port of 127.0.0.1: the services' own `outboundResolver`,
 * handed other name servers, as every lookup of provider-target hosts goes through it.
 */
function withNameServer(resolve: HostResolver): ServiceDefinition {
  const nameServer: DynamicModule = {
    module: class FakeNameServerModule {},
    global: true,
    providers: [{ provide: OUTBOUND_RESOLVER, useValue: resolve }],
    exports: [OUTBOUND_RESOLVER],
  };
  @Module({ imports: [nameServer, LivenessModule, GatewayProxyModule, GatewayAdminModule] })
  class GatewayAdminWithNameServer {}
  return {
    name: 'gateway-admin-dns',
    version: SERVICE_VERSION,
    surfaces: [{ label: 'gateway-admin', module: GatewayAdminWithNameServer, port: 'GATEWAY_PORT', surface: 'gateway', rawBodyPrefix: '/v1/' }],
  };
}

describe('gateway admin: provider-target hosts are resolved within the deadline (c-ares, never getaddrinfo)', () => {
  let h: AdminHarness;
  let dns: FakeNameServer;
  let mock: MockProvider;
  /** Names the name server stops answering once their next lookup is answered (between discovery's check and its connect). */
  const silenceAfterNextLookup = new Set<string>();

  beforeAll(async () => {
    dns = await startFakeNameServer();
    mock = await startMockProvider({ port: 0, models: MODELS, validKeys: [TARGET_KEY] });
    const config = { OUTBOUND_ALLOW_PRIVATE_NETWORKS: true };
    const bounded = outboundResolver(config, [dns.address]);
    const resolve: HostResolver = async (hostname, timeoutMs) => {
      const addresses = await bounded(hostname, timeoutMs);
      if (silenceAfterNextLookup.delete(hostname)) dns.answer(hostname, 'silent');
      return addresses;
    };
    // Private networks allowed: the mock provider listens on 127.0.0.1.
    h = await startAdmin({
      definition: withNameServer(resolve),
      env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', DISCOVERY_TIMEOUT_MS: String(TIMEOUT_MS), UPSTREAM_CONNECT_TIMEOUT_MS: String(TIMEOUT_MS) },
    });
  });
  afterAll(async () => {
    await h.stop();
    await mock.close();
    await dns.close();
  });
  beforeEach(() => mock.reset());

  const baseUrl = (host: string) => `http://${host}:${mock.port}/v1`;
  const register = (name: string, host: string) => h.call('POST', '/gateway/admin/provider-targets', { body: { name, provider_id: name, base_url: baseUrl(host), api_key: TARGET_KEY } });
  const discover = (id: string) => h.call('POST', `/gateway/admin/provider-targets/${id}/discover-models`);
  /** The reply and how long it took. */
  const timed = async <T>(work: () => Promise<T>): Promise<{ reply: T; ms: number }> => {
    const started = performance.now();
    const reply = await work();
    return { reply, ms: performance.now() - started };
  };
  const chat = async (model: string) => {
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-api-key': h.org.admin },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 16 }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  it('registers, discovers and proxies through a name the name server answers', async () => {
    dns.answer('lab.dns.test', { addresses: ['127.0.0.1'] });
    const created = await register('lab', 'lab.dns.test');
    expect(created.status).toBe(201);
    const res = await discover(created.body.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', source_url: `${baseUrl('lab.dns.test')}/models`, models: [...MODELS].sort(), total: 2 });
    expect(mock.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models', headers: { authorization: `Bearer ${TARGET_KEY}` } });
    const answer = await chat('lab/qwen2.5:7b');
    expect(answer.status).toBe(200);
    expect(mock.requests.at(-1)).toMatchObject({ path: '/v1/chat/completions', model: 'qwen2.5:7b' });
    expect(dns.queries.map((q) => q.name)).toContain('lab.dns.test');
  });

  it('refuses to register a host whose name server never answers: 400 url_not_allowed at DISCOVERY_TIMEOUT_MS', async () => {
    dns.answer('mute.dns.test', 'silent');
    const { reply, ms } = await timed(() => register('mute', 'mute.dns.test'));
    const error = gatewayError(reply, 400, 'url_not_allowed');
    expect(error).toMatchObject({ param: 'base_url', message: `The host mute.dns.test did not resolve within ${TIMEOUT_MS} ms`, remediation: expect.stringMatching(/name servers/) });
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect((await h.call('GET', '/gateway/admin/provider-targets')).body.items.map((t: Json) => t.name)).not.toContain('mute');
  });

  it('fails discovery with 502 discovery_failed (param lookup_timeout) at DISCOVERY_TIMEOUT_MS when the name server goes silent, and records the run', async () => {
    dns.answer('hushed.dns.test', { addresses: ['127.0.0.1'] });
    const created = await register('hushed', 'hushed.dns.test');
    expect(created.status).toBe(201);
    dns.answer('hushed.dns.test', 'silent');
    const { reply, ms } = await timed(() => discover(created.body.id));
    const error = gatewayError(reply, 502, 'discovery_failed');
    expect(error).toMatchObject({
      param: 'lookup_timeout',
      message: `Model discovery failed: The host hushed.dns.test did not resolve within ${TIMEOUT_MS} ms; its name servers did not answer`,
      remediation: expect.stringMatching(/DNS/),
    });
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(mock.requests).toEqual([]);
    const history = (await h.call('GET', `/gateway/admin/discovery/history?target_id=${created.body.id}`)).body.items;
    expect(history).toEqual([expect.objectContaining({ status: 'failed', error: expect.stringMatching(/did not resolve within/) })]);
  });

  it('bounds the lookup at connect time too: a name answered at the check and silent at the connect fails within the deadline', async () => {
    dns.answer('fickle.dns.test', { addresses: ['127.0.0.1'] });
    const created = await register('fickle', 'fickle.dns.test');
    expect(created.status).toBe(201);
    silenceAfterNextLookup.add('fickle.dns.test');
    const { reply, ms } = await timed(() => discover(created.body.id));
    const error = gatewayError(reply, 502, 'discovery_failed');
    // The lookup's deadline and undici's connect timer (coarse, up to 0.5 s early) are both the
    // connect deadline: whichever fires first names the failure. getaddrinfo would answer `network`
    // (ENOTFOUND: the system's name servers do not know the name).
    expect(['lookup_timeout', 'timeout']).toContain(error.param);
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(mock.requests).toEqual([]);
  });

  it('answers 504 upstream_timeout, not a 500 or a hang, when a proxied target’s name server goes silent', async () => {
    dns.answer('quiet.dns.test', { addresses: ['127.0.0.1'] });
    const created = await register('quiet', 'quiet.dns.test');
    expect(created.status).toBe(201);
    dns.answer('quiet.dns.test', 'silent');
    const { reply, ms } = await timed(() => chat('quiet/llama3.1:8b'));
    expect(reply).toMatchObject({ status: 504, body: { error: { code: 'upstream_timeout', message: expect.stringMatching(/^quiet: upstream (host lookup|connect) timeout/) } } });
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(mock.requests).toEqual([]);
  });
});
