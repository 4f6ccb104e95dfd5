import { asOrgId } from '@svc/domain';
import { bootService } from '@svc/testing';
import { SERVICE } from '../src/app.module';
import { createKey, GatewayHarness, Json, postJson, PROVIDER_KEY, startGateway } from './harness';

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'where am I from' }], max_tokens: 5 };

/**
 * SPEC.md "Gateway key": a key's IP allowlist (403 GW_AUTH_004 outside it) and `X-Forwarded-For`
 * read only from `TRUSTED_PROXIES`, through a real gateway whose proxy (the test's own connection
 * from 127.0.0.1) is trusted, with more trusted hops in 10.0.0.0/8 and 2001:db8:ffff::/48.
 * proxy-key-refusals.e2e-spec.ts keeps the single-hop cases and the untrusted header.
 */
describe('gateway client address: allowlists behind trusted proxies', () => {
  let gw: GatewayHarness;

  beforeAll(async () => {
    gw = await startGateway({ env: { TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8, 2001:db8:ffff::/48' } });
  });
  afterAll(() => gw.stop());

  /** A key allowing only `allowlist`, called once with `forwardedFor` (omitted: no header). */
  async function callFrom(allowlist: string[], forwardedFor?: string): Promise<{ status: number; body: Json }> {
    const key = await createKey(gw, { ipAllowlist: allowlist });
    const res = await postJson(`${gw.url}/v1/chat/completions`, chat, { 'X-SVC-API-Key': key.key, 'X-Provider-Key': PROVIDER_KEY, ...(forwardedFor === undefined ? {} : { 'X-Forwarded-For': forwardedFor }) });
    return { status: res.status, body: res.body };
  }

  /** The address the gateway took for the client: the one its 403 names, for a key that allows none of the test's. */
  async function seenAs(forwardedFor?: string): Promise<string> {
    const res = await callFrom(['192.0.2.250'], forwardedFor);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'ip_not_allowed', gateway_error_code: 'GW_AUTH_004' });
    return /^Requests from (\S+) are not allowed/.exec(res.body.error.message)?.[1] ?? res.body.error.message;
  }

  it('a chain whose every hop is a trusted proxy: the left-most address is the client, never the proxy itself', async () => {
    // A client inside the trusted pod network calling through the Ingress (10.0.0.2) and the proxy.
    expect(await seenAs('10.20.30.40')).toBe('10.20.30.40');
    expect(await seenAs('10.20.30.40, 10.0.0.2')).toBe('10.20.30.40');
    expect(await seenAs('2001:db8:ffff::40, 10.0.0.2')).toBe('2001:db8:ffff::40');
    expect((await callFrom(['10.20.30.0/24'], '10.20.30.40, 10.0.0.2')).status).toBe(200);
    // A key allowing only the proxy's own address does not let every in-cluster caller through it.
    expect((await callFrom(['127.0.0.1'], '10.20.30.40, 10.0.0.2')).status).toBe(403);
    // Without the header, the connection's own address is the client.
    expect(await seenAs()).toBe('127.0.0.1');
  });

  it('several hops: the right-most address that is not a trusted proxy, whatever the client wrote to its left', async () => {
    expect(await seenAs('198.51.100.1, 203.0.113.7, 10.1.2.3, 10.9.9.9')).toBe('203.0.113.7');
    expect(await seenAs('203.0.113.7, 2001:db8:ffff::1, 10.0.0.2')).toBe('203.0.113.7');
    expect(await seenAs('203.0.113.7:5555, [2001:db8:ffff::1]:443')).toBe('203.0.113.7');
    expect(await seenAs('2001:db8::7, 10.0.0.2')).toBe('2001:db8::7');
    // An address the client forged to the left of its own is never the client.
    expect((await callFrom(['198.51.100.1'], '198.51.100.1, 203.0.113.7')).status).toBe(403);
    // A malformed hop falls back to the proxy's own address, never to a forged one.
    expect(await seenAs('203.0.113.7, not-an-address')).toBe('127.0.0.1');
    expect(await seenAs('"203.0.113.7"')).toBe('127.0.0.1');
  });

  it('IPv4-mapped IPv6 is IPv4, in the header and in the allowlist; IPv6 and IPv4 ranges never match each other', async () => {
    expect(await seenAs('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect((await callFrom(['203.0.113.0/24'], '::ffff:203.0.113.9')).status).toBe(200);
    expect((await callFrom(['::ffff:203.0.113.0/120'], '203.0.113.9')).status).toBe(200);
    expect((await callFrom(['::ffff:203.0.113.9'], '203.0.113.9')).status).toBe(200);
    expect((await callFrom(['2001:DB8:0:0::1'], '2001:db8::1')).status).toBe(200);
    expect((await callFrom(['0.0.0.0/0'], '2001:db8::1')).status).toBe(403);
    expect((await callFrom(['::/0'], '203.0.113.7')).status).toBe(403);
  });

  it('CIDR boundaries: the first and last address of a range are in it, their neighbours are not', async () => {
    const cases: [string, string, number][] = [
      ['203.0.113.0/24', '203.0.113.0', 200],
      ['203.0.113.0/24', '203.0.113.255', 200],
      ['203.0.113.0/24', '203.0.112.255', 403],
      ['203.0.113.0/24', '203.0.114.0', 403],
      ['203.0.113.7/32', '203.0.113.7', 200],
      ['203.0.113.7/32', '203.0.113.8', 403],
      ['203.0.113.128/25', '203.0.113.127', 403],
      ['203.0.113.128/25', '203.0.113.128', 200],
      ['2001:db8::/32', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 200],
      ['2001:db8::/32', '2001:db9::', 403],
      ['2001:db8::/32', '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', 403],
      ['2001:db8::1/128', '2001:db8::1', 200],
      ['2001:db8::1/128', '2001:db8::2', 403],
    ];
    const results: [string, string, number][] = [];
    for (const [range, address] of cases) results.push([range, address, (await callFrom([range], address)).status]);
    expect(results).toEqual(cases);
  });
});

describe('gateway TRUSTED_PROXIES and key revocation', () => {
  it('refuses to start with a TRUSTED_PROXIES entry that is not an address or a CIDR range, naming it', async () => {
    for (const value of ['10.0.0.0/33', 'localhost', '127.0.0.1;10.0.0.1', '010.0.0.1']) {
      const started = bootService(SERVICE, { REDIS_URL: process.env.TEST_REDIS_URL as string, TRUSTED_PROXIES: `127.0.0.1, ${value}` });
      const outcome = await started.then(
        async (service) => {
          await service.stop();
          return 'started';
        },
        (error: Error) => error.message,
      );
      expect({ value, outcome }).toEqual({ value, outcome: expect.stringContaining(`TRUSTED_PROXIES: not an IP address or CIDR range: ${value}`) });
    }
  });

  it('a revoked key is refused within 5 s even when its invalidation message is lost (the cache TTL bounds it)', async () => {
    const gw = await startGateway();
    try {
      const key = await createKey(gw);
      const send = () => postJson(`${gw.url}/v1/chat/completions`, chat, { 'X-SVC-API-Key': key.key, 'X-Provider-Key': PROVIDER_KEY });
      expect((await send()).status).toBe(200);
      // Revoked in the store only: no invalidation is published (a replica that missed it).
      await gw.repos.apiKeys.revoke(asOrgId(gw.orgId), key.keyId);
      const revokedAt = Date.now();
      // Polled until refused: the last request that still passed was sent within 5 s of the revocation.
      let lastPassedAfterMs = 0;
      let res = await send();
      while (res.status === 200 && Date.now() - revokedAt < 8_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const sentAfterMs = Date.now() - revokedAt;
        res = await send();
        if (res.status === 200) lastPassedAfterMs = sentAfterMs;
      }
      expect({ status: res.status, code: res.body.error?.gateway_error_code }).toEqual({ status: 401, code: 'GW_AUTH_002' });
      expect(lastPassedAfterMs).toBeLessThan(5_000);
    } finally {
      await gw.stop();
    }
  }, 30_000);
});
